// Converts an eth_getLogs / eth_newFilter filter object into the chain's log criteria: addresses and
// topic positions as bytes (a null inside an OR-array matches anything at that position).
import { hexToBytes } from '../../rpc/hex.js';
import type { LogFilterObject } from '../../rpc/schema/eth.js';
import type { z } from 'zod';

export interface DecodedAddressTopics {
  addresses: Uint8Array[] | undefined;
  topics: (Uint8Array[] | null)[];
}

export function addressTopicsOf(filter: z.output<typeof LogFilterObject>): DecodedAddressTopics {
  const addresses = filter.address === undefined ? undefined : (Array.isArray(filter.address) ? filter.address : [filter.address]).map(hexToBytes);
  const topics = (filter.topics ?? []).map((t) => {
    if (t === null) return null;
    const options = Array.isArray(t) ? t : [t];
    return options.some((o) => o === null) ? null : options.map((o) => hexToBytes(o!));
  });
  return { addresses, topics };
}

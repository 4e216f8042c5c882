// eth_sendRawTransaction: admits a signed transaction (types 0, 1, 2, 4) and, in automine mode,
// runs it in its own block and journals it before answering with its hash; the block is sealed and
// written meanwhile, and the chain's other methods wait for it (chainReadGate.ts).
import { bytesToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_sendRawTransaction({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_sendRawTransaction']> {
  return async ([raw]) => bytesToHex(await chain.sendRawTransaction(raw, { journaled: true }));
}

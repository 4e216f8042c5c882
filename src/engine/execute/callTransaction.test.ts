// Call transactions built on the prepared Common (callTxCommon) carry the same parameters and
// costs as ones built on the chain's Common.
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '@ethereumjs/util';
import { createChainCommon } from '../chain/chainConfig.js';
import { callToTransaction, callTxCommon, type CallRequest } from './callTransaction.js';

const common = createChainCommon(31337n, 'prague');
const to = hexToBytes('0x00000000000000000000000000000000000000aa');
const data = hexToBytes('0xa9059cbb000000000000000000000000000000000000000000000000000000000000100000ff');
const calls: CallRequest[] = [
  { to, data },
  { data: new Uint8Array(200).fill(1) },
  { to, data, gasPrice: 7n, accessList: [{ address: to, storageKeys: [new Uint8Array(32)] }] },
  { to, data, maxFeePerGas: 9n, maxPriorityFeePerGas: 2n, value: 5n },
];

describe('callTxCommon', () => {
  it('behavior: transactions cost and encode the same as on the chain Common', () => {
    const prepared = callTxCommon(common);
    expect(callTxCommon(common)).toBe(prepared);
    for (const call of calls) {
      const plain = callToTransaction(call, { common, defaultGas: 1_000_000n, nonce: 3n });
      const fast = callToTransaction(call, { common: prepared, defaultGas: 1_000_000n, nonce: 3n });
      expect(fast.type).toBe(plain.type);
      expect(fast.getIntrinsicGas()).toBe(plain.getIntrinsicGas());
      expect(fast.getDataGas()).toBe(plain.getDataGas());
      expect(fast.serialize()).toEqual(plain.serialize());
      for (const name of ['txGas', 'txCreationGas', 'txDataZeroGas', 'txDataNonZeroGas', 'accessListStorageKeyGas', 'accessListAddressGas']) {
        expect(fast.common.param(name), name).toBe(plain.common.param(name));
      }
      expect(fast.common.hardfork()).toBe(plain.common.hardfork());
    }
  });
});

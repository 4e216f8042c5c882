// senderOf: the signer ethereumjs recovers, recovered once per transaction object.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx } from '@ethereumjs/tx';
import { privateToAddress } from '@ethereumjs/util';
import { describe, expect, it, vi } from 'vitest';
import { senderOf } from './txSender.js';

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const key = new Uint8Array(32).fill(7);

describe('senderOf', () => {
  it('behavior: the signer, recovered once per transaction; another transaction is recovered anew', () => {
    const tx = createTx({ type: 2, nonce: 1n, gasLimit: 21_000n, maxFeePerGas: 10n, to: new Uint8Array(20) }, { common, freeze: false }).sign(key);
    const recover = vi.spyOn(tx, 'getSenderAddress');
    expect(senderOf(tx).bytes).toEqual(privateToAddress(key));
    expect(senderOf(tx)).toBe(senderOf(tx));
    expect(recover).toHaveBeenCalledTimes(1);
    const other = createTx({ type: 2, nonce: 2n, gasLimit: 21_000n, maxFeePerGas: 10n, to: new Uint8Array(20) }, { common }).sign(new Uint8Array(32).fill(9));
    expect(senderOf(other).bytes).toEqual(privateToAddress(new Uint8Array(32).fill(9)));
  });
});

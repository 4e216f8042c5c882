// A transaction that makes the VM throw while the miner builds its block (not an EVM halt, which is
// data) is refused, and leaves the chain as it was: the next transactions mine, and nonces and the
// working state are intact. Without a KZG the point-evaluation precompile (0x0a) throws out of the
// VM, which makes such a transaction; with the bundled KZG (the default) it runs and just fails.
import { describe, expect, it } from 'vitest';
import { Address, hexToBytes } from '@ethereumjs/util';
import type { DevChain } from './devChain.js';
import { signWithDevKey } from './testing/tempChain.js';
import { useTempChains } from './testing/useTempChains.js';

const FEES = { type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n };
const POINT_EVALUATION = new Address(hexToBytes('0x000000000000000000000000000000000000000a'));
const never = { setInterval: () => undefined, clearInterval: () => undefined };
const openChain = useTempChains();
const open = async (options: Parameters<typeof openChain>[0]) => (await openChain(options)).chain;

/** 192 zero bytes: not a valid proof, so a working precompile fails (an EVM-level failure). */
const pointEvaluationCall = (chain: DevChain, nonce: bigint) => signWithDevKey(chain, 0, { ...FEES, nonce, gasLimit: 200_000n, to: POINT_EVALUATION, data: new Uint8Array(192) });
const transfer = (chain: DevChain, nonce: bigint) => signWithDevKey(chain, 0, { ...FEES, nonce, gasLimit: 21_000n, to: chain.accounts[1]!.address, value: 1n });
const nonceOf = (chain: DevChain) => chain.pendingNonce(chain.accounts[0]!.address.bytes);

describe('miner failures', () => {
  it('default: a call into the point-evaluation precompile is mined (it fails inside the EVM)', async () => {
    const chain = await open({});
    await chain.sendRawTransaction(pointEvaluationCall(chain, 0n).serialize());
    const receipts = await chain.getReceipts((await chain.getBlockByNumber(1n))!.hash());
    expect(receipts[0]!.status).toBe(0);
    await chain.sendRawTransaction(transfer(chain, 1n).serialize());
    expect(chain.headNumber()).toBe(2n);
  });

  it('error: automine refuses a transaction that throws out of the VM and keeps mining the next ones', async () => {
    const chain = await open({ kzg: null });
    await chain.sendRawTransaction(transfer(chain, 0n).serialize());
    await expect(chain.sendRawTransaction(pointEvaluationCall(chain, 1n).serialize())).rejects.toThrow(/kzg/i);
    expect(chain.headNumber()).toBe(1n);
    await chain.sendRawTransaction(transfer(chain, 1n).serialize());
    expect(chain.headNumber()).toBe(2n);
    expect(await nonceOf(chain)).toBe(2n);
  });

  it('error: a pooled transaction that throws out of the VM is dropped; the block mines with the others and the state stays readable', async () => {
    const chain = await open({ kzg: null, blockTimeSec: 1, timers: never });
    await chain.sendRawTransaction(transfer(chain, 0n).serialize());
    await chain.sendRawTransaction(pointEvaluationCall(chain, 1n).serialize());
    const block = await chain.mine();
    expect(block.transactions.map((tx) => tx.nonce)).toEqual([0n]);
    expect(await nonceOf(chain)).toBe(1n);
    await chain.sendRawTransaction(transfer(chain, 1n).serialize());
    const next = await chain.mine();
    expect(next.transactions.map((tx) => tx.nonce)).toEqual([1n]);
    expect(await nonceOf(chain)).toBe(2n);
    const balance = await (await chain.stateAt(next)).getAccount(chain.accounts[1]!.address);
    expect(balance!.balance).toBe(10_000n * 10n ** 18n + 2n);
  });
});

// Dev controls: snapshots and revert (with head events), setters that persist immediately,
// timestamps, on-demand and interval mining.
import { describe, expect, it } from 'vitest';
import { Address, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { InvalidParamsError } from '../../rpc/errors.js';
import type { ChainTimers } from './chainConfig.js';
import { createDevChain } from './devChain.js';
import { type TempChain, signWithDevKey } from './testing/tempChain.js';
import { useTempChains } from './testing/useTempChains.js';
import type { HeadEvent } from './types.js';

const FEES = { type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n };
const open = useTempChains();

function transfer(t: TempChain, nonce: bigint, value = 1n) {
  return signWithDevKey(t.chain, 0, { ...FEES, nonce, gasLimit: 21_000n, to: t.chain.accounts[1]!.address, value }).serialize();
}

async function balanceAt(t: TempChain, address: Address, number?: bigint) {
  const block = (await t.chain.getBlockByNumber(number ?? t.chain.headNumber()))!;
  return (await (await t.chain.stateAt(block)).getAccount(address))?.balance ?? 0n;
}

describe('snapshots', () => {
  it('behavior: revert rewinds blocks, state and tx lookups and reports removed blocks newest first', async () => {
    const t = await open();
    await t.chain.sendRawTransaction(transfer(t, 0n));
    const id = await t.chain.snapshot();
    const events: HeadEvent[] = [];
    t.chain.onHead((e) => events.push(e));
    const h2 = await t.chain.sendRawTransaction(transfer(t, 1n));
    await t.chain.sendRawTransaction(transfer(t, 2n));
    await t.chain.setBalance(t.chain.accounts[5]!.address.bytes, 1n);
    const removedHashes = [bytesToHex((await t.chain.getBlockByNumber(3n))!.hash()), bytesToHex((await t.chain.getBlockByNumber(2n))!.hash())];
    expect(await t.chain.revert(id)).toBe(true);
    expect(t.chain.headNumber()).toBe(1n);
    expect(await t.chain.getTransaction(h2)).toBeUndefined();
    expect(await t.chain.getBlockByNumber(2n)).toBeUndefined();
    expect(await balanceAt(t, t.chain.accounts[5]!.address)).toBe(10_000n * 10n ** 18n);
    const last = events.at(-1)!;
    expect(last.block.header.number).toBe(1n);
    expect(last.removed.map((b) => bytesToHex(b.hash()))).toEqual(removedHashes);
    // The snapshot is used up, and the chain goes on from block 1 with nonce 1.
    expect(await t.chain.revert(id)).toBe(false);
    await t.chain.sendRawTransaction(transfer(t, 1n, 2n));
    expect(t.chain.headNumber()).toBe(2n);
  });

  it('error: an unknown snapshot id answers false and changes nothing', async () => {
    const t = await open();
    await t.chain.sendRawTransaction(transfer(t, 0n));
    expect(await t.chain.revert(99n)).toBe(false);
    expect(t.chain.headNumber()).toBe(1n);
  });
});

describe('setters', () => {
  it('behavior: balance, nonce, code and storage change latest at once, survive a reopen, and leave history alone', async () => {
    const t = await open();
    const target = t.chain.accounts[4]!.address;
    await t.chain.sendRawTransaction(transfer(t, 0n));
    await t.chain.setBalance(target.bytes, 123n);
    await t.chain.setNonce(target.bytes, 7n);
    await t.chain.setCode(target.bytes, hexToBytes('0x600160005500'));
    await t.chain.setStorageAt(target.bytes, setLengthLeft(hexToBytes('0x05'), 32), setLengthLeft(hexToBytes('0x2a'), 32));
    const check = async (chain: typeof t.chain) => {
      const state = await chain.stateAt((await chain.getBlockByNumber(chain.headNumber()))!);
      const account = (await state.getAccount(target))!;
      expect([account.balance, account.nonce]).toEqual([123n, 7n]);
      expect(bytesToHex(await state.getCode(target))).toBe('0x600160005500');
      expect(bytesToHex(await state.getStorage(target, setLengthLeft(hexToBytes('0x05'), 32)))).toBe('0x2a');
    };
    await check(t.chain);
    expect(t.chain.headNumber()).toBe(1n);
    const genesisState = await t.chain.stateAt((await t.chain.getBlockByNumber(0n))!);
    expect((await genesisState.getAccount(target))!.balance).toBe(10_000n * 10n ** 18n);
    await t.chain.close();
    const reopened = await createDevChain({ dataDir: t.dataDir, clock: () => 1_700_000_000_000 });
    try {
      await check(reopened);
      // The next block builds on the changed state: with its code removed and funds added, the
      // account sends with the nonce it was given.
      await reopened.setCode(target.bytes, new Uint8Array());
      await reopened.setBalance(target.bytes, 10n ** 18n);
      await reopened.sendRawTransaction(signWithDevKey(reopened, 4, { ...FEES, nonce: 7n, gasLimit: 21_000n, to: target, value: 0n, maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 0n }).serialize());
      const block = (await reopened.getBlockByNumber(2n))!;
      expect((await (await reopened.stateAt(block)).getAccount(target))!.nonce).toBe(8n);
    } finally {
      await reopened.close();
    }
  });
});

describe('mining and time', () => {
  it('default: genesis uses the clock, and blocks in the same second share its timestamp', async () => {
    const t = await open();
    await t.chain.sendRawTransaction(transfer(t, 0n));
    expect((await t.chain.getBlockByNumber(0n))!.header.timestamp).toBe(1_700_000_000n);
    expect((await t.chain.getBlockByNumber(1n))!.header.timestamp).toBe(1_700_000_000n);
  });

  it('behavior: setNextBlockTimestamp applies to the next block and time continues from it', async () => {
    let now = 1_700_000_000_000;
    const t = await open({ clock: () => now });
    await t.chain.setNextBlockTimestamp(1_800_000_000n);
    await t.chain.mine();
    now += 5_000;
    await t.chain.mine();
    expect((await t.chain.getBlockByNumber(1n))!.header.timestamp).toBe(1_800_000_000n);
    expect((await t.chain.getBlockByNumber(2n))!.header.timestamp).toBe(1_800_000_005n);
    await expect(t.chain.setNextBlockTimestamp(1n)).rejects.toBeInstanceOf(InvalidParamsError);
  });

  it('behavior: base fee starts at 1 gwei for blocks 0 and 1, then follows EIP-1559', async () => {
    const t = await open();
    await t.chain.mine();
    await t.chain.mine();
    const fees = await Promise.all([0n, 1n, 2n].map(async (n) => (await t.chain.getBlockByNumber(n))!.header.baseFeePerGas));
    expect(fees).toEqual([1_000_000_000n, 1_000_000_000n, 875_000_000n]);
  });

  it('behavior: interval mining pools transactions, counts them in the pending nonce and mines them on the tick', async () => {
    let tick: (() => void) | undefined;
    const timers: ChainTimers = { setInterval: (fn) => ((tick = fn), 1), clearInterval: () => (tick = undefined) };
    const t = await open({ blockTimeSec: 2, timers });
    const hashes = [await t.chain.sendRawTransaction(transfer(t, 0n)), await t.chain.sendRawTransaction(transfer(t, 1n))];
    expect(t.chain.headNumber()).toBe(0n);
    expect(await t.chain.pendingNonce(t.chain.accounts[0]!.address.bytes)).toBe(2n);
    expect(t.chain.pendingTransaction(hashes[0]!)).toBeDefined();
    tick!();
    await t.chain.snapshot(); // queued behind the tick's mining on the write lock
    expect(t.chain.headNumber()).toBe(1n);
    expect((await t.chain.getBlockByNumber(1n))!.transactions).toHaveLength(2);
    expect(t.chain.pendingTransaction(hashes[0]!)).toBeUndefined();
    tick!();
    await t.chain.snapshot();
    expect(t.chain.headNumber()).toBe(2n);
    await t.chain.close();
    expect(tick).toBeUndefined();
  });
});

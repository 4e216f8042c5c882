// The read-only chain view trace workers use: its pooled VMs share one trie-read cache, so every
// read must come from the root asked for (setter roots, new blocks), never from another root or
// from a write a borrower reverted.
import { afterEach, describe, expect, it } from 'vitest';
import { Address, bytesToBigInt, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { type ChainReader, openChainReader } from './chainReader.js';
import { type TempChain, openTempChain, signWithDevKey } from './testing/tempChain.js';

const temps: TempChain[] = [];
const readers: ChainReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  for (const t of temps.splice(0)) await t.dispose();
});

const SLOT = setLengthLeft(new Uint8Array([7]), 32);
const RECIPIENT = new Address(hexToBytes('0x00000000000000000000000000000000000000bb'));

async function chainAndReader() {
  const temp = await openTempChain();
  temps.push(temp);
  const reader = openChainReader({ dataDir: temp.dataDir, chainId: temp.chain.chainId, hardfork: temp.chain.config.hardfork });
  readers.push(reader);
  const holder = temp.chain.accounts[1]!.address;
  /** Sets the slot through the dev setter and returns the head's new working root. */
  async function setSlot(value: number): Promise<Uint8Array> {
    await temp.chain.setStorageAt(holder.bytes, SLOT, setLengthLeft(new Uint8Array([value]), 32));
    return temp.chain.stateRootAt((await temp.chain.getBlockByNumber(temp.chain.headNumber()))!);
  }
  const slotOf = async (vm: VM) => bytesToBigInt(await vm.stateManager.getStorage(holder, SLOT));
  return { chain: temp.chain, reader, holder, setSlot, slotOf };
}

describe('chain reader (shared trie-read cache)', () => {
  it('behavior: pooled VMs read each setter root, before and after the cache holds the others', async () => {
    const { reader, setSlot, slotOf } = await chainAndReader();
    const one = await setSlot(1);
    expect(await reader.withVm(one, slotOf)).toBe(1n);
    const two = await setSlot(2);
    expect(await reader.withVm(two, slotOf)).toBe(2n);
    expect(await reader.withVm(one, slotOf)).toBe(1n);
    const vm = await reader.createVm({ stateRoot: two });
    expect(await slotOf(vm)).toBe(2n);
  });

  it('behavior: a write a borrower reverted is never read by the next borrower or another VM', async () => {
    const { reader, holder, setSlot, slotOf } = await chainAndReader();
    const root = await setSlot(3);
    await reader.withVm(root, async (vm) => {
      await vm.stateManager.checkpoint();
      expect(await slotOf(vm)).toBe(3n);
      await vm.stateManager.putStorage(holder, SLOT, new Uint8Array([99]));
      await vm.stateManager.putAccount(RECIPIENT, undefined);
      expect(await slotOf(vm)).toBe(99n);
      await vm.stateManager.revert();
    });
    expect(await reader.withVm(root, slotOf)).toBe(3n);
    expect(await slotOf(await reader.createVm({ stateRoot: root }))).toBe(3n);
  });

  it('behavior: a new block is read at its own root; the parent root still reads as before', async () => {
    const { chain, reader } = await chainAndReader();
    const balance = async (vm: VM) => (await vm.stateManager.getAccount(RECIPIENT))?.balance ?? 0n;
    const parent = chain.stateRootAt((await chain.getBlockByNumber(chain.headNumber()))!);
    expect(await reader.withVm(parent, balance)).toBe(0n);
    const tx = signWithDevKey(chain, 0, { type: 2, nonce: 0n, to: RECIPIENT, value: 9n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n });
    await chain.sendRawTransaction(tx.serialize());
    const head = chain.stateRootAt((await chain.getBlockByNumber(chain.headNumber()))!);
    expect(await reader.withVm(head, balance)).toBe(9n);
    expect(await reader.withVm(parent, balance)).toBe(0n);
  });

  it('behavior: storedBlock hands a trace job its block without the canonical check; a removed block it never read is gone', async () => {
    const { chain, reader } = await chainAndReader();
    const send = (nonce: bigint) =>
      chain.sendRawTransaction(signWithDevKey(chain, 0, { type: 2, nonce, to: RECIPIENT, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }).serialize());
    const snapshot = await chain.snapshot();
    await send(0n);
    const read = (await chain.getBlockByNumber(1n))!.hash();
    await send(1n);
    const unread = (await chain.getBlockByNumber(2n))!.hash();
    expect((await reader.storedBlock!(read))?.hash()).toEqual(read);
    expect(await chain.revert(snapshot)).toBe(true);
    // The canonical lookup asks SQLite and sees the rewind; the job's lookup keeps the block the
    // reader already decoded (the job answers for the moment it was asked), and finds no other.
    expect(await reader.getBlockByHash(read)).toBeUndefined();
    expect((await reader.storedBlock!(read))?.hash()).toEqual(read);
    expect(await reader.storedBlock!(unread)).toBeUndefined();
  });
});

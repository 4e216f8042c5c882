// The pooled VMs behind ChainView.withVm: a returned VM serves the next borrower, re-pointed when
// the root differs (reads then see that root's state, never the previous one's), concurrent
// borrowers get distinct VMs, and a VM whose borrower threw is never lent again.
import { afterEach, describe, expect, it } from 'vitest';
import { Address, hexToBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { type TempChain, openTempChain, signWithDevKey } from './testing/tempChain.js';

const temps: TempChain[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) await t.dispose();
});
const RECIPIENT = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'));

async function twoRoots() {
  const temp = await openTempChain();
  temps.push(temp);
  const { chain } = temp;
  const genesis = (await chain.getBlockByNumber(0n))!;
  const tx = signWithDevKey(chain, 0, { type: 2, nonce: 0n, to: RECIPIENT, value: 5n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n });
  await chain.sendRawTransaction(tx.serialize());
  const head = (await chain.getBlockByNumber(1n))!;
  return { chain, before: genesis.header.stateRoot, after: chain.stateRootAt(head) };
}

const balanceOf = async (vm: VM) => (await vm.stateManager.getAccount(RECIPIENT))?.balance ?? 0n;

describe('pooled VMs (ChainView.withVm)', () => {
  it('behavior: a returned VM is re-pointed to the next root and reads that root only', async () => {
    const { chain, before, after } = await twoRoots();
    const first = await chain.withVm(after, async (vm) => {
      expect(await balanceOf(vm)).toBe(5n);
      return vm;
    });
    const second = await chain.withVm(before, async (vm) => {
      expect(await balanceOf(vm)).toBe(0n);
      return vm;
    });
    expect(second).toBe(first);
    expect(await chain.withVm(after, balanceOf)).toBe(5n);
  });

  it('behavior: concurrent borrowers get distinct VMs; a borrower that threw loses its VM', async () => {
    const { chain, after } = await twoRoots();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = chain.withVm(after, async (vm) => {
      await gate;
      return vm;
    });
    const other = await chain.withVm(after, async (vm) => vm);
    release();
    expect(await held).not.toBe(other);
    const broken = await chain
      .withVm(after, async (vm) => {
        throw Object.assign(new Error('boom'), { vm });
      })
      .catch((error: { vm: VM }) => error.vm);
    const lent = new Set<VM>();
    await Promise.all([0, 1, 2].map(() => chain.withVm(after, async (vm) => void lent.add(vm))));
    expect(lent.has(broken)).toBe(false);
  });

  it('behavior: borrows that take no checkpoint (reads only) do not wear a VM out; 1,000 that do retire it', async () => {
    const { chain, after } = await twoRoots();
    const first = await chain.withVm(after, async (vm) => vm);
    for (let i = 0; i < 1200; i++) {
      expect(await chain.withVm(after, async (vm) => (await balanceOf(vm), vm))).toBe(first);
    }
    const writing = async (vm: VM) => {
      await vm.stateManager.checkpoint();
      await vm.stateManager.revert();
      return vm;
    };
    for (let i = 0; i < 999; i++) expect(await chain.withVm(after, writing)).toBe(first);
    // The 1,000th borrow that took a checkpoint was its last.
    expect(await chain.withVm(after, writing)).toBe(first);
    expect(await chain.withVm(after, async (vm) => vm)).not.toBe(first);
  });

  it('error: an unknown root is refused', async () => {
    const { chain } = await twoRoots();
    await expect(chain.withVm(new Uint8Array(32).fill(7), async () => 1)).rejects.toThrow();
  });
});

// The root each block was built on (ChainView.preStateRoot): the parent's state root plus the dev
// setters' changes made before mining, committed with the block, answered alike by the live chain,
// the read-only reader and a reopened chain, kept per block hash across evm_revert, and an older
// data dir without the table still opens.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import { openChainReader } from './chainReader.js';
import { createDevChain } from './devChain.js';
import { type TempChain, signWithDevKey } from './testing/tempChain.js';
import { useTempChains } from './testing/useTempChains.js';
import type { ChainView } from './types.js';

const FEES = { type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n };
const RICH = new Address(hexToBytes('0x00000000000000000000000000000000000000cc'));
const open = useTempChains();

/** Mines a plain transfer from dev account 0 and returns the new head. */
async function mineTransfer(t: TempChain, nonce: bigint) {
  await t.chain.sendRawTransaction(signWithDevKey(t.chain, 0, { ...FEES, nonce, gasLimit: 21_000n, to: t.chain.accounts[1]!.address, value: 1n }).serialize());
  return (await t.chain.getBlockByNumber(t.chain.headNumber()))!;
}

/** preStateRoot of canonical blocks 1..head as hex, read through `view`. */
async function preRoots(view: ChainView): Promise<string[]> {
  const out: string[] = [];
  for (let n = 1n; n <= view.headNumber(); n++) out.push(bytesToHex(await view.preStateRoot((await view.getBlockByNumber(n))!)));
  return out;
}

function storedRows(dataDir: string): number {
  const db = new Database(join(dataDir, 'chain.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM pre_state_roots').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('preStateRoot', () => {
  it('default: a block mined after a setter starts from the working root; one without starts from its parent root', async () => {
    const t = await open();
    const b1 = await mineTransfer(t, 0n);
    await t.chain.setBalance(RICH.bytes, 10n ** 18n);
    const working = t.chain.stateRootAt(b1);
    expect(bytesToHex(working)).not.toBe(bytesToHex(b1.header.stateRoot));
    const b2 = await mineTransfer(t, 1n);
    const b3 = await mineTransfer(t, 2n);
    expect(bytesToHex(await t.chain.preStateRoot(b1))).toBe(bytesToHex((await t.chain.getBlockByNumber(0n))!.header.stateRoot));
    expect(bytesToHex(await t.chain.preStateRoot(b2))).toBe(bytesToHex(working));
    expect(bytesToHex(await t.chain.preStateRoot(b3))).toBe(bytesToHex(b2.header.stateRoot));
    // The setter's balance is in the state b2 was built on, not in b1's post-state.
    const balanceAt = async (root: Uint8Array) => t.chain.withVm(root, async (vm) => (await vm.stateManager.getAccount(RICH))?.balance);
    expect(await balanceAt(await t.chain.preStateRoot(b2))).toBe(10n ** 18n);
    expect(await balanceAt(b1.header.stateRoot)).toBeUndefined();
    // Only the block that differs from its parent gets a row.
    expect(storedRows(t.dataDir)).toBe(1);
    await expect(t.chain.preStateRoot((await t.chain.getBlockByNumber(0n))!)).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('behavior: the read-only reader (trace workers) and a reopened chain answer the same', async () => {
    const t = await open();
    await t.chain.setNonce(t.chain.accounts[2]!.address.bytes, 7n);
    await mineTransfer(t, 0n);
    await t.chain.setStorageAt(RICH.bytes, new Uint8Array(32), new Uint8Array(32).fill(1));
    await mineTransfer(t, 1n);
    await mineTransfer(t, 2n);
    const expected = await preRoots(t.chain);
    const reader = openChainReader({ dataDir: t.dataDir, chainId: t.chain.chainId, hardfork: t.chain.config.hardfork });
    try {
      expect(await preRoots(reader)).toEqual(expected);
    } finally {
      reader.close();
    }
    await t.chain.close();
    const reopened = await createDevChain({ dataDir: t.dataDir, clock: () => 1_700_000_000_000 });
    try {
      expect(await preRoots(reopened)).toEqual(expected);
    } finally {
      await reopened.close();
    }
    expect(new Set(expected).size).toBe(3);
  });

  it('behavior: after evm_revert a block re-mined at the same height has its own root; the removed one leaves no row', async () => {
    const t = await open();
    await mineTransfer(t, 0n);
    const id = await t.chain.snapshot();
    await t.chain.setBalance(RICH.bytes, 1n);
    const gone = await mineTransfer(t, 1n);
    const goneRoot = await t.chain.preStateRoot(gone);
    expect(storedRows(t.dataDir)).toBe(1);
    expect(await t.chain.revert(id)).toBe(true);
    expect(storedRows(t.dataDir)).toBe(0);
    await t.chain.setBalance(RICH.bytes, 2n);
    const again = await mineTransfer(t, 1n);
    expect(again.header.number).toBe(gone.header.number);
    expect(bytesToHex(again.hash())).not.toBe(bytesToHex(gone.hash()));
    const againRoot = await t.chain.preStateRoot(again);
    expect(bytesToHex(againRoot)).not.toBe(bytesToHex(goneRoot));
    expect(await t.chain.withVm(againRoot, async (vm) => (await vm.stateManager.getAccount(RICH))?.balance)).toBe(2n);
    expect(storedRows(t.dataDir)).toBe(1);
  });

  it('behavior: a revert to a snapshot taken after a setter keeps building on that setter state', async () => {
    const t = await open();
    await t.chain.setBalance(RICH.bytes, 5n);
    const id = await t.chain.snapshot();
    await mineTransfer(t, 0n);
    await t.chain.revert(id);
    const block = await mineTransfer(t, 0n);
    expect(await t.chain.withVm(await t.chain.preStateRoot(block), async (vm) => (await vm.stateManager.getAccount(RICH))?.balance)).toBe(5n);
  });

  it('behavior: a data dir from before the table existed opens, gets the table, and records new blocks', async () => {
    const t = await open();
    const b1 = await mineTransfer(t, 0n);
    await t.chain.close();
    const db = new Database(join(t.dataDir, 'chain.sqlite'));
    db.exec('DROP TABLE pre_state_roots');
    db.close();
    const reopened = await createDevChain({ dataDir: t.dataDir, clock: () => 1_700_000_000_000 });
    try {
      expect(bytesToHex(await reopened.preStateRoot((await reopened.getBlockByNumber(1n))!))).toBe(bytesToHex((await reopened.getBlockByNumber(0n))!.header.stateRoot));
      await reopened.setBalance(RICH.bytes, 3n);
      const working = reopened.stateRootAt(b1);
      await reopened.sendRawTransaction(signWithDevKey(reopened, 0, { ...FEES, nonce: 1n, gasLimit: 21_000n, to: RICH, value: 1n }).serialize());
      expect(bytesToHex(await reopened.preStateRoot((await reopened.getBlockByNumber(2n))!))).toBe(bytesToHex(working));
    } finally {
      await reopened.close();
    }
    expect(storedRows(t.dataDir)).toBe(1);
  });
});

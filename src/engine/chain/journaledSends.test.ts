// Automine's journaled sends (eth_sendRawTransaction): answered once the transaction has run and is
// journaled, while its block is sealed and the writer thread writes it; a refused write drops the
// blocks mined on it, and the journal mines their transactions again before the chain takes other
// writes.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Address, bytesToHex } from '@ethereumjs/util';
import type { DevChain } from './devChain.js';
import { createDevChain } from './devChain.js';
import { makeTempDir, signWithDevKey } from './testing/tempChain.js';
import { useTempChains } from './testing/useTempChains.js';

const open = useTempChains();
const blockers: Database.Database[] = [];
afterEach(() => {
  for (const db of blockers.splice(0)) db.close();
});

const FEES = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, type: 2 };

function transfer(chain: DevChain, nonce: bigint): Uint8Array {
  return signWithDevKey(chain, 1, { ...FEES, nonce, gasLimit: 21_000n, to: chain.accounts[2]!.address, value: nonce + 1n }).serialize();
}

/** A second connection on the chain's database that can refuse the writer's block rows. */
function refuser(dataDir: string): { refuse(on: boolean): void } {
  const db = new Database(join(dataDir, 'chain.sqlite'));
  blockers.push(db);
  db.exec(`CREATE TABLE refuse (on_ INTEGER);
    CREATE TRIGGER refuse_blocks BEFORE INSERT ON canonical WHEN EXISTS (SELECT 1 FROM refuse) BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;`);
  return { refuse: (on) => db.exec(on ? 'INSERT INTO refuse VALUES (1)' : 'DELETE FROM refuse') };
}

describe('journaled sends', () => {
  it('behavior: a send is answered while its block is written; the head moves once it is, and the journal then empties', async () => {
    const { chain, dataDir } = await open();
    const blocker = new Database(join(dataDir, 'chain.sqlite'));
    blockers.push(blocker);
    blocker.exec('BEGIN IMMEDIATE');
    const hashes = [];
    for (let nonce = 0n; nonce < 3n; nonce++) hashes.push(await chain.sendRawTransaction(transfer(chain, nonce), { journaled: true }));
    // Answered, not yet written: readers still see genesis, and settled() is waiting.
    expect(chain.headNumber()).toBe(0n);
    const settled = chain.settled!();
    expect(settled).toBeInstanceOf(Promise);
    expect(await chain.getTransaction(hashes[0]!)).toBeUndefined();
    blocker.exec('ROLLBACK');
    await settled;
    expect(chain.headNumber()).toBe(3n);
    expect(chain.settled!()).toBeUndefined();
    for (const [i, hash] of hashes.entries()) expect((await chain.getTransaction(hash))?.block.header.number).toBe(BigInt(i + 1));
    // A reopen finds nothing to mine again.
    await chain.close();
    const reopened = await createDevChain({ dataDir, clock: () => 1_700_000_000_000 });
    try {
      expect(reopened.headNumber()).toBe(3n);
    } finally {
      await reopened.close();
    }
  });

  it('error: a refused block write drops the blocks mined on it; the journal is mined again (by the next write, or by itself within a second or two), and nothing acknowledged is lost', async () => {
    const { chain, dataDir } = await open();
    const { refuse } = refuser(dataDir);
    const first = await chain.sendRawTransaction(transfer(chain, 0n), { journaled: true });
    await chain.settled!();
    refuse(true);
    const acknowledged = [await chain.sendRawTransaction(transfer(chain, 1n), { journaled: true }), await chain.sendRawTransaction(transfer(chain, 2n), { journaled: true })];
    await chain.settled!();
    // Neither block was written: readers see block 1 only.
    expect(chain.headNumber()).toBe(1n);
    // The next write tries the journal first, which is still refused: so is the write.
    await expect(chain.sendRawTransaction(transfer(chain, 3n), { journaled: true })).rejects.toThrow(/refused by the test/);
    await expect(chain.setBalance(chain.accounts[5]!.address.bytes, 1n)).rejects.toThrow(/refused by the test/);
    expect(chain.headNumber()).toBe(1n);
    refuse(false);
    // With no further request, the chain tries again by itself and mines the journal.
    await expect.poll(() => chain.headNumber(), { timeout: 5000 }).toBe(3n);
    const last = await chain.sendRawTransaction(transfer(chain, 3n), { journaled: true });
    await chain.settled!();
    expect(chain.headNumber()).toBe(4n);
    const numbers = [];
    for (const hash of [first, ...acknowledged, last]) numbers.push((await chain.getTransaction(hash))?.block.header.number);
    expect(numbers).toEqual([1n, 2n, 3n, 4n]);
    const state = await chain.stateAt((await chain.getBlockByNumber(4n))!);
    expect((await state.getAccount(new Address(chain.accounts[2]!.address.bytes)))!.balance).toBe(10_000n * 10n ** 18n + 1n + 2n + 3n + 4n);
    expect(bytesToHex(first)).toMatch(/^0x/);
  });

  it('error: a journal that cannot be created (its space not claimed) leaves the chain working: sends are answered once their block is written', async () => {
    const dataDir = makeTempDir();
    // A directory where the journal's file should be: claiming its space fails, as on a full disk.
    mkdirSync(join(dataDir, 'chain.journal'));
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (_fields: unknown, message: string) => warnings.push(message) };
    const { chain } = await open({ dataDir, logger });
    const hash = await chain.sendRawTransaction(transfer(chain, 0n), { journaled: true });
    // Nothing was journaled, so the answer waited for the write.
    expect(chain.settled!()).toBeUndefined();
    expect(chain.headNumber()).toBe(1n);
    expect((await chain.getTransaction(hash))?.block.header.number).toBe(1n);
    expect(warnings).toEqual([expect.stringMatching(/transaction journal could not be created/)]);
  });
});

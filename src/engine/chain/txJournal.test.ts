// The journal of acknowledged transactions: records survive a reopen, emptying is a new epoch (old
// records are never read again), a torn record ends the journal, and a full journal says so.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from './testing/tempChain.js';
import { openTxJournal } from './txJournal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalFile(): string {
  const dir = makeTempDir('tracehook-journal-');
  dirs.push(dir);
  return join(dir, 'chain.journal');
}

const bytes = (...values: number[]) => new Uint8Array(values);

describe('tx journal', () => {
  it('behavior: appended records come back in order after a reopen; a cleared journal reads empty, and stays empty after a reopen', () => {
    const file = journalFile();
    const journal = openTxJournal(file, 4096);
    expect(statSync(file).size).toBe(8 + 4096);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(journal.isEmpty()).toBe(true);
    expect(journal.append(bytes(1, 2, 3))).toBe(true);
    expect(journal.append(bytes(4))).toBe(true);
    journal.close();
    const reopened = openTxJournal(file, 4096);
    expect(reopened.entries()).toEqual([bytes(1, 2, 3), bytes(4)]);
    expect(reopened.isEmpty()).toBe(false);
    reopened.clear();
    expect(reopened.entries()).toEqual([]);
    // The new epoch writes over the old records; the third old one (bytes 4) is still in the file
    // after the first new one, and must not be read as current.
    expect(reopened.append(bytes(9, 9, 9))).toBe(true);
    reopened.close();
    const third = openTxJournal(file, 4096);
    expect(third.entries()).toEqual([bytes(9, 9, 9)]);
    third.clear();
    third.close();
    expect(openTxJournal(file, 4096).entries()).toEqual([]);
  });

  it('error: a torn last record (a crash mid-write) ends the journal; the records before it are read', () => {
    const file = journalFile();
    const journal = openTxJournal(file, 4096);
    journal.append(bytes(1, 1));
    journal.append(bytes(2, 2, 2, 2));
    journal.close();
    const content = readFileSync(file);
    // The second record starts after the header (8) and the first record (12 + 2): flip a byte of its payload.
    content[8 + 14 + 12 + 1]! ^= 0xff;
    writeFileSync(file, content);
    expect(openTxJournal(file, 4096).entries()).toEqual([bytes(1, 1)]);
  });

  it('error: a record that does not fit is refused (false), and the journal keeps what it has', () => {
    const journal = openTxJournal(journalFile(), 64);
    expect(journal.append(new Uint8Array(40))).toBe(true);
    expect(journal.append(new Uint8Array(20))).toBe(false);
    expect(journal.entries()).toHaveLength(1);
    journal.clear();
    expect(journal.append(new Uint8Array(20))).toBe(true);
  });
});

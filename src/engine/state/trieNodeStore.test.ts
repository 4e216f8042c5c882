// Trie node storage: buffered writes reach SQLite only when flushed, overlays never write, and
// every historical root stays readable after later changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Account, Address, KECCAK256_RLP, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createChainCommon } from '../chain/chainConfig.js';
import { createStateManagerAt } from './stateManagerAt.js';
import { createTrieNodeStore } from './trieNodeStore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function openDb() {
  const dir = mkdtempSync(join(tmpdir(), 'trie-store-'));
  dirs.push(dir);
  return { db: new Database(join(dir, 'x.sqlite')), file: join(dir, 'x.sqlite') };
}
const rows = (db: Database.Database) => (db.prepare('SELECT COUNT(*) AS n FROM trie_nodes').get() as { n: number }).n;
const common = createChainCommon(31337n, 'prague');
const alice = new Address(hexToBytes('0x00000000000000000000000000000000000a11ce'));

describe('trie node store', () => {
  it('default: writes are buffered until flushPending and then survive a reopen', () => {
    const { db, file } = openDb();
    const store = createTrieNodeStore({ db });
    store.put('ab', new Uint8Array([1, 2]));
    expect(store.get('ab')).toEqual(new Uint8Array([1, 2]));
    expect(rows(db)).toBe(0);
    db.transaction(() => store.flushPending())();
    expect([store.pendingCount(), rows(db)]).toEqual([0, 1]);
    db.close();
    const again = createTrieNodeStore({ db: new Database(file) });
    expect(again.get('ab')).toEqual(new Uint8Array([1, 2]));
  });

  it('behavior: flushSome writes at most that many buffered nodes, each still readable, and says how many are left', () => {
    const { db } = openDb();
    const store = createTrieNodeStore({ db });
    for (let i = 0; i < 5; i++) store.put(`0${i}`, new Uint8Array([i]));
    expect(store.flushSome(2)).toBe(3);
    expect(rows(db)).toBe(2);
    expect(store.flushSome(2)).toBe(1);
    expect(store.flushSome(2)).toBe(0);
    expect(rows(db)).toBe(5);
    for (let i = 0; i < 5; i++) expect(store.get(`0${i}`)).toEqual(new Uint8Array([i]));
  });

  it('behavior: the in-memory cache never holds more than its byte budget, code-sized entries counted by their size', () => {
    const { db } = openDb();
    const maxBytes = 64 * 1024;
    const store = createTrieNodeStore({ db, cacheBytes: maxBytes });
    // Nodes of the usual size and a few of code's size (24 KiB), written and read back in turns.
    const sizes = Array.from({ length: 400 }, (_, i) => (i % 50 === 7 ? 24 * 1024 : 100 + (i % 5) * 100));
    sizes.forEach((n, i) => {
      store.put(i.toString(16).padStart(4, '0'), new Uint8Array(n).fill(i & 0xff));
      if (i % 10 === 9) {
        db.transaction(() => store.flushPending())();
        expect(store.cacheStats().bytes).toBeLessThanOrEqual(maxBytes);
      }
      if (i > 20) store.get((i - 20).toString(16).padStart(4, '0'));
    });
    db.transaction(() => store.flushPending())();
    const { entries, bytes } = store.cacheStats();
    expect(bytes).toBeLessThanOrEqual(maxBytes);
    expect(entries).toBeGreaterThan(50);
    // Whatever was evicted is still read from SQLite, and then cached again within the budget.
    for (let i = 0; i < sizes.length; i++) expect(store.get(i.toString(16).padStart(4, '0'))!.length).toBe(sizes[i]);
    expect(store.cacheStats().bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('behavior: an entry larger than the whole cache is read from SQLite and not kept', () => {
    const { db } = openDb();
    const store = createTrieNodeStore({ db, cacheBytes: 1024 });
    store.put('aa', new Uint8Array(2048));
    store.put('bb', new Uint8Array(10));
    db.transaction(() => store.flushPending())();
    expect(store.cacheStats().entries).toBe(1);
    expect(store.get('aa')!.length).toBe(2048);
    expect(store.cacheStats().entries).toBe(1);
  });

  it('behavior: discardPending drops buffered writes', () => {
    const { db } = openDb();
    const store = createTrieNodeStore({ db });
    store.put('cd', new Uint8Array([3]));
    store.discardPending();
    expect(store.get('cd')).toBeUndefined();
  });

  it('behavior: an overlay state manager never writes to the store; old roots stay readable', async () => {
    const { db } = openDb();
    const store = createTrieNodeStore({ db });
    const live = await createStateManagerAt({ store, common, root: KECCAK256_RLP, mode: 'persistent' });
    await live.putAccount(alice, new Account(0n, 100n));
    const root1 = await live.getStateRoot();
    db.transaction(() => store.flushPending())();
    await live.putAccount(alice, new Account(0n, 200n));
    const root2 = await live.getStateRoot();
    db.transaction(() => store.flushPending())();
    const before = rows(db);

    const overlay = await createStateManagerAt({ store, common, root: root2, mode: 'overlay' });
    await overlay.putAccount(alice, new Account(0n, 999n));
    await overlay.getStateRoot();
    expect([store.pendingCount(), rows(db)]).toEqual([0, before]);

    const old = await createStateManagerAt({ store, common, root: root1, mode: 'overlay' });
    expect((await old.getAccount(alice))!.balance).toBe(100n);
    const latest = await createStateManagerAt({ store, common, root: root2, mode: 'overlay' });
    expect((await latest.getAccount(alice))!.balance).toBe(200n);
  });

  it('error: opening an unknown root fails', async () => {
    const { db } = openDb();
    const store = createTrieNodeStore({ db });
    await expect(createStateManagerAt({ store, common, root: hexToBytes(`0x${'12'.repeat(32)}`), mode: 'overlay' })).rejects.toThrow(/state root/i);
    expect(bytesToHex(KECCAK256_RLP)).toMatch(/^0x56e8/);
  });
});

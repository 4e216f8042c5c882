// A commit given its state root writes the root's closure and code, and drops the nodes of the
// intermediate roots a block build leaves behind; every value under the committed root must still
// read back from SQLite alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RLP } from '@ethereumjs/rlp';
import { Account, Address, KECCAK256_RLP, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { keccak_256 as keccak256 } from '@noble/hashes/sha3.js';
import { createChainCommon } from '../chain/chainConfig.js';
import { flatHex } from './flatHex.js';
import { reachablePendingKeys } from './reachableNodes.js';
import { createStateManagerAt } from './stateManagerAt.js';
import { createTrieNodeStore } from './trieNodeStore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function openDb(): Database.Database {
  const dir = mkdtempSync(join(tmpdir(), 'reachable-nodes-'));
  dirs.push(dir);
  return new Database(join(dir, 'x.sqlite'));
}
const rows = (db: Database.Database) => (db.prepare('SELECT COUNT(*) AS n FROM trie_nodes').get() as { n: number }).n;
const common = createChainCommon(31337n, 'prague');
const address = (i: number) => new Address(setLengthLeft(new Uint8Array([i]), 20));
const slot = (i: number) => setLengthLeft(new Uint8Array([i]), 32);
const CODE = hexToBytes('0x6001600055');

describe('reachablePendingKeys', () => {
  it('behavior: a commit writes what its root reaches (accounts, storage tries, code) and drops intermediate roots, and every value reads back from SQLite alone', async () => {
    const db = openDb();
    const store = createTrieNodeStore({ db });
    const live = await createStateManagerAt({ store, common, root: KECCAK256_RLP, mode: 'persistent' });
    for (let i = 1; i <= 40; i++) await live.putAccount(address(i), new Account(0n, BigInt(i)));
    await live.putCode(address(1), CODE);
    const genesisRoot = await live.getStateRoot();
    db.transaction(() => store.flushPending(genesisRoot))();
    const genesisRows = rows(db);

    // A "block": several rounds of writes, each hashed into a root of its own, as a block build does.
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i <= 5; i++) await live.putStorage(address(1), slot(i + round), setLengthLeft(new Uint8Array([round + 1]), 32));
      await live.putAccount(address(2 + round), new Account(1n, 1000n + BigInt(round)));
      await live.getStateRoot();
    }
    const root = await live.getStateRoot();
    const buffered = store.pendingCount();
    db.transaction(() => store.flushPending(root))();
    expect(rows(db) - genesisRows).toBeLessThan(buffered);
    expect(rows(db) - genesisRows).toBeGreaterThan(0);

    // A fresh store (empty cache, nothing buffered) over the same file reads every value at `root`.
    const fresh = createTrieNodeStore({ db });
    const reader = await createStateManagerAt({ store: fresh, common, root, mode: 'overlay' });
    for (let i = 1; i <= 40; i++) expect((await reader.getAccount(address(i)))!.balance).toBe(i >= 2 && i <= 5 ? 1000n + BigInt(i - 2) : BigInt(i));
    expect(await reader.getCode(address(1))).toEqual(CODE);
    const storage = await reader.dumpStorage(address(1));
    expect(Object.keys(storage)).toHaveLength(8);
    // Every node under the root is in SQLite: a full walk of the account trie and the storage trie finds no gap.
    const nodes: string[] = [];
    await reader['_trie'].walkAllNodes(async (node) => void nodes.push(bytesToHex(node.serialize())));
    expect(nodes.length).toBeGreaterThan(10);
  });

  it('behavior: without a root every buffered node is written (state loads, rewinds)', async () => {
    const db = openDb();
    const store = createTrieNodeStore({ db });
    const live = await createStateManagerAt({ store, common, root: KECCAK256_RLP, mode: 'persistent' });
    for (let round = 0; round < 3; round++) {
      await live.putAccount(address(1), new Account(0n, BigInt(round)));
      await live.getStateRoot();
    }
    const buffered = store.pendingCount();
    db.transaction(() => store.flushPending())();
    expect(rows(db)).toBe(buffered);
  });

  it('args: keys that are not bare 32-byte hashes are kept, an undecodable node is kept without following it, an orphan beside a branch with an inlined child is dropped', () => {
    const child = RLP.encode([new Uint8Array([0x20]), new Uint8Array(40).fill(7)]);
    const childKey = flatHex(keccak256(child));
    const orphan = RLP.encode([new Uint8Array([0x20]), new Uint8Array(40).fill(9)]);
    // A branch whose first child is an inlined short node and whose second is a hash reference.
    const branch = RLP.encode([[new Uint8Array([0x31]), new Uint8Array([1])], hexToBytes(`0x${childKey}`), ...Array<Uint8Array>(15).fill(new Uint8Array())]);
    const rootKey = flatHex(keccak256(branch));
    const pending = new Map<string, Uint8Array>([
      [rootKey, branch],
      [childKey, child],
      [flatHex(keccak256(orphan)), orphan],
      [`63${'ab'.repeat(32)}`, CODE],
      ['ff'.repeat(32), new Uint8Array([0xf9, 0xff])],
    ]);
    expect([...reachablePendingKeys(pending, rootKey)].sort()).toEqual([rootKey, childKey, `63${'ab'.repeat(32)}`].sort());
    expect(reachablePendingKeys(pending, 'ff'.repeat(32)).has('ff'.repeat(32))).toBe(true);
  });
});

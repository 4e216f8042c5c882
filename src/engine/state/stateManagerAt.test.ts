// Overlay state managers keep SSTOREs in their storage cache until a flush: the state root must
// come out exactly as with ethereumjs's write-through, reads must see the pending values, and
// checkpoints must revert them. Overlays sharing a read cache must read exactly what an uncached
// overlay on the same root reads, whatever other roots and reverted writes went through the cache.
// The live chain's manager flushes each trie's writes in one batch: the same roots as ethereumjs's
// own manager after every kind of write, with every node the root needs in the store.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Account, Address, KECCAK256_RLP, ValueEncoding, bytesToHex, hexToBytes, setLengthLeft, unpadBytes } from '@ethereumjs/util';
import { CacheType, Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createChainCommon } from '../chain/chainConfig.js';
import { CachedStorageStateManager, createStateManagerAt } from './stateManagerAt.js';
import { createStateReadCache, readCacheKey, type StateReadCache } from './stateReadCache.js';
import { createPersistentTrieDb } from './trieDb.js';
import { createTrieNodeStore, type TrieNodeStore } from './trieNodeStore.js';

const common = createChainCommon(31337n, 'prague');
const contracts = [1, 2, 3].map((i) => new Address(setLengthLeft(new Uint8Array([0xc0, i]), 20)));
const slot = (n: number) => setLengthLeft(new Uint8Array([n >> 8, n & 0xff]), 32);
const word = (n: number) => setLengthLeft(new Uint8Array([(n * 7919) >> 8, (n * 7919) & 0xff]), 32);
const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

/** A persisted root with three contracts, two of them holding some storage already. */
async function seededStore() {
  const db = new Database(':memory:');
  dbs.push(db);
  const store = createTrieNodeStore({ db });
  const seed = await createStateManagerAt({ store, common, root: KECCAK256_RLP, mode: 'persistent' });
  for (const a of contracts) await seed.putAccount(a, new Account(1n, 10n ** 18n));
  for (let i = 0; i < 20; i++) await seed.putStorage(contracts[i % 2]!, slot(i), word(i));
  const root = await seed.getStateRoot();
  db.transaction(() => store.flushPending())();
  return { db, store, root };
}

/** A second persisted root on top of `root`: other storage values, a new slot, a richer account. */
async function changedRoot(store: TrieNodeStore, db: Database.Database, root: Uint8Array): Promise<Uint8Array> {
  const sm = await createStateManagerAt({ store, common, root, mode: 'persistent' });
  for (let i = 0; i < 10; i++) await sm.putStorage(contracts[0]!, slot(i), word(1000 + i));
  await sm.putStorage(contracts[2]!, slot(5), word(5));
  await sm.putAccount(contracts[1]!, new Account(2n, 7n));
  const next = await sm.getStateRoot();
  db.transaction(() => store.flushPending())();
  return next;
}

const nobody = new Address(setLengthLeft(new Uint8Array([0xde, 0xad]), 20));

/** Every account (one absent) and slot 0..39 (half of them absent) of `sm`, as hex; `peek` reads with peekAccount/peekStorage. */
async function readAll(sm: MerkleStateManager, peek = false): Promise<string[]> {
  const out: string[] = [];
  const cached = sm as CachedStorageStateManager;
  for (const a of [...contracts, nobody]) {
    const account = await (peek ? cached.peekAccount(a) : sm.getAccount(a));
    out.push(account ? bytesToHex(account.serialize()) : 'absent');
    if (!account) continue;
    for (let i = 0; i < 40; i++) out.push(bytesToHex(await (peek ? cached.peekStorage(a, slot(i)) : sm.getStorage(a, slot(i)))));
  }
  return out;
}

/** A store whose node reads are counted. */
function countingStore(store: TrieNodeStore): { store: TrieNodeStore; gets: () => number } {
  let gets = 0;
  return {
    store: { ...store, get: (key) => (gets++, store.get(key)) },
    gets: () => gets,
  };
}

/** ethereumjs's own manager on `root`, writing through to the store: the reference for roots. */
async function ethereumjsManager(store: TrieNodeStore, root: Uint8Array): Promise<MerkleStateManager> {
  const trie = new MerklePatriciaTrie({ db: createPersistentTrieDb(store), useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common });
  const lru = { type: CacheType.LRU };
  const sm = new MerkleStateManager({ trie, common, caches: new Caches({ account: lru, storage: lru, code: lru }) });
  await sm.setStateRoot(root);
  return sm;
}

const overlayOn = (store: TrieNodeStore, root: Uint8Array, reads?: StateReadCache) => createStateManagerAt({ store, common, root, mode: 'overlay', reads });

/** SSTORE-like writes: new slots, overwrites, zeroing (deletes), across contracts. */
async function writeMix(sm: MerkleStateManager): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const a = contracts[i % 3]!;
    const value = i % 5 === 0 ? new Uint8Array(32) : word(i + 1);
    await sm.putStorage(a, slot(i % 40), value);
  }
}

describe('overlay state manager (cached SSTOREs)', () => {
  it('default: overlays and the live chain use the cached-storage manager', async () => {
    const { store, root } = await seededStore();
    expect(await createStateManagerAt({ store, common, root, mode: 'overlay' })).toBeInstanceOf(CachedStorageStateManager);
    expect(await createStateManagerAt({ store, common, root, mode: 'persistent' })).toBeInstanceOf(CachedStorageStateManager);
  });

  it('behavior: the state root equals the write-through one, and reads see pending writes', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    const reference = await ethereumjsManager(store, root);
    await writeMix(overlay);
    await writeMix(reference);
    for (let i = 0; i < 40; i++) {
      for (const a of contracts) expect(bytesToHex(await overlay.getStorage(a, slot(i)))).toBe(bytesToHex(await reference.getStorage(a, slot(i))));
    }
    const expected = await reference.getStateRoot();
    expect(bytesToHex(await overlay.getStateRoot())).toBe(bytesToHex(expected));
    expect(bytesToHex(expected)).not.toBe(bytesToHex(root));
  });

  it('behavior: a reverted checkpoint drops its writes; a committed one keeps them', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    const before = bytesToHex(await overlay.getStorage(contracts[0]!, slot(0)));
    await overlay.checkpoint();
    await writeMix(overlay);
    await overlay.revert();
    expect(bytesToHex(await overlay.getStorage(contracts[0]!, slot(0)))).toBe(before);
    expect(bytesToHex(await overlay.getStateRoot())).toBe(bytesToHex(root));
    await overlay.checkpoint();
    await overlay.putStorage(contracts[2]!, slot(1), hexToBytes('0x2a'));
    await overlay.commit();
    expect(bytesToHex(await overlay.getStorage(contracts[2]!, slot(1)))).toBe('0x2a');
    expect(bytesToHex(await overlay.getStateRoot())).not.toBe(bytesToHex(root));
  });

  it('error: the same argument checks as ethereumjs', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    await expect(overlay.putStorage(contracts[0]!, new Uint8Array(31), word(1))).rejects.toThrow('Storage key must be 32 bytes long');
    await expect(overlay.putStorage(contracts[0]!, slot(1), new Uint8Array(33))).rejects.toThrow('Storage value cannot be longer than 32 bytes');
    const nobody = new Address(setLengthLeft(new Uint8Array([0xde, 0xad]), 20));
    await expect(overlay.putStorage(nobody, slot(1), word(1))).rejects.toThrow('putStorage() called on non-existing account');
  });
});

describe('overlay state manager (shared read cache)', () => {
  it('default: a second overlay on the same root reads from the cache, not the trie', async () => {
    const { store, root } = await seededStore();
    const reads = createStateReadCache();
    const expected = await readAll(await overlayOn(store, root));
    expect(await readAll(await overlayOn(store, root, reads))).toEqual(expected);
    expect(reads.size()).toBeGreaterThan(40);
    const counted = countingStore(store);
    const second = await overlayOn(counted.store, root, reads);
    const opened = counted.gets();
    expect(await readAll(second)).toEqual(expected);
    expect(counted.gets()).toBe(opened);
  });

  it('behavior: overlays on different roots sharing one cache each read their own root', async () => {
    const { db, store, root } = await seededStore();
    const next = await changedRoot(store, db, root);
    const expectedOld = await readAll(await overlayOn(store, root));
    const expectedNew = await readAll(await overlayOn(store, next));
    expect(expectedNew).not.toEqual(expectedOld);
    const reads = createStateReadCache();
    for (let round = 0; round < 2; round++) {
      expect(await readAll(await overlayOn(store, root, reads))).toEqual(expectedOld);
      expect(await readAll(await overlayOn(store, next, reads))).toEqual(expectedNew);
    }
  });

  it('behavior: writes, reverted checkpoints and flushed roots never leak to another overlay', async () => {
    const { store, root } = await seededStore();
    const expected = await readAll(await overlayOn(store, root));
    const reads = createStateReadCache();
    const writer = await overlayOn(store, root, reads);
    await readAll(writer);
    await writer.checkpoint();
    await writeMix(writer);
    await writer.putAccount(contracts[1]!, new Account(9n, 9n));
    expect(await readAll(writer)).not.toEqual(expected);
    await writer.revert();
    expect(await readAll(await overlayOn(store, root, reads))).toEqual(expected);
    expect(await readAll(writer)).toEqual(expected);

    // A committed outer checkpoint flushes into the overlay's trie: it moves to a new root, read
    // (and cached) under that root, while the original root still reads as before.
    const reference = await ethereumjsManager(store, root);
    await writeMix(reference);
    await writer.checkpoint();
    await writeMix(writer);
    await writer.commit();
    expect(bytesToHex(await writer.getStateRoot())).toBe(bytesToHex(await reference.getStateRoot()));
    const afterFlush = await readAll(reference);
    expect(await readAll(writer)).toEqual(afterFlush);
    expect(await readAll(await overlayOn(store, root, reads))).toEqual(expected);
    expect(await readAll(await overlayOn(store, await writer.getStateRoot(), reads))).toEqual(afterFlush);
  });

  it('behavior: state overrides that replace a whole storage read as empty slots', async () => {
    const { store, root } = await seededStore();
    const reads = createStateReadCache();
    await readAll(await overlayOn(store, root, reads));
    const sm = await overlayOn(store, root, reads);
    await sm.clearStorage(contracts[0]!);
    await sm.putStorage(contracts[0]!, slot(3), word(3));
    expect(bytesToHex(await sm.getStorage(contracts[0]!, slot(2)))).toBe('0x');
    expect(bytesToHex(await sm.getStorage(contracts[0]!, slot(3)))).toBe(bytesToHex(unpadBytes(word(3))));
    expect(bytesToHex(await sm.getStorage(contracts[1]!, slot(1)))).toBe(bytesToHex(unpadBytes(word(1))));
  });

  it('behavior: each read returns a new account: changing one changes nothing until it is put', async () => {
    const { store, root } = await seededStore();
    const reads = createStateReadCache();
    for (const sm of [await overlayOn(store, root, reads), await overlayOn(store, root, reads)]) {
      const first = (await sm.getAccount(contracts[0]!))!;
      expect(first.balance).toBe(10n ** 18n);
      first.balance = 5n;
      first.nonce = 9n;
      const second = (await sm.getAccount(contracts[0]!))!;
      expect([second.nonce, second.balance]).toEqual([1n, 10n ** 18n]);
      expect(second).not.toBe(first);
      second.balance = 7n;
      await sm.putAccount(contracts[0]!, second);
      expect((await sm.getAccount(contracts[0]!))!.balance).toBe(7n);
    }
  });

  it('args: the cache stays within its entry bound and still reads right', async () => {
    const { store, root } = await seededStore();
    const expected = await readAll(await overlayOn(store, root));
    const reads = createStateReadCache({ maxEntries: 10 });
    for (let round = 0; round < 2; round++) expect(await readAll(await overlayOn(store, root, reads))).toEqual(expected);
    expect(reads.size()).toBe(10);
  });

  it('behavior: peek reads answer as get reads (own writes first, flushed roots too) and leave ethereumjs caches empty', async () => {
    const { store, root } = await seededStore();
    const reads = createStateReadCache();
    const fresh = (await overlayOn(store, root, reads)) as CachedStorageStateManager;
    expect(await readAll(fresh, true)).toEqual(await readAll(await overlayOn(store, root)));
    // Nothing peeked entered the manager's own caches: a get reads the shared cache, then fills them.
    const caches = (fresh as unknown as { _caches: { account: { size(): number }; storage: { size(): number } } })._caches;
    expect([caches.account.size(), caches.storage.size()]).toEqual([0, 0]);
    // Pending writes, then a flush to a new root: peeks see what gets see.
    const writer = (await overlayOn(store, root, reads)) as CachedStorageStateManager;
    await writer.checkpoint();
    await writeMix(writer);
    await writer.putAccount(contracts[1]!, new Account(9n, 9n));
    expect(await readAll(writer, true)).toEqual(await readAll(writer));
    await writer.commit();
    await writer.getStateRoot();
    expect(await readAll(writer, true)).toEqual(await readAll(writer));
  });

  it('behavior: peekCode answers as getCode (stored code, own code, an account without code, no account) and enters no cache', async () => {
    const { db, store, root } = await seededStore();
    const seed = await createStateManagerAt({ store, common, root, mode: 'persistent' });
    const code = hexToBytes('0x6001600055');
    await seed.putCode(contracts[2]!, code);
    const withCode = await seed.getStateRoot();
    db.transaction(() => store.flushPending())();
    const reads = createStateReadCache();
    const peeker = (await overlayOn(store, withCode, reads)) as CachedStorageStateManager;
    const getter = await overlayOn(store, withCode, reads);
    expect(peeker.pureReads).toBe(true);
    for (const a of [...contracts, nobody]) expect(bytesToHex(await peeker.peekCode(a))).toBe(bytesToHex(await getter.getCode(a)));
    expect(bytesToHex(await peeker.peekCode(contracts[2]!))).toBe(bytesToHex(code));
    // Read once per code hash: a second manager's second peek reads no node or code from the store.
    const counted = countingStore(store);
    const again = (await overlayOn(counted.store, withCode, reads)) as CachedStorageStateManager;
    expect(bytesToHex(await again.peekCode(contracts[2]!))).toBe(bytesToHex(code));
    const before = counted.gets();
    expect(bytesToHex(await again.peekCode(contracts[2]!))).toBe(bytesToHex(code));
    expect(counted.gets()).toBe(before);
    const caches = (peeker as unknown as { _caches: { account: { size(): number }; code: { size(): number } } })._caches;
    expect([caches.account.size(), caches.code.size()]).toEqual([0, 0]);
    // This manager's own code comes first, as getCode's does.
    const own = hexToBytes('0x60ff');
    await peeker.checkpoint();
    await peeker.putCode(contracts[0]!, own);
    expect(bytesToHex(await peeker.peekCode(contracts[0]!))).toBe(bytesToHex(own));
    await peeker.revert();
    expect(bytesToHex(await peeker.peekCode(contracts[0]!))).toBe('0x');
  });

  it('behavior: slots and code read with a known account skip reading it again, and read it again once it may have changed', async () => {
    const { db, store, root } = await seededStore();
    const next = await changedRoot(store, db, root);
    const reads = createStateReadCache();
    const peeker = (await overlayOn(store, root, reads)) as CachedStorageStateManager;
    let accountReads = 0;
    const peekAccount = peeker.peekAccount.bind(peeker);
    peeker.peekAccount = (address) => (accountReads++, peekAccount(address));
    const known = await peeker.peekKnown(contracts[0]!);
    expect(accountReads).toBe(1);
    const reference = await overlayOn(store, root, reads);
    for (let i = 0; i < 12; i++) expect(bytesToHex(await peeker.peekStorage(contracts[0]!, slot(i), known))).toBe(bytesToHex(await reference.getStorage(contracts[0]!, slot(i))));
    expect(bytesToHex(await peeker.peekCode(contracts[0]!, known))).toBe(bytesToHex(await reference.getCode(contracts[0]!)));
    expect(accountReads).toBe(1);
    // An account of the manager's own (a write): the known one may be stale, so it is read again.
    await peeker.checkpoint();
    await peeker.putAccount(contracts[2]!, new Account(3n, 3n));
    expect(bytesToHex(await peeker.peekStorage(contracts[0]!, slot(1), known))).toBe(bytesToHex(await reference.getStorage(contracts[0]!, slot(1))));
    expect(accountReads).toBe(2);
    await peeker.revert();
    // Moved to another root: read again, and the answer is the new root's.
    await peeker.repoint(next);
    const atNext = await overlayOn(store, next, reads);
    expect(bytesToHex(await peeker.peekStorage(contracts[0]!, slot(1), known))).toBe(bytesToHex(await atNext.getStorage(contracts[0]!, slot(1))));
    expect(await atNext.getStorage(contracts[0]!, slot(1))).not.toEqual(await reference.getStorage(contracts[0]!, slot(1)));
    expect(accountReads).toBe(3);
  });

  it('default: reads are pure only with the shared read cache', async () => {
    const { store, root } = await seededStore();
    expect(((await overlayOn(store, root, createStateReadCache())) as CachedStorageStateManager).pureReads).toBe(true);
    expect(((await overlayOn(store, root)) as CachedStorageStateManager).pureReads).toBe(false);
  });

  it('error: a read through a missing trie node answers as ethereumjs does and is not remembered', async () => {
    const { db, store, root } = await seededStore();
    const storageRoot = (await (await overlayOn(store, root)).getAccount(contracts[0]!))!.storageRoot;
    db.prepare('DELETE FROM trie_nodes WHERE key = ?').run(Buffer.from(storageRoot));
    const fresh = createTrieNodeStore({ db });
    const reads = createStateReadCache();
    const plain = await overlayOn(fresh, root);
    const cached = await overlayOn(fresh, root, reads);
    expect(bytesToHex(await cached.getStorage(contracts[0]!, slot(1)))).toBe(bytesToHex(await plain.getStorage(contracts[0]!, slot(1))));
    expect(reads.get(readCacheKey(storageRoot), readCacheKey(slot(1)))).toBeUndefined();
    // The same read through an intact store is remembered under those keys.
    const intact = createStateReadCache();
    await (await overlayOn(store, root, intact)).getStorage(contracts[0]!, slot(1));
    expect(intact.get(readCacheKey(storageRoot), readCacheKey(slot(1)))).not.toBeUndefined();
  });
});

describe('live chain state manager (batched flushes)', () => {
  /** The same changes on both managers: accounts, storage, code, a deletion, a cleared storage, checkpoints. */
  async function changeBoth(sms: MerkleStateManager[], round: number): Promise<void> {
    for (const sm of sms) {
      await writeMix(sm);
      const fresh = new Address(setLengthLeft(new Uint8Array([0xf0, round]), 20));
      await sm.putAccount(fresh, new Account(0n, BigInt(round + 1)));
      await sm.putCode(fresh, hexToBytes(`0x6000600055${round.toString(16).padStart(2, '0')}`));
      await sm.putStorage(fresh, slot(1), word(round + 3));
      await sm.checkpoint();
      await sm.putStorage(contracts[1]!, slot(7), word(999));
      await sm.putAccount(contracts[2]!, new Account(5n, 5n));
      await sm.revert();
      await sm.checkpoint();
      await sm.putStorage(contracts[2]!, slot(round), new Uint8Array(32));
      await sm.modifyAccountFields(contracts[0]!, { balance: BigInt(round) });
      await sm.commit();
      if (round === 1) await sm.clearStorage(contracts[1]!);
      if (round === 2) await sm.deleteAccount(new Address(setLengthLeft(new Uint8Array([0xf0, 0]), 20)));
    }
  }

  it('behavior: roots equal ethereumjs manager after each flush of every kind of write, and the new nodes are stored', async () => {
    const { db, store, root } = await seededStore();
    const batched = await createStateManagerAt({ store, common, root, mode: 'persistent' });
    const reference = await ethereumjsManager(createTrieNodeStore({ db }), root);
    let last = root;
    for (let round = 0; round < 4; round++) {
      await changeBoth([batched, reference], round);
      const expected = await reference.getStateRoot();
      const got = await batched.getStateRoot();
      expect(bytesToHex(got)).toBe(bytesToHex(expected));
      expect(bytesToHex(got)).not.toBe(bytesToHex(last));
      last = got;
    }
    // Every node and code the root needs is in the store: a manager opened on it afresh reads what ethereumjs's reads.
    db.transaction(() => store.flushPending(last))();
    const reopened = await createStateManagerAt({ store: createTrieNodeStore({ db }), common, root: last, mode: 'overlay' });
    expect(await readAll(reopened)).toEqual(await readAll(reference));
    const deployed = new Address(setLengthLeft(new Uint8Array([0xf0, 3]), 20));
    expect(bytesToHex(await reopened.getCode(deployed))).toBe('0x600060005503');
  });

  it('args: past its bound, a manager empties its caches once all is flushed, and reads and roots stay right', async () => {
    const { db, store, root } = await seededStore();
    const trie = new MerklePatriciaTrie({ db: createPersistentTrieDb(store), useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common });
    trie.root(root);
    const bounded = new CachedStorageStateManager({
      trie,
      common,
      caches: new Caches({ account: { type: CacheType.ORDERED_MAP }, storage: { type: CacheType.ORDERED_MAP }, code: { type: CacheType.ORDERED_MAP } }),
      reads: createStateReadCache(),
      nodes: (k) => store.get(k),
      putNode: (k, v) => store.put(k, v),
      maxCleanCacheEntries: 10,
    });
    const reference = await ethereumjsManager(createTrieNodeStore({ db }), root);
    const caches = (bounded as unknown as { _caches: { account: { size(): number }; storage: { size(): number } } })._caches;
    for (const sm of [bounded, reference]) {
      await sm.checkpoint();
      await writeMix(sm);
      await sm.commit();
    }
    // The commit flushed at depth 0: 3 accounts and their 40-odd slots are past the bound of 10.
    expect(caches.account.size() + caches.storage.size()).toBe(0);
    expect(bytesToHex(await bounded.getStateRoot())).toBe(bytesToHex(await reference.getStateRoot()));
    expect(await readAll(bounded)).toEqual(await readAll(reference));
  });

  it('behavior: a flush with nothing changed keeps the root and writes no node', async () => {
    const { store, root } = await seededStore();
    const batched = await createStateManagerAt({ store, common, root, mode: 'persistent' });
    await readAll(batched);
    for (const a of contracts) await batched.putStorage(a, slot(0), await batched.getStorage(a, slot(0)));
    expect(bytesToHex(await batched.getStateRoot())).toBe(bytesToHex(root));
    expect(store.pendingCount()).toBe(0);
  });
});

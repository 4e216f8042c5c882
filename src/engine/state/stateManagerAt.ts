// Opens a Merkle state manager at a given state root over the chain's trie node store, either
// writing through to the store (the live chain) or into a throw-away overlay (isolated VMs) that
// may share a process-wide cache of trie reads (stateReadCache.ts).
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, CacheType, Caches, MerkleStateManager, type MerkleStateManagerOpts, type StorageCache } from '@ethereumjs/statemanager';
import {
  Account,
  type Address,
  EthereumJSErrorWithoutCode,
  KECCAK256_RLP,
  ValueEncoding,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  equalsBytes,
  unpadBytes,
  unprefixedHexToBytes,
} from '@ethereumjs/util';
import { keccak256 } from '../interpreter/keccak.js';
import { attachRemoteState, guardStorageTrie, withRemoteNodes } from './remoteStateHooks.js';
import type { RemoteTrieNodes } from './remoteTrieNodes.js';
import { type StateReadCache, createStateReadCache, readCacheKey } from './stateReadCache.js';
import { createOverlayTrieDb, createPersistentTrieDb } from './trieDb.js';
import { type NodeGetter, lookupTrieValue } from './trieLookup.js';
import { type TrieWrite, updateTrie } from './trieUpdate.js';
import type { TrieNodeStore } from './trieNodeStore.js';

export interface StateManagerAtOptions {
  store: TrieNodeStore;
  common: Common;
  /** State root to open; must be present in the store (or the empty root). */
  root: Uint8Array;
  /** `persistent` writes into the store's pending buffer; `overlay` keeps writes in memory. */
  mode: 'persistent' | 'overlay';
  /** Overlays only: trie reads shared with other overlays (any root; entries are keyed by root). */
  reads?: StateReadCache;
  /** Fork mode: nodes and code the store lacks are loaded from the remote (remoteStateHooks.ts). */
  remote?: RemoteTrieNodes;
}

const ABSENT_STORAGE = new Uint8Array([0x80]);
/** Trie reads the live chain's manager keeps by root, besides its own caches (emptied at their bound). */
const PERSISTENT_READ_CACHE_BYTES = 4 * 1024 * 1024;
/** Storage-root tries an overlay keeps for reads (one per contract and root it read). */
const MAX_STORAGE_READERS = 256;
/**
 * Accounts and slots a long-lived manager with batched flushes (the miner's) keeps in its caches
 * once everything is flushed; past it they are emptied (its plain maps never evict by themselves).
 */
const MAX_CLEAN_CACHE_ENTRIES = 50_000;

/** An account read by `peekKnown` (undefined: absent) at a trie root, handed back to skip reading it again. */
export interface KnownAccount {
  account: Account | undefined;
  root: Uint8Array;
}

/**
 * A state manager whose SSTOREs stay in the storage cache until a flush, like its account writes.
 * @ethereumjs/statemanager 10.1.3 means to do that too (`cache.put(...) ?? writeToTrie(...)`), but
 * `put` returns undefined, so every SSTORE also rewrites (and re-hashes) the storage trie path at
 * once. Deferring is only safe for caches that never evict unflushed entries: plain maps (the
 * overlays' and the live chain's), not an LRU (fork mode's persistent manager, ethereumjs's own).
 * The state root after a flush is unchanged (tested).
 *
 * With `reads`, a miss in its own caches asks the shared read cache under the root the value would
 * be read from (the account trie's current root; the account's storage root) before walking the
 * trie, and fills it after. With `nodes` (a synchronous node getter: not in fork mode, whose nodes
 * may have to come from the remote), the walk is trieLookup.ts's, not @ethereumjs/mpt's. Its own
 * caches are emptied by every revert (ethereumjs records reads as cache writes), so without it
 * every pooled trace walks, decodes and hashes the same paths again.
 *
 * With `putNode` too (the live chain's manager), a flush applies the cached writes as one
 * synchronous batch per trie (trieUpdate.ts: each changed node encoded and hashed once, new nodes
 * handed to `putNode`) instead of ethereumjs's `put` per key, each an asynchronous walk that
 * re-hashes its whole path.
 */
export class CachedStorageStateManager extends MerkleStateManager {
  private readonly reads: StateReadCache | undefined;
  private readonly remote: RemoteTrieNodes | undefined;
  private readonly nodes: NodeGetter | undefined;
  private readonly putNode: ((keyHex: string, bytes: Uint8Array) => void) | undefined;
  private readonly maxCleanCacheEntries: number;
  private rootBytes: Uint8Array | undefined;
  private rootKey = '';
  private lastStorageRoot: Uint8Array | undefined;
  private lastStorageRootKey = '';
  private readonly storageReaders = new Map<string, MerklePatriciaTrie>();
  private readonly decodedAccounts = new WeakMap<Uint8Array, Account>();
  /** Code read by peekCode, by the code hash array of the decoded account it was read for (shared by its copies). */
  private readonly codeByHash = new WeakMap<Uint8Array, Uint8Array>();

  /**
   * Checkpoints taken since this manager was made. A pooled VM's borrower that took none wrote
   * nothing (readVmPool.ts counts only the borrows that did towards a VM's retirement).
   */
  checkpointsTaken = 0;

  constructor(
    opts: MerkleStateManagerOpts & {
      caches: Caches;
      reads?: StateReadCache;
      remote?: RemoteTrieNodes;
      nodes?: NodeGetter;
      putNode?: (keyHex: string, bytes: Uint8Array) => void;
      /** With `putNode`: cached accounts and slots kept once all is flushed (default {@link MAX_CLEAN_CACHE_ENTRIES}). */
      maxCleanCacheEntries?: number;
    },
  ) {
    super(opts);
    this.reads = opts.reads;
    this.remote = opts.remote;
    this.nodes = opts.remote ? undefined : opts.nodes;
    this.putNode = this.nodes && opts.putNode;
    this.maxCleanCacheEntries = opts.maxCleanCacheEntries ?? MAX_CLEAN_CACHE_ENTRIES;
  }

  /**
   * Writes the cached changes into the tries, as ethereumjs's flush (code, then storage, then
   * accounts) but, with `putNode`, each trie's writes in one batch.
   */
  override async flush(): Promise<void> {
    const { nodes, putNode } = this;
    if (nodes === undefined || putNode === undefined) return super.flush();
    const caches = this._caches!;
    for (const [addressHex, elem] of caches.code!.flush()) {
      if (elem.code === undefined) continue;
      const codeHash = keccak256(elem.code);
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, elem.code);
      const address = createAddressFromString(`0x${addressHex}`);
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
    const slotsByAccount = new Map<string, TrieWrite[]>();
    for (const [addressHex, keyHex, value] of caches.storage!.flush()) {
      let writes = slotsByAccount.get(addressHex);
      if (writes === undefined) slotsByAccount.set(addressHex, (writes = []));
      // The cache holds each value RLP-encoded; an empty one (0x80) or a cleared slot deletes the key.
      const decoded = RLP.decode(value ?? new Uint8Array(0)) as Uint8Array;
      writes.push([unprefixedHexToBytes(keyHex), decoded.length > 0 ? value! : null]);
    }
    for (const [addressHex, writes] of slotsByAccount) {
      const address = createAddressFromString(`0x${addressHex}`);
      const account = await this.getAccount(address);
      // As ethereumjs: the storage of an account that no longer exists is not written.
      if (account === undefined) continue;
      const storageRoot = updateTrie(nodes, account.storageRoot, writes, putNode);
      if (storageRoot === account.storageRoot) continue;
      account.storageRoot = storageRoot;
      await this.putAccount(address, account);
    }
    const accounts = caches.account!.flush();
    if (accounts.length > 0) {
      const writes = accounts.map(([addressHex, elem]): TrieWrite => [unprefixedHexToBytes(addressHex), elem.accountRLP ?? null]);
      this._trie.root(updateTrie(nodes, this._trie.root(), writes, putNode));
    }
    // ethereumjs's own storage tries (proofs, dumps) were opened on the roots before this flush.
    if (slotsByAccount.size > 0) this._storageTries = {};
    if (this._checkpointCount === 0 && caches.account!.size() + cachedSlots(caches.storage!) > this.maxCleanCacheEntries) this.clearCaches();
  }

  /** The read cache's key of the account trie's root, made once per root object. */
  private accountRootKey(root: Uint8Array): string {
    if (root !== this.rootBytes) {
      this.rootBytes = root;
      this.rootKey = readCacheKey(root);
    }
    return this.rootKey;
  }

  /** The read cache's key of a storage root, made once for the last root object asked about. */
  private storageRootKey(root: Uint8Array): string {
    if (root !== this.lastStorageRoot) {
      this.lastStorageRoot = root;
      this.lastStorageRootKey = readCacheKey(root);
    }
    return this.lastStorageRootKey;
  }

  /**
   * A read-only trie on a storage root, kept across reverts (which drop ethereumjs's own storage
   * tries, whose copies cost a keccak each). The account's storage root is the one ethereumjs
   * reads at too: it rebuilds its storage tries from it after every revert and keeps the two in
   * step on every write. Never written to, so its root never moves.
   */
  private storageReader(rootKey: string, root: Uint8Array, address: Address): MerklePatriciaTrie {
    // In fork mode one storage root may belong to several accounts: a proof is per account.
    const key = this.remote ? `${rootKey}_${address.toString()}` : rootKey;
    let trie = this.storageReaders.get(key);
    if (trie === undefined) {
      if (this.storageReaders.size >= MAX_STORAGE_READERS) this.storageReaders.clear();
      trie = this._trie.shallowCopy(false);
      trie.root(root);
      if (this.remote) guardStorageTrie(trie, address.bytes, this.remote);
      this.storageReaders.set(key, trie);
    }
    return trie;
  }

  /** The value under `key` at `root` read with `nodes`, remembered under the root. */
  private readSync(nodes: NodeGetter, root: Uint8Array, rootKey: string, readKey: string, key: Uint8Array): Uint8Array | null {
    if (equalsBytes(root, KECCAK256_RLP)) return null;
    const found = lookupTrieValue(nodes, root, key);
    // As ethereumjs does (below): a path through a missing node reads as absent, uncached.
    if (found === 'missing') return null;
    this.reads!.set(rootKey, readKey, found);
    return found;
  }

  /** `trie.get(key)`, remembered under the trie's root when the read can be trusted. */
  private async readThrough(trie: MerklePatriciaTrie, rootKey: string, readKey: string, key: Uint8Array): Promise<Uint8Array | null> {
    const root = trie.root();
    if (equalsBytes(root, KECCAK256_RLP)) return null;
    let value: Uint8Array | null;
    try {
      value = await trie.get(key, true);
    } catch (error) {
      // ethereumjs reads a path through a missing node as an absent key: so do we, uncached.
      if (error instanceof Error && error.message === 'Missing node in DB') return null;
      throw error;
    }
    // Only a read that started and ended on the same root is that root's value.
    if (trie.root() === root) this.reads!.set(rootKey, readKey, value);
    return value;
  }

  /**
   * A new Account equal to `rlp` decoded, as ethereumjs returns on every read (callers modify what
   * they get). The decoding is done once per RLP value this manager sees; the copies share its
   * byte arrays, as decoded accounts share the RLP buffer.
   */
  private accountFromRLP(rlp: Uint8Array): Account {
    let decoded = this.decodedAccounts.get(rlp);
    if (decoded === undefined) {
      decoded = createAccountFromRLP(rlp);
      this.decodedAccounts.set(rlp, decoded);
    }
    return new Account(decoded.nonce, decoded.balance, decoded.storageRoot, decoded.codeHash);
  }

  /** The account's RLP at the account trie's current root (null: absent): the shared read cache, then the trie. */
  private async baseAccountRLP(address: Address): Promise<Uint8Array | null> {
    const root = this._trie.root();
    const rootKey = this.accountRootKey(root);
    const readKey = readCacheKey(address.bytes);
    const rlp = this.reads!.get(rootKey, readKey);
    if (rlp !== undefined) return rlp;
    return this.nodes ? this.readSync(this.nodes, root, rootKey, readKey, address.bytes) : this.readThrough(this._trie, rootKey, readKey, address.bytes);
  }

  /** The RLP of `key`'s value under `account`'s storage root (null: absent), read as baseAccountRLP reads. */
  private async baseStorageRLP(address: Address, account: Account, key: Uint8Array): Promise<Uint8Array | null> {
    const readKey = readCacheKey(key);
    const rootKey = this.storageRootKey(account.storageRoot);
    const value = this.reads!.get(rootKey, readKey);
    if (value !== undefined) return value;
    return this.nodes
      ? this.readSync(this.nodes, account.storageRoot, rootKey, readKey, key)
      : this.readThrough(this.storageReader(rootKey, account.storageRoot, address), rootKey, readKey, key);
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    if (this.reads === undefined) return super.getAccount(address);
    const cache = this._caches!.account!;
    const elem = cache.get(address);
    if (elem !== undefined) return elem.accountRLP !== undefined ? this.accountFromRLP(elem.accountRLP) : undefined;
    const rlp = await this.baseAccountRLP(address);
    if (rlp === null) {
      cache.put(address, undefined);
      return undefined;
    }
    // The cache stores what `serialize()` returns (the account as read is `rlp` itself), so it is
    // handed the bytes instead of re-encoding them; AccountCache.put (10.1.3) calls nothing else.
    cache.put(address, { serialize: () => rlp } as Account);
    return this.accountFromRLP(rlp);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (this.reads === undefined) return super.getStorage(address, key);
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    const cache = this._caches!.storage!;
    const cached = cache.get(address, key);
    if (cached !== undefined) return RLP.decode(cached ?? new Uint8Array(0)) as Uint8Array;
    const account = await this.getAccount(address);
    if (!account) return new Uint8Array();
    const value = await this.baseStorageRLP(address, account, key);
    cache.put(address, key, value ?? ABSENT_STORAGE);
    return RLP.decode(value ?? new Uint8Array(0)) as Uint8Array;
  }

  /**
   * `getAccount` for a reader that keeps what it reads (the interpreter's base state): the same
   * answer, this manager's own writes first, but a read from the trie is not put in ethereumjs's
   * caches (their ordered maps and pre-state bookkeeping cost more than the read).
   */
  async peekAccount(address: Address): Promise<Account | undefined> {
    if (this.reads === undefined) return this.getAccount(address);
    // An empty cache holds no own write: skip its lookup (which builds a hex key a character at a time).
    const own = this._caches!.account!;
    const elem = own.size() > 0 ? own.get(address) : undefined;
    if (elem !== undefined) return elem.accountRLP !== undefined ? this.accountFromRLP(elem.accountRLP) : undefined;
    const rlp = await this.baseAccountRLP(address);
    return rlp === null ? undefined : this.accountFromRLP(rlp);
  }

  /** `getStorage` as {@link peekAccount} reads: nothing read from the trie enters ethereumjs's caches. */
  async peekStorage(address: Address, key: Uint8Array, known?: KnownAccount): Promise<Uint8Array> {
    if (this.reads === undefined) return this.getStorage(address, key);
    const own = this._caches!.storage!;
    const cached = own.size() > 0 ? own.get(address, key) : undefined;
    if (cached !== undefined) return RLP.decode(cached ?? new Uint8Array(0)) as Uint8Array;
    const account = this.stillKnown(known) ? known.account : await this.peekAccount(address);
    if (!account) return new Uint8Array();
    return RLP.decode((await this.baseStorageRLP(address, account, key)) ?? new Uint8Array(0)) as Uint8Array;
  }

  /**
   * `getCode` as {@link peekAccount} reads: this manager's own code first, else the code under the
   * account's code hash, which enters no cache. In fork mode, where code may have to come from the
   * remote, it is `getCode` itself.
   */
  async peekCode(address: Address, known?: KnownAccount): Promise<Uint8Array> {
    if (!this.pureReads) return this.getCode(address);
    const own = this._caches!.code!;
    const elem = own.size() > 0 ? own.get(address) : undefined;
    if (elem !== undefined) return elem.code ?? new Uint8Array(0);
    const account = this.stillKnown(known) ? known.account : await this.peekAccount(address);
    if (!account?.isContract()) return new Uint8Array(0);
    // Code is content-addressed: what was read under this hash once is the answer for good.
    const byHash = this.codeByHash.get(account.codeHash);
    if (byHash !== undefined) return byHash;
    const key = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, account.codeHash) : account.codeHash;
    const code = (await this._trie.database().get(key)) ?? new Uint8Array(0);
    if (code.length > 0) this.codeByHash.set(account.codeHash, code);
    return code;
  }

  /** `peekAccount`, with the root it was read at, for `peekStorage` and `peekCode` to take back. */
  async peekKnown(address: Address): Promise<KnownAccount> {
    const root = this._trie.root();
    return { account: await this.peekAccount(address), root };
  }

  /**
   * Whether `known` is still what `peekAccount` would return: the trie is at the same root and this
   * manager holds no account of its own (none was written since).
   */
  private stillKnown(known: KnownAccount | undefined): known is KnownAccount {
    return known !== undefined && known.root === this._trie.root() && this._caches!.account!.size() === 0;
  }

  /**
   * `peekAccount`, `peekStorage` and `peekCode` leave nothing in this manager (its caches, tries and
   * checkpoint diffs): true for a manager with a read cache (an overlay with the shared one, the
   * live chain's with its own), outside fork mode. A borrower that only peeks then needs no
   * checkpoint around its run.
   */
  get pureReads(): boolean {
    return this.reads !== undefined && this.remote === undefined;
  }

  /**
   * Moves this overlay to `root` with fresh caches. Unlike `setStateRoot`, nothing is flushed into
   * the old root first: ethereumjs's `clearCaches` keeps the checkpoint diffs, which list every slot
   * read outside a checkpoint, and flushing those after a clear throws.
   */
  async repoint(root: Uint8Array): Promise<void> {
    if (!equalsBytes(root, KECCAK256_RLP) && !(await this._trie.checkRoot(root))) {
      throw EthereumJSErrorWithoutCode('State trie does not contain state root');
    }
    this._caches = overlayCaches();
    this._storageTries = {};
    this.originalStorageCache.clear();
    this._trie.root(root);
  }

  override async checkpoint(): Promise<void> {
    this.checkpointsTaken++;
    return super.checkpoint();
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes');
    if (!(await this.getAccount(address))) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account');
    this._caches!.storage!.put(address, key, RLP.encode(unpadBytes(value)));
  }
}

/** Slots a plain-map storage cache holds, across its accounts (its `size()` counts the accounts). */
function cachedSlots(storage: StorageCache): number {
  let slots = 0;
  storage._orderedMapCache?.forEach(([, slotsOf]) => {
    slots += slotsOf.size;
  });
  return slots;
}

/** The plain-map caches of an overlay (never evicted: unflushed writes live there). */
function overlayCaches(): Caches {
  const type = CacheType.ORDERED_MAP;
  return new Caches({ account: { type }, storage: { type }, code: { type } });
}

/** A state manager on `root`. Throws if the root is unknown. */
export async function createStateManagerAt(options: StateManagerAtOptions): Promise<MerkleStateManager> {
  const store = options.remote ? withRemoteNodes(options.store, options.remote) : options.store;
  const overlay = options.mode === 'overlay' ? createOverlayTrieDb(store) : undefined;
  const db = overlay ?? createPersistentTrieDb(store);
  const trie = new MerklePatriciaTrie({
    db,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common: options.common,
  });
  // Account/storage/code caches spare repeated trie walks: LRU-bounded for the long-lived
  // persistent manager, plain maps for short-lived overlays.
  const lru = { type: CacheType.LRU };
  // The live chain's manager writes in batches (plain-map caches, so nothing unflushed is evicted);
  // in fork mode, whose nodes may have to come from the remote, it keeps ethereumjs's walks.
  const stateManager =
    options.mode === 'persistent'
      ? options.remote
        ? new MerkleStateManager({ trie, common: options.common, caches: new Caches({ account: lru, storage: lru, code: lru }) })
        : new CachedStorageStateManager({
            trie,
            common: options.common,
            caches: overlayCaches(),
            reads: createStateReadCache({ maxBytes: PERSISTENT_READ_CACHE_BYTES }),
            nodes: (keyHex) => options.store.get(keyHex),
            putNode: (keyHex, bytes) => options.store.put(keyHex, bytes),
          })
      : new CachedStorageStateManager({ trie, common: options.common, caches: overlayCaches(), reads: options.reads, remote: options.remote, nodes: overlay!.getSync });
  if (options.remote) attachRemoteState(stateManager, options.remote);
  await stateManager.setStateRoot(options.root);
  return stateManager;
}

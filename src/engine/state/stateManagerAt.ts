// Opens a Merkle state manager at a given state root over the chain's trie node store, either
// writing through to the store (the live chain) or into a throw-away overlay (isolated VMs).
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CacheType, Caches, MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import { type Address, EthereumJSErrorWithoutCode, ValueEncoding, unpadBytes } from '@ethereumjs/util';
import { createOverlayTrieDb, createPersistentTrieDb } from './trieDb.js';
import type { TrieNodeStore } from './trieNodeStore.js';

export interface StateManagerAtOptions {
  store: TrieNodeStore;
  common: Common;
  /** State root to open; must be present in the store (or the empty root). */
  root: Uint8Array;
  /** `persistent` writes into the store's pending buffer; `overlay` keeps writes in memory. */
  mode: 'persistent' | 'overlay';
}

/**
 * A state manager whose SSTOREs stay in the storage cache until a flush, like its account writes.
 * @ethereumjs/statemanager 10.1.3 means to do that too (`cache.put(...) ?? writeToTrie(...)`), but
 * `put` returns undefined, so every SSTORE also rewrites (and re-hashes) the storage trie path at
 * once. Deferring is only safe for caches that never evict unflushed entries: the overlay's plain
 * maps, not the persistent manager's LRU. The state root after a flush is unchanged (tested).
 */
export class CachedStorageStateManager extends MerkleStateManager {
  constructor(opts: MerkleStateManagerOpts & { caches: Caches }) {
    super(opts);
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes');
    if (!(await this.getAccount(address))) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account');
    this._caches!.storage!.put(address, key, RLP.encode(unpadBytes(value)));
  }
}

/** A state manager on `root`. Throws if the root is unknown. */
export async function createStateManagerAt(options: StateManagerAtOptions): Promise<MerkleStateManager> {
  const db = options.mode === 'persistent' ? createPersistentTrieDb(options.store) : createOverlayTrieDb(options.store);
  const trie = new MerklePatriciaTrie({
    db,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common: options.common,
  });
  // Account/storage/code caches spare repeated trie walks: LRU-bounded for the long-lived
  // persistent manager, plain maps for short-lived overlays.
  const type = options.mode === 'persistent' ? CacheType.LRU : CacheType.ORDERED_MAP;
  const caches = new Caches({ account: { type }, storage: { type }, code: { type } });
  const stateManager =
    options.mode === 'persistent'
      ? new MerkleStateManager({ trie, common: options.common, caches })
      : new CachedStorageStateManager({ trie, common: options.common, caches });
  await stateManager.setStateRoot(options.root);
  return stateManager;
}

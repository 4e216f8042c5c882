// Opens a Merkle state manager at a given state root over the chain's trie node store, either
// writing through to the store (the live chain) or into a throw-away overlay (isolated VMs).
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { CacheType, Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
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
  const stateManager = new MerkleStateManager({ trie, common: options.common, caches });
  await stateManager.setStateRoot(options.root);
  return stateManager;
}

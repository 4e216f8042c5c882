// Adapters from a TrieNodeStore to the `DB` interface @ethereumjs/mpt expects: a persistent one for
// the live chain and a copy-on-write overlay for isolated VMs (eth_call, tracing) whose writes stay
// in memory. Deletes are ignored on purpose: nodes are content-addressed and shared between roots.
import { type BatchDBOp, type DB, unprefixedHexToBytes } from '@ethereumjs/util';
import type { TrieNodeStore } from './trieNodeStore.js';

type TrieDb = DB<string, string | Uint8Array>;

function valueToBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? unprefixedHexToBytes(value) : value;
}

/** Writes go to the store's pending buffer and reach SQLite when the chain flushes it. */
export function createPersistentTrieDb(store: TrieNodeStore): TrieDb {
  const db: TrieDb = {
    async get(key) {
      return store.get(key);
    },
    async put(key, value) {
      store.put(key, valueToBytes(value));
    },
    async del() {},
    async batch(ops: BatchDBOp<string, string | Uint8Array>[]) {
      for (const op of ops) if (op.type === 'put') store.put(op.key, valueToBytes(op.value));
    },
    shallowCopy() {
      return db;
    },
    async open() {},
  };
  return db;
}

/** An overlay's DB, with its reads also as a synchronous call (trieLookup.ts walks with it). */
export type OverlayTrieDb = TrieDb & { getSync(keyHex: string): Uint8Array | undefined };

/** Reads fall through to the store; writes stay in this overlay and vanish with it. */
export function createOverlayTrieDb(store: TrieNodeStore): OverlayTrieDb {
  const local = new Map<string, Uint8Array>();
  const db: OverlayTrieDb = {
    getSync: (key) => local.get(key) ?? store.get(key),
    async get(key) {
      return db.getSync(key);
    },
    async put(key, value) {
      local.set(key, valueToBytes(value));
    },
    async del() {},
    async batch(ops: BatchDBOp<string, string | Uint8Array>[]) {
      for (const op of ops) if (op.type === 'put') local.set(op.key, valueToBytes(op.value));
    },
    shallowCopy() {
      return db;
    },
    async open() {},
  };
  return db;
}

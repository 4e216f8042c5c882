// The synchronous batched trie update against @ethereumjs/mpt's put and del on the same tries in a
// real node store: roots equal after random inserts, updates and deletes (batches of every size, the
// trie emptied), nodes under 32 bytes embedded as ethereumjs embeds them, every key readable from
// the new root through the store, writes that change nothing store nothing, and a missing node named.
import Database from 'better-sqlite3';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { KECCAK256_RLP, equalsBytes } from '@ethereumjs/util';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../interpreter/keccak.js';
import { flatHex } from './flatHex.js';
import { createPersistentTrieDb } from './trieDb.js';
import { lookupTriePath, lookupTrieValue } from './trieLookup.js';
import { createTrieNodeStore } from './trieNodeStore.js';
import { MissingTrieNodeError, type TrieWrite, updateTrie } from './trieUpdate.js';

function trieOverStore(useKeyHashing: boolean) {
  const store = createTrieNodeStore({ db: new Database(':memory:') });
  const trie = new MerklePatriciaTrie({ db: createPersistentTrieDb(store), useKeyHashing, useKeyHashingFunction: keccak256 });
  return { store, trie };
}

/** Applies `writes` with ethereumjs one by one (null or empty: delete). */
async function applyWithMpt(trie: MerklePatriciaTrie, writes: readonly TrieWrite[]): Promise<void> {
  for (const [key, value] of writes) {
    if (value === null || value.length === 0) await trie.del(key);
    else await trie.put(key, value);
  }
}

const randomValue = (i: number) => randomBytes(1 + (i % 70));

describe('updateTrie', () => {
  it.each([1, 3, 50, 2000])('behavior: %i random writes per batch over five batches (inserts, updates, deletes) give ethereumjs roots', async (size) => {
    const { store, trie } = trieOverStore(true);
    const getNode = (keyHex: string) => store.get(keyHex);
    const put = (keyHex: string, bytes: Uint8Array) => store.put(keyHex, bytes);
    const live = new Map<string, { key: Uint8Array; value: Uint8Array }>();
    let root = KECCAK256_RLP;
    for (let batch = 0; batch < 5; batch++) {
      const writes: TrieWrite[] = [];
      const known = [...live.values()];
      for (let i = 0; i < size; i++) {
        const roll = (i * 7 + batch) % 10;
        if (roll < 3 && known.length > 0) writes.push([known[(i * 13) % known.length]!.key, null]);
        else if (roll < 6 && known.length > 0) writes.push([known[(i * 17) % known.length]!.key, randomValue(i)]);
        else if (roll === 6) writes.push([randomBytes(32), null]);
        else writes.push([randomBytes(i % 3 === 0 ? 20 : 32), randomValue(i)]);
      }
      for (const [key, value] of writes) {
        if (value === null) live.delete(flatHex(key));
        else live.set(flatHex(key), { key, value });
      }
      await applyWithMpt(trie, writes);
      root = updateTrie(getNode, root, writes, put);
      expect(flatHex(root)).toBe(flatHex(trie.root()));
    }
    for (const { key, value } of live.values()) expect(lookupTrieValue(getNode, root, key)).toEqual(Uint8Array.from(value));
  });

  it('behavior: deleting every key gives the empty root', async () => {
    const { store } = trieOverStore(true);
    const keys = Array.from({ length: 30 }, () => randomBytes(32));
    const put = (keyHex: string, bytes: Uint8Array) => store.put(keyHex, bytes);
    const full = updateTrie((k) => store.get(k), KECCAK256_RLP, keys.map((key, i) => [key, randomValue(i)] as const), put);
    expect(equalsBytes(full, KECCAK256_RLP)).toBe(false);
    const emptied = updateTrie((k) => store.get(k), full, keys.map((key) => [key, null] as const), put);
    expect(flatHex(emptied)).toBe(flatHex(KECCAK256_RLP));
  });

  it('behavior: nodes under 32 bytes sit in their parents, as ethereumjs puts them', async () => {
    const { store, trie } = trieOverStore(false);
    const prefix = randomBytes(31);
    const keys = Array.from({ length: 40 }, (_, i) => Uint8Array.from([...prefix, i * 6]));
    const writes: TrieWrite[] = keys.map((key) => [key, Uint8Array.of(key[31]! + 1)]);
    // Then some deleted, so branches collapse into their last leaf.
    for (const key of keys.slice(0, 35)) writes.push([key, null]);
    await applyWithMpt(trie, writes);
    const stored: string[] = [];
    const root = updateTrie((k) => store.get(k), KECCAK256_RLP, writes, (keyHex, bytes) => (stored.push(keyHex), store.put(keyHex, bytes)), false);
    expect(flatHex(root)).toBe(flatHex(trie.root()));
    for (const key of keys.slice(35)) expect(lookupTriePath((k) => store.get(k), root, key)).toEqual(Uint8Array.of(key[31]! + 1));
    // Five one-byte leaves under one branch: nothing but the branch's path to the root is stored.
    expect(stored.length).toBeLessThan(5);
  });

  it('behavior: writes that change nothing keep the root and store nothing', async () => {
    const { store } = trieOverStore(true);
    const entries = Array.from({ length: 100 }, (_, i) => [randomBytes(32), randomValue(i)] as const);
    const root = updateTrie((k) => store.get(k), KECCAK256_RLP, entries, (k, v) => store.put(k, v));
    let stored = 0;
    const same = updateTrie((k) => store.get(k), root, [...entries, [randomBytes(32), null]], () => stored++);
    expect(same).toBe(root);
    expect(stored).toBe(0);
  });

  it('error: a node the store lacks on a written path is named', async () => {
    const { store } = trieOverStore(true);
    const entries = Array.from({ length: 50 }, (_, i) => [randomBytes(32), randomValue(i)] as const);
    const root = updateTrie((k) => store.get(k), KECCAK256_RLP, entries, (k, v) => store.put(k, v));
    const rootHex = flatHex(root);
    expect(() => updateTrie((k) => (k === rootHex ? undefined : store.get(k)), root, [[randomBytes(32), Uint8Array.of(1)]], () => {})).toThrow(MissingTrieNodeError);
    expect(() => updateTrie((k) => (k === rootHex ? undefined : store.get(k)), root, [[randomBytes(32), Uint8Array.of(1)]], () => {})).toThrow(rootHex);
  });
});

// The synchronous trie lookup against @ethereumjs/mpt's own `get` on the same tries in a real node
// store: present and absent keys of random secure tries, nodes embedded in their parents (a plain
// trie whose keys share all but their last byte), and a node the store lacks.
import Database from 'better-sqlite3';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../interpreter/keccak.js';
import { flatHex } from './flatHex.js';
import { createPersistentTrieDb } from './trieDb.js';
import { DECODED_NODES, decodedNodeCount, lookupTriePath, lookupTrieValue } from './trieLookup.js';
import { createTrieNodeStore } from './trieNodeStore.js';

function trieOverStore(useKeyHashing: boolean) {
  const store = createTrieNodeStore({ db: new Database(':memory:') });
  const trie = new MerklePatriciaTrie({ db: createPersistentTrieDb(store), useKeyHashing, useKeyHashingFunction: keccak256 });
  return { store, trie };
}

describe('lookupTrieValue', () => {
  it.each([1, 2, 40, 5000])('behavior: a secure trie of %i keys: every key and 200 absent ones read as ethereumjs reads them', async (count) => {
    const { store, trie } = trieOverStore(true);
    const entries = Array.from({ length: count }, (_, i) => [randomBytes(i % 3 === 0 ? 20 : 32), randomBytes(1 + (i % 70))] as const);
    for (const [key, value] of entries) await trie.put(key, value);
    const getNode = (keyHex: string) => store.get(keyHex);
    for (const [key, value] of entries) {
      expect(lookupTrieValue(getNode, trie.root(), key)).toEqual(Uint8Array.from(value));
      expect(await trie.get(key)).toEqual(Uint8Array.from(value));
    }
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(32);
      expect(lookupTrieValue(getNode, trie.root(), key)).toBe(null);
      expect(await trie.get(key)).toBe(null);
    }
    // 5,000 keys make more nodes than are kept decoded: the bound holds and reads stay right.
    expect(decodedNodeCount()).toBeLessThanOrEqual(DECODED_NODES);
  });

  it('behavior: nodes under 32 bytes are read inside their parents', async () => {
    const { store, trie } = trieOverStore(false);
    const prefix = randomBytes(31);
    const keys = Array.from({ length: 40 }, (_, i) => Uint8Array.from([...prefix, i * 6]));
    for (const key of keys) await trie.put(key, Uint8Array.of(key[31]! + 1));
    const fetched = new Set<string>();
    const getNode = (keyHex: string) => (fetched.add(keyHex), store.get(keyHex));
    for (const key of keys) expect(lookupTriePath(getNode, trie.root(), key)).toEqual(Uint8Array.of(key[31]! + 1));
    expect(lookupTriePath(getNode, trie.root(), Uint8Array.from([...prefix, 1]))).toBe(null);
    expect(lookupTriePath(getNode, trie.root(), randomBytes(32))).toBe(null);
    // 40 leaves, none fetched on its own: each sits inside its branch.
    expect(fetched.size).toBeLessThan(keys.length / 2);
  });

  it('error: a node the store lacks on the path reads as missing, not as absent', async () => {
    const { store, trie } = trieOverStore(true);
    const keys = Array.from({ length: 300 }, () => randomBytes(32));
    for (const key of keys) await trie.put(key, randomBytes(8));
    const rootHex = flatHex(trie.root());
    expect(lookupTrieValue((keyHex) => (keyHex === rootHex ? undefined : store.get(keyHex)), trie.root(), keys[0]!)).toBe('missing');
    // Hide the node right under the root on key 0's path: reads through it are missing, others are not.
    const seen: string[] = [];
    lookupTrieValue((keyHex) => (seen.push(keyHex), store.get(keyHex)), trie.root(), keys[0]!);
    const hidden = seen[1]!;
    const getNode = (keyHex: string) => (keyHex === hidden ? undefined : store.get(keyHex));
    const outcomes = keys.map((key) => lookupTrieValue(getNode, trie.root(), key));
    expect(outcomes[0]).toBe('missing');
    expect(outcomes.filter((o) => o === 'missing').length).toBeLessThan(keys.length / 4);
    expect(outcomes.filter((o) => o instanceof Uint8Array).length).toBeGreaterThan(keys.length / 2);
  });
});

// One key's value in a secure Merkle Patricia trie (keys hashed with keccak-256, as the state trie
// and storage tries are), walked synchronously over a node getter: the read a state manager's
// `trie.get` does, without @ethereumjs/mpt's walk controller, task queue and promise per node.
// Recently decoded nodes are remembered per node byte array (the store hands out the same array
// while it caches the node), so the hot nodes near the roots are decoded once however many reads
// pass through them; at most DECODED_NODES of them (a decoded branch takes about four times its
// bytes: seventeen small arrays), oldest first out.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../interpreter/keccak.js';
import { flatHex } from './flatHex.js';

/** A trie node's bytes by its hash as unprefixed hex; undefined when the store lacks it. */
export type NodeGetter = (keyHex: string) => Uint8Array | undefined;

export type Decoded = Uint8Array | Decoded[];

/** What {@link lookupTrieValue} found: the value, `null` for an absent key, `missing` when a node on the path is not in the store. */
export type TrieLookup = Uint8Array | null | 'missing';

/** Decoded nodes kept per thread: about 10 MiB of branches at most. */
export const DECODED_NODES = 4096;
const decodedNodes = new Map<Uint8Array, Decoded[]>();

/** The node's decoded list (shared: callers must not change it), remembered per byte array. */
export function decodeNode(bytes: Uint8Array): Decoded[] {
  let node = decodedNodes.get(bytes);
  if (node === undefined) {
    const decoded = RLP.decode(bytes) as Decoded;
    if (!Array.isArray(decoded) || (decoded.length !== 17 && decoded.length !== 2)) throw new Error('invalid trie node');
    node = decoded;
    if (decodedNodes.size >= DECODED_NODES) decodedNodes.delete(decodedNodes.keys().next().value!);
    decodedNodes.set(bytes, node);
  }
  return node;
}

/** Decoded nodes held now (tests). */
export function decodedNodeCount(): number {
  return decodedNodes.size;
}

/** The value under `key` (not yet hashed) in the secure trie with root `root` (not the empty root). */
export function lookupTrieValue(getNode: NodeGetter, root: Uint8Array, key: Uint8Array): TrieLookup {
  return lookupTriePath(getNode, root, keccak256(key));
}

/** The value at the 32-byte `path` in the trie with root `root` (not the empty root). */
export function lookupTriePath(getNode: NodeGetter, root: Uint8Array, path: Uint8Array): TrieLookup {
  const nibble = (i: number): number => (i & 1 ? path[i >> 1]! & 15 : path[i >> 1]! >> 4);
  const rootBytes = getNode(flatHex(root));
  if (rootBytes === undefined) return 'missing';
  let node = decodeNode(rootBytes);
  let at = 0;
  for (;;) {
    let child: Decoded;
    if (node.length === 17) {
      if (at === 64) {
        const value = node[16] as Uint8Array;
        return value.length > 0 ? value : null;
      }
      child = node[nibble(at++)]!;
    } else {
      // Extension or leaf: a hex-prefix encoded run of nibbles (flag 2/3: leaf; odd flag: the first nibble sits in the first byte).
      const encoded = node[0] as Uint8Array;
      const flag = encoded[0]! >> 4;
      const length = (encoded.length - 1) * 2 + (flag & 1);
      if (at + length > 64) return null;
      for (let i = 0; i < length; i++) {
        const j = i + 2 - (flag & 1);
        const own = j & 1 ? encoded[j >> 1]! & 15 : encoded[j >> 1]! >> 4;
        if (own !== nibble(at + i)) return null;
      }
      at += length;
      if (flag >= 2) return at === 64 ? (node[1] as Uint8Array) : null;
      child = node[1]!;
    }
    if (Array.isArray(child)) {
      // A node under 32 bytes sits inside its parent.
      if (child.length !== 17 && child.length !== 2) throw new Error('invalid trie node');
      node = child;
      continue;
    }
    if (child.length === 0) return null;
    const bytes = getNode(flatHex(child));
    if (bytes === undefined) return 'missing';
    node = decodeNode(bytes);
  }
}

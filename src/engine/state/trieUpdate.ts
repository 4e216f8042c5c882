// A batch of writes to a secure Merkle Patricia trie (keys hashed with keccak-256, as the state trie
// and storage tries are), applied synchronously over a node getter, with every changed node hashed
// once at the end: what a state manager's flush does with one `trie.put` or `trie.del` per key,
// each an asynchronous walk that re-encodes and re-hashes its whole path, without either. The nodes
// the new root needs that the store lacks are handed to `putNode`; nothing is deleted (nodes are
// content-addressed and shared between roots).
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP, equalsBytes } from '@ethereumjs/util';
import { keccak256 } from '../interpreter/keccak.js';
import { flatHex } from './flatHex.js';
import { type Decoded, type NodeGetter, decodeNode } from './trieLookup.js';

/** One write: the key (not yet hashed) and its new value, or null to delete it. */
export type TrieWrite = readonly [key: Uint8Array, value: Uint8Array | null];

/** A node the store's root needs is not in the store (a broken or foreign root). */
export class MissingTrieNodeError extends Error {
  constructor(readonly hashHex: string) {
    super(`trie node ${hashHex} is not in the store`);
    this.name = 'MissingTrieNodeError';
  }
}

type Raw = Decoded;
type Ref = Uint8Array | Node | null;

interface Leaf {
  kind: 'leaf';
  path: number[];
  value: Uint8Array;
}
interface Extension {
  kind: 'extension';
  path: number[];
  child: Ref;
}
interface Branch {
  kind: 'branch';
  children: Ref[];
  value: Uint8Array | null;
}
/** A node in memory; `raw` is its item in its parent (hash or embedded list) while unchanged. */
type Node = (Leaf | Extension | Branch) & { raw?: Raw };

const EMPTY = new Uint8Array(0);

/**
 * Applies `writes` in order to the trie at `root` and returns the new root (`root` itself when no
 * write changed anything). `hashKeys: false` treats keys as paths (a plain trie; tests).
 */
export function updateTrie(
  getNode: NodeGetter,
  root: Uint8Array,
  writes: Iterable<TrieWrite>,
  putNode: (keyHex: string, bytes: Uint8Array) => void,
  hashKeys = true,
): Uint8Array {
  let top: Ref = equalsBytes(root, KECCAK256_RLP) ? null : root;
  let changed = false;
  for (const [key, value] of writes) {
    const path = nibbles(hashKeys ? keccak256(key) : key);
    const next: Ref = value === null || value.length === 0 ? remove(getNode, top, path, 0) : insert(getNode, top, path, 0, value);
    if (next !== top) {
      top = next;
      changed = true;
    }
  }
  if (!changed) return root;
  if (top === null) return KECCAK256_RLP;
  const node = load(getNode, top);
  // The root is stored by the hash of its encoding whatever its size.
  const bytes = RLP.encode(encodeNode(node, putNode));
  const hash = keccak256(bytes);
  putNode(flatHex(hash), bytes);
  return hash;
}

function nibbles(bytes: Uint8Array): number[] {
  const out = new Array<number>(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i]! >> 4;
    out[2 * i + 1] = bytes[i]! & 15;
  }
  return out;
}

/** The node a reference names: loaded and decoded when it is a hash. */
function load(getNode: NodeGetter, ref: Uint8Array | Node): Node {
  if (!(ref instanceof Uint8Array)) return ref;
  const hex = flatHex(ref);
  const bytes = getNode(hex);
  if (bytes === undefined) throw new MissingTrieNodeError(hex);
  const node = fromRaw(decodeNode(bytes));
  node.raw = ref;
  return node;
}

function fromRaw(raw: Raw): Node {
  if (!Array.isArray(raw)) throw new Error('invalid trie node');
  if (raw.length === 17) {
    const children = new Array<Ref>(16);
    for (let i = 0; i < 16; i++) children[i] = childRef(raw[i]!);
    const value = raw[16] as Uint8Array;
    return { kind: 'branch', children, value: value.length > 0 ? value : null, raw };
  }
  if (raw.length !== 2) throw new Error('invalid trie node');
  const encoded = raw[0] as Uint8Array;
  const flag = encoded[0]! >> 4;
  const path: number[] = [];
  if (flag & 1) path.push(encoded[0]! & 15);
  for (let i = 1; i < encoded.length; i++) path.push(encoded[i]! >> 4, encoded[i]! & 15);
  if (flag >= 2) return { kind: 'leaf', path, value: raw[1] as Uint8Array, raw };
  return { kind: 'extension', path, child: childRef(raw[1]!), raw };
}

/** A child as its parent holds it: none, a hash, or a node under 32 bytes embedded in place. */
function childRef(raw: Raw): Ref {
  if (Array.isArray(raw)) return fromRaw(raw);
  return raw.length === 0 ? null : raw;
}

function commonPrefix(a: number[], b: number[], bFrom: number): number {
  let n = 0;
  while (n < a.length && bFrom + n < b.length && a[n] === b[bFrom + n]) n++;
  return n;
}

/** The trie under `ref` with `value` at `path` (from nibble `at`); `ref` itself when nothing changes. */
function insert(getNode: NodeGetter, ref: Ref, path: number[], at: number, value: Uint8Array): Uint8Array | Node {
  if (ref === null) return { kind: 'leaf', path: path.slice(at), value };
  const node = load(getNode, ref);
  const next = insertInto(getNode, node, path, at, value);
  return next === node ? ref : next;
}

function insertInto(getNode: NodeGetter, node: Node, path: number[], at: number, value: Uint8Array): Node {
  if (node.kind === 'branch') {
    if (at === path.length) {
      if (node.value !== null && equalsBytes(node.value, value)) return node;
      return { ...node, value, raw: undefined };
    }
    const index = path[at]!;
    const child = node.children[index]!;
    const next = insert(getNode, child, path, at + 1, value);
    if (next === child) return node;
    const children = node.children.slice();
    children[index] = next;
    return { kind: 'branch', children, value: node.value };
  }
  const shared = commonPrefix(node.path, path, at);
  if (node.kind === 'leaf' && shared === node.path.length && at + shared === path.length) {
    return equalsBytes(node.value, value) ? node : { kind: 'leaf', path: node.path, value };
  }
  if (node.kind === 'extension' && shared === node.path.length) {
    const next = insert(getNode, node.child, path, at + shared, value);
    return next === node.child ? node : { kind: 'extension', path: node.path, child: next };
  }
  // The paths part after `shared` nibbles: a branch there holds the old node's rest and the new key.
  const branch: Branch = { kind: 'branch', children: new Array<Ref>(16).fill(null), value: null };
  const ownRest = node.path.slice(shared + 1);
  if (shared === node.path.length) {
    // Only a leaf ends here (an extension's path always continues to its child).
    branch.value = (node as Leaf).value;
  } else if (node.kind === 'leaf') {
    branch.children[node.path[shared]!] = { kind: 'leaf', path: ownRest, value: node.value };
  } else {
    branch.children[node.path[shared]!] = ownRest.length === 0 ? node.child : { kind: 'extension', path: ownRest, child: node.child };
  }
  const newAt = at + shared;
  if (newAt === path.length) branch.value = value;
  else branch.children[path[newAt]!] = { kind: 'leaf', path: path.slice(newAt + 1), value };
  return shared === 0 ? branch : { kind: 'extension', path: node.path.slice(0, shared), child: branch };
}

/** The trie under `ref` without `path`'s key; `ref` itself when it has no such key. */
function remove(getNode: NodeGetter, ref: Ref, path: number[], at: number): Ref {
  if (ref === null) return null;
  const node = load(getNode, ref);
  if (node.kind === 'leaf') {
    const matches = node.path.length === path.length - at && commonPrefix(node.path, path, at) === node.path.length;
    return matches ? null : ref;
  }
  if (node.kind === 'extension') {
    if (commonPrefix(node.path, path, at) !== node.path.length) return ref;
    const next = remove(getNode, node.child, path, at + node.path.length);
    if (next === node.child) return ref;
    return next === null ? null : joinPath(getNode, node.path, next);
  }
  let children = node.children;
  let value = node.value;
  if (at === path.length) {
    if (value === null) return ref;
    value = null;
  } else {
    const index = path[at]!;
    const child = children[index]!;
    const next = remove(getNode, child, path, at + 1);
    if (next === child) return ref;
    children = children.slice();
    children[index] = next;
  }
  // A branch left with one entry becomes a leaf or joins its only child's path.
  let only = -1;
  let count = value === null ? 0 : 1;
  for (let i = 0; i < 16; i++) {
    if (children[i] === null) continue;
    count++;
    only = i;
  }
  if (count >= 2) return { kind: 'branch', children, value };
  if (count === 0) return null;
  if (value !== null) return { kind: 'leaf', path: [], value };
  return joinPath(getNode, [only], children[only]!);
}

/** `child` placed under `prefix`: a leaf or extension takes the prefix into its path; a branch gets an extension. */
function joinPath(getNode: NodeGetter, prefix: number[], child: Uint8Array | Node): Node {
  const node = load(getNode, child);
  if (node.kind === 'leaf') return { kind: 'leaf', path: prefix.concat(node.path), value: node.value };
  if (node.kind === 'extension') return { kind: 'extension', path: prefix.concat(node.path), child: node.child };
  return { kind: 'extension', path: prefix, child: node };
}

/** Hex-prefix encoding of a path (the flag says leaf or extension, and odd or even length). */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length & 1;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0]! |= path[i++]!;
  for (let j = 1; i < path.length; j++, i += 2) out[j] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

/** The node's list, its children as their parent holds them (hashes, stored; small nodes embedded). */
function encodeNode(node: Node, putNode: (keyHex: string, bytes: Uint8Array) => void): Raw[] {
  if (node.kind === 'leaf') return [hexPrefix(node.path, true), node.value];
  if (node.kind === 'extension') return [hexPrefix(node.path, false), referTo(node.child!, putNode)];
  const list: Raw[] = new Array(17);
  for (let i = 0; i < 16; i++) {
    const child = node.children[i]!;
    list[i] = child === null ? EMPTY : referTo(child, putNode);
  }
  list[16] = node.value ?? EMPTY;
  return list;
}

/** A child's item in its parent: its hash (the node stored under it) or, under 32 bytes, the node itself. */
function referTo(ref: Uint8Array | Node, putNode: (keyHex: string, bytes: Uint8Array) => void): Raw {
  if (ref instanceof Uint8Array) return ref;
  if (ref.raw !== undefined) return ref.raw;
  const list = encodeNode(ref, putNode);
  const bytes = RLP.encode(list);
  if (bytes.length < 32) return list;
  const hash = keccak256(bytes);
  putNode(flatHex(hash), bytes);
  return hash;
}

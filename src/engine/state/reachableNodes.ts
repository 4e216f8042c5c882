// Which buffered trie nodes a committed state root still needs. Building a block writes the tries
// several times (the system contracts' slots, each SSTORE, each transaction's account changes), and
// @ethereumjs/mpt stores every node of every intermediate root: about 12 of the 30 nodes a
// one-transaction block buffers are referenced by nothing once the block's root is known. Only the
// root's closure needs to reach SQLite, where each node costs a random B-tree page.
import { flatHex } from './flatHex.js';

/** Hex length of a node key that is a plain 32-byte hash (code and prefixed keys are longer). */
const NODE_KEY_HEX = 64;

/** The first 6 bytes of the hash at `offset` as a number: a cheap check before it becomes hex. */
function hashPrefix(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! * 0x100 + bytes[offset + 1]!) * 0x100000000 + (((bytes[offset + 2]! << 24) | (bytes[offset + 3]! << 16) | (bytes[offset + 4]! << 8) | bytes[offset + 5]!) >>> 0);
}

/** Big-endian length of `size` bytes at `offset`, or -1 past `end`. */
function readLength(bytes: Uint8Array, offset: number, size: number, end: number): number {
  if (offset + size > end) return -1;
  let length = 0;
  for (let i = 0; i < size; i++) length = length * 256 + bytes[offset + i]!;
  return length;
}

/**
 * Pushes, as hex, every 32-byte RLP string in `bytes[start, end)` whose first bytes match a pending
 * key's: the child hashes of branches and extensions, at any depth of inlined nodes, and inside
 * longer strings (leaf values: an account is the RLP list [nonce, balance, storageRoot, codeHash])
 * those of their own RLP. Reads the encoding in place, without decoding it into arrays; stops at
 * bytes that are not RLP. A string that merely looks like a hash keeps an extra node, never loses one.
 */
function collectHashes(bytes: Uint8Array, start: number, end: number, prefixes: ReadonlySet<number>, out: string[]): void {
  let pos = start;
  while (pos < end) {
    const lead = bytes[pos]!;
    if (lead < 0x80) {
      pos += 1;
    } else if (lead < 0xb8 || (lead >= 0xc0 && lead < 0xf8)) {
      // A short string, or a short list whose items follow in place.
      if (lead >= 0xc0) {
        pos += 1;
        continue;
      }
      const length = lead - 0x80;
      const content = pos + 1;
      if (content + length > end) return;
      if (length === 32) {
        if (prefixes.has(hashPrefix(bytes, content))) out.push(flatHex(bytes.subarray(content, content + 32)));
      } else if (length > 32) {
        collectHashes(bytes, content, content + length, prefixes, out);
      }
      pos = content + length;
    } else {
      const size = lead < 0xc0 ? lead - 0xb7 : lead - 0xf7;
      const length = readLength(bytes, pos + 1, size, end);
      const content = pos + 1 + size;
      if (length < 0 || content + length > end) return;
      if (lead < 0xc0) {
        collectHashes(bytes, content, content + length, prefixes, out); // a long string: a leaf value
        pos = content + length;
      } else {
        pos = content; // a long list: its items follow in place
      }
    }
  }
}

/**
 * Keys of `pending` to write when `rootHex` is committed: the nodes reachable from it through
 * pending nodes (a node already in SQLite has its whole subtree there), plus every entry whose key
 * is not a bare 32-byte hash (contract code under its prefixed hash, anything else), which is kept
 * as is. A pending node that is not RLP is kept too, its references followed up to where it breaks.
 */
export function reachablePendingKeys(pending: ReadonlyMap<string, Uint8Array>, rootHex: string): Set<string> {
  const keep = new Set<string>();
  const prefixes = new Set<number>();
  for (const key of pending.keys()) {
    if (key.length !== NODE_KEY_HEX) keep.add(key);
    else prefixes.add(hashPrefix(Buffer.from(key.slice(0, 12), 'hex'), 0));
  }
  const stack = [rootHex];
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (keep.has(key)) continue;
    const node = pending.get(key);
    if (node === undefined) continue;
    keep.add(key);
    collectHashes(node, 0, node.length, prefixes, stack);
  }
  return keep;
}

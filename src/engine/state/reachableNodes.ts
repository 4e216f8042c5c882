// Which buffered trie nodes a committed state root still needs. Building a block writes the tries
// several times (the system contracts' slots, each SSTORE, each transaction's account changes), and
// @ethereumjs/mpt stores every node of every intermediate root: about 12 of the 30 nodes a
// one-transaction block buffers are referenced by nothing once the block's root is known. Only the
// root's closure needs to reach SQLite, where each node costs a random B-tree page.
import { RLP } from '@ethereumjs/rlp';
import { flatHex } from './flatHex.js';

/** Hex length of a node key that is a plain 32-byte hash (code and prefixed keys are longer). */
const NODE_KEY_HEX = 64;

type Decoded = Uint8Array | Decoded[];

/**
 * Pushes every 32-byte string inside `item` (child hashes of branches and extensions, at any depth
 * of inlined nodes) and, inside longer strings (leaf values: an account is the RLP list [nonce,
 * balance, storageRoot, codeHash]), the 32-byte strings of their own decoding. A string that merely
 * looks like a hash keeps an extra node, never loses one.
 */
function collectHashes(item: Decoded, out: string[]): void {
  if (Array.isArray(item)) {
    for (const child of item) collectHashes(child, out);
  } else if (item.length === 32) {
    out.push(flatHex(item));
  } else if (item.length > 32) {
    let inner: Decoded;
    try {
      inner = RLP.decode(item) as Decoded;
    } catch {
      return; // not RLP: a plain value, referring to nothing
    }
    collectHashes(inner, out);
  }
}

/**
 * Keys of `pending` to write when `rootHex` is committed: the nodes reachable from it through
 * pending nodes (a node already in SQLite has its whole subtree there), plus every entry whose key
 * is not a bare 32-byte hash (contract code under its prefixed hash, anything else), which is kept
 * as is. A pending node that does not decode is kept too, and its references are not followed.
 */
export function reachablePendingKeys(pending: ReadonlyMap<string, Uint8Array>, rootHex: string): Set<string> {
  const keep = new Set<string>();
  for (const key of pending.keys()) if (key.length !== NODE_KEY_HEX) keep.add(key);
  const stack = [rootHex];
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (keep.has(key)) continue;
    const node = pending.get(key);
    if (node === undefined) continue;
    keep.add(key);
    let decoded: Decoded;
    try {
      decoded = RLP.decode(node) as Decoded;
    } catch {
      continue;
    }
    collectHashes(decoded, stack);
  }
  return keep;
}

// Fork mode: clearing a storage slot can collapse its trie branch onto the branch's one other child,
// a node no proof fetched so far holds, and remote nodes cannot be asked for by hash. The proof of
// any slot whose hashed key runs through that child holds it, so such a slot is searched for: slot
// numbers are tried until one's keccak starts with the child's nibble path (16^n tries on average
// for a path of n nibbles). The search is bounded (a deep branch, in a storage trie of tens of
// thousands of slots or more, is left to the caller's fallback) and gives the event loop back
// between slices.
import { BranchMPTNode, ExtensionMPTNode, bytesToNibbles, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { keccak256 } from '../interpreter/keccak.js';

/** Longest nibble path searched: 16^4 = 65,536 hashes on average, a few tenths of a second of CPU in slices. */
export const MAX_PROBE_NIBBLES = 4;
/** Hashes tried before giving up (16× the average at the longest path). */
const MAX_TRIES = 16 * 16 ** MAX_PROBE_NIBBLES;
const SLICE = 4096;

/**
 * The nibble path of the other child of the branch that deleting `hashedKey` (the trie's applied
 * key) collapses, or undefined when no branch collapses (the leaf's branch keeps two children).
 */
export async function collapsedSiblingPath(trie: MerklePatriciaTrie, hashedKey: Uint8Array): Promise<number[] | undefined> {
  const nibbles = bytesToNibbles(hashedKey);
  const { stack } = await trie.findPath(hashedKey);
  let depth = 0;
  let last: { node: BranchMPTNode; depth: number } | undefined;
  for (const node of stack) {
    if (node instanceof BranchMPTNode) {
      last = { node, depth };
      depth += 1;
    } else if (node instanceof ExtensionMPTNode) {
      depth += node.keyLength();
    }
  }
  if (!last || last.node.value() !== null) return undefined;
  const others = last.node.getChildren().filter(([index]) => index !== nibbles[last.depth]);
  if (others.length !== 1) return undefined;
  return [...nibbles.slice(0, last.depth), others[0]![0]];
}

/** A 32-byte slot whose keccak starts with `path` (nibbles), or undefined past the bound. */
export async function slotUnderPath(path: readonly number[]): Promise<Uint8Array | undefined> {
  if (path.length > MAX_PROBE_NIBBLES) return undefined;
  const slot = new Uint8Array(32);
  const view = new DataView(slot.buffer);
  for (let i = 0; i < MAX_TRIES; i++) {
    if (i % SLICE === SLICE - 1) await new Promise((resolve) => setImmediate(resolve));
    view.setUint32(28, i);
    const hash = keccak256(slot);
    let matches = true;
    for (let n = 0; n < path.length && matches; n++) matches = (n % 2 === 0 ? hash[n >> 1]! >> 4 : hash[n >> 1]! & 15) === path[n];
    if (matches) return slot.slice();
  }
  return undefined;
}

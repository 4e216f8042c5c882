// The network's canonical chain as a window of recent block hashes by number (at least 128 below
// the tip): the answer to "is this block still canonical", and the arithmetic of adopting another
// upstream's segment (which numbers it replaces). Fetching blocks and judging forks is the pool's.
import type { Hex } from '../../rpc/hex.js';

export interface ChainBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
}

export interface CanonicalChain {
  tip(): ChainBlock | undefined;
  hashAt(number: bigint): Hex | undefined;
  /** Lowest number still in the window. */
  low(): bigint | undefined;
  /**
   * Makes `segment` (ascending, consecutive, its first block's parent canonical or below the
   * window) the chain's top; everything above it is dropped. Returns the first number whose hash
   * changed (a reorg), if any.
   */
  adopt(segment: readonly ChainBlock[]): bigint | undefined;
  /** Forgets everything and starts again at `block` (a gap too large to fill). */
  reset(block: ChainBlock): void;
}

export function createCanonicalChain(windowBlocks = 256): CanonicalChain {
  const hashes = new Map<bigint, Hex>();
  let tip: ChainBlock | undefined;
  let low: bigint | undefined;

  const trim = () => {
    if (!tip || low === undefined) return;
    while (tip.number - low >= BigInt(windowBlocks)) hashes.delete(low++);
  };

  return {
    tip: () => tip,
    hashAt: (n) => hashes.get(n),
    low: () => low,
    adopt(segment) {
      if (segment.length === 0) return undefined;
      let replaced: bigint | undefined;
      for (const b of segment) {
        const ours = hashes.get(b.number);
        if (ours !== undefined && ours !== b.hash) {
          replaced = b.number;
          break;
        }
      }
      const first = segment[0]!.number;
      const last = segment[segment.length - 1]!;
      if (tip && tip.number > last.number && replaced === undefined) replaced = last.number + 1n;
      if (tip) for (let n = first; n <= tip.number; n++) hashes.delete(n);
      for (const b of segment) hashes.set(b.number, b.hash);
      if (low === undefined || first < low) low = first;
      tip = last;
      trim();
      return replaced;
    },
    reset(block) {
      hashes.clear();
      hashes.set(block.number, block.hash);
      low = block.number;
      tip = block;
    },
  };
}

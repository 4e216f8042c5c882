// One thread's budget for the chain's in-memory caches (`--chain-cache-mb`), shared between its
// decoded blocks (decodedBlockCache.ts), its state trie nodes and code (trieNodeStore.ts) and the
// values its overlays read from state tries (stateReadCache.ts). Every thread that holds the chain
// has its own: the chain's, and each trace worker's read-only reader.

/** Default budget per thread, bytes: 16 MiB of decoded blocks, 48 of trie nodes, 16 of state reads. */
export const DEFAULT_CHAIN_CACHE_BYTES = 80 * 1024 * 1024;

/**
 * A fifth for decoded blocks, a fifth for state reads, the rest for trie nodes: the blocks read
 * again are the recent few (new heads, traces of recent transactions), state reads are kept per
 * root and each new block is a new root, while every read that misses walks the trie from its root.
 */
export function splitChainCacheBytes(bytes: number = DEFAULT_CHAIN_CACHE_BYTES): { blockBytes: number; stateReadBytes: number; trieBytes: number } {
  const blockBytes = Math.floor(bytes / 5);
  const stateReadBytes = Math.floor(bytes / 5);
  return { blockBytes, stateReadBytes, trieBytes: bytes - blockBytes - stateReadBytes };
}

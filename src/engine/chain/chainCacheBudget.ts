// One thread's budget for the chain's in-memory caches (`--chain-cache-mb`), shared between its
// decoded blocks (decodedBlockCache.ts) and its state trie nodes and code (trieNodeStore.ts). Every
// thread that holds the chain has its own: the chain's, and each trace worker's read-only reader.

/** Default budget per thread, bytes: 16 MiB of decoded blocks and 48 MiB of trie nodes. */
export const DEFAULT_CHAIN_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A quarter for decoded blocks, the rest for trie nodes: the blocks read again are the recent few
 * (new heads, traces of recent transactions), while every state read walks the trie from its root.
 */
export function splitChainCacheBytes(bytes: number = DEFAULT_CHAIN_CACHE_BYTES): { blockBytes: number; trieBytes: number } {
  const blockBytes = Math.floor(bytes / 4);
  return { blockBytes, trieBytes: bytes - blockBytes };
}

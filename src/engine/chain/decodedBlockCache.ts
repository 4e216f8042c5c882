// The block store's decoded blocks by hash, least recently used evicted first once an estimate of
// their heap size passes a byte budget. The budget is in bytes, not blocks, because a decoded block
// costs far more than its RLP and grows with its transactions: ethereumjs gives the header, the
// block and every transaction their own copy of the chain's Common, each with its own parameter
// table (about 12 KiB once a VM has registered its parameters on the shared Common). A cap of 1,024
// blocks held 30 MiB per thread after 1,024 one-transaction blocks, and would hold gigabytes of
// full blocks; every trace worker keeps its own store.
import type { Block } from '@ethereumjs/block';

/** Default budget of one store (the chain's, and each trace worker's), bytes. */
export const DECODED_BLOCK_CACHE_BYTES = 16 * 1024 * 1024;

// Calibrated on this chain after a VM was created (Node 20, prague): a decoded one-transaction
// block cost 30.3 KiB of heap (745 blocks of the load run's chain), each further transaction about
// 11.7 KiB; the transactions' fields are views on the RLP buffer, which is counted once. The
// estimate stays above those figures.
const BLOCK_BYTES = 32 * 1024;
const TX_BYTES = 12 * 1024;

/** Estimated heap size of `block` decoded from `rlpBytes` bytes of RLP. */
export function estimateDecodedBlockBytes(block: Block, rlpBytes: number): number {
  return BLOCK_BYTES + TX_BYTES * block.transactions.length + rlpBytes;
}

export interface DecodedBlockCache {
  get(key: string): Block | undefined;
  /** Keeps `block` as the most recent entry; one larger than the whole budget is not kept. */
  set(key: string, block: Block, rlpBytes: number): void;
  delete(key: string): void;
  stats(): { blocks: number; bytes: number; maxBytes: number };
}

export function createDecodedBlockCache(options: { maxBytes?: number } = {}): DecodedBlockCache {
  const maxBytes = options.maxBytes ?? DECODED_BLOCK_CACHE_BYTES;
  // Insertion order is recency order: a hit moves its entry to the end.
  const entries = new Map<string, { block: Block; bytes: number }>();
  let bytes = 0;

  function drop(key: string): void {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    bytes -= entry.bytes;
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.block;
    },
    set(key, block, rlpBytes) {
      drop(key);
      const size = estimateDecodedBlockBytes(block, rlpBytes);
      if (size > maxBytes) return;
      entries.set(key, { block, bytes: size });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        drop(oldest);
      }
    },
    delete: drop,
    stats: () => ({ blocks: entries.size, bytes, maxBytes }),
  };
}

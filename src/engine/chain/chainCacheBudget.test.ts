// The chain's cache budget: its split adds up, and its default is the stores' own defaults.
import { describe, expect, it } from 'vitest';
import { DECODED_BLOCK_CACHE_BYTES } from './decodedBlockCache.js';
import { STATE_READ_CACHE_BYTES } from '../state/stateReadCache.js';
import { TRIE_CACHE_BYTES } from '../state/trieNodeStore.js';
import { DEFAULT_CHAIN_CACHE_BYTES, splitChainCacheBytes } from './chainCacheBudget.js';

describe('chain cache budget', () => {
  it('default: 80 MiB, split as the block, trie and state-read caches default on their own', () => {
    expect(splitChainCacheBytes()).toEqual({ blockBytes: DECODED_BLOCK_CACHE_BYTES, stateReadBytes: STATE_READ_CACHE_BYTES, trieBytes: TRIE_CACHE_BYTES });
    expect(DECODED_BLOCK_CACHE_BYTES + STATE_READ_CACHE_BYTES + TRIE_CACHE_BYTES).toBe(DEFAULT_CHAIN_CACHE_BYTES);
  });

  it('args: any budget is shared out whole, a fifth to blocks and a fifth to state reads', () => {
    for (const bytes of [1, 7, 4 * 1024 * 1024, 1000 * 1024 * 1024 + 3]) {
      const { blockBytes, stateReadBytes, trieBytes } = splitChainCacheBytes(bytes);
      expect(blockBytes + stateReadBytes + trieBytes).toBe(bytes);
      expect([blockBytes, stateReadBytes]).toEqual([Math.floor(bytes / 5), Math.floor(bytes / 5)]);
    }
  });
});

// The embedded chain's polled filters: one FilterRegistry fed by the chain's head changes and
// pending transactions (engine/chain/chainFilterFeed.ts), shared by the eth_*Filter* handlers.
import { type ChainFilterFeed, startChainFilterFeed } from '../../engine/chain/chainFilterFeed.js';
import type { DevChain } from '../../engine/chain/devChain.js';
import { type FilterRegistry, type FilterRegistryOptions, createFilterRegistry } from '../../engine/chain/filterRegistry.js';

export interface ChainFilters {
  registry: FilterRegistry;
  feed: ChainFilterFeed;
}

export function createChainFilters(chain: DevChain, options: Partial<FilterRegistryOptions> = {}): ChainFilters {
  const registry = createFilterRegistry({ clock: Date.now, ...options });
  const feed = startChainFilterFeed(chain, registry, (error) => chain.config.logger?.error({ err: error }, 'filter feed failed'));
  return { registry, feed };
}

// The embedded chain's polled filters and live subscriptions: one FilterRegistry and one
// SubscriptionHub fed by the chain's head changes and pending transactions
// (engine/chain/chainFilterFeed.ts), shared by the eth_*Filter* and eth_subscribe handlers.
import { type ChainFilterFeed, startChainFilterFeed } from '../../engine/chain/chainFilterFeed.js';
import type { DevChain } from '../../engine/chain/devChain.js';
import { type FilterRegistry, type FilterRegistryOptions, createFilterRegistry } from '../../engine/chain/filterRegistry.js';
import { type SubscriptionHub, type SubscriptionHubOptions, createSubscriptionHub } from '../../engine/chain/subscriptionHub.js';
import { blockHeaderToRpc } from './rpcBlock.js';

export interface ChainFilters {
  registry: FilterRegistry;
  hub: SubscriptionHub;
  feed: ChainFilterFeed;
}

export function createChainFilters(chain: DevChain, options: Partial<FilterRegistryOptions> = {}, hubOptions: SubscriptionHubOptions = {}): ChainFilters {
  const registry = createFilterRegistry({ clock: Date.now, ...options });
  const hub = createSubscriptionHub(hubOptions);
  const feed = startChainFilterFeed(chain, [registry, hub], {
    onError: (error) => chain.config.logger?.error({ err: error }, 'filter feed failed'),
    renderHeader: blockHeaderToRpc,
  });
  return { registry, hub, feed };
}

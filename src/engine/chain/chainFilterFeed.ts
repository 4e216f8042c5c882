// Feeds FilterRegistry and SubscriptionHub targets from the embedded chain: every head change
// becomes "blocks removed, block added" with the added block's logs read from its receipts (and its
// header rendered when the feed is given a renderer, for `newHeads`), and every admitted
// transaction a pending hash. Events are handled one after another in arrival order.
import type { Block } from '@ethereumjs/block';
import type { FeedBlock } from './filterRegistry.js';
import type { ChainView } from './types.js';
import { blockLogEntries } from './logQuery.js';

export interface ChainFilterFeed {
  /** Resolves once every head change seen so far has reached the targets. */
  settled(): Promise<void>;
  stop(): void;
}

/** What a feed drives: the polled filters (filterRegistry.ts), live subscriptions (subscriptionHub.ts). */
export interface ChainEventTarget {
  onBlocks(added: readonly FeedBlock[], removedHashes: readonly Uint8Array[]): void;
  onPendingTransaction(hash: Uint8Array): void;
  /** Whether anyone listens now: with nobody, the feed reads no logs. */
  isListening(): boolean;
}

export interface FilterFeedSource extends Pick<ChainView, 'onHead' | 'getReceipts'> {
  /** Subscribes to transactions entering the pool; returns the unsubscribe function. */
  onPendingTransaction?(listener: (hash: Uint8Array) => void): () => void;
}

export interface ChainFilterFeedOptions {
  onError?: (error: unknown) => void;
  /** Renders a block's header for `newHeads` subscribers (the feed stays format-free). */
  renderHeader?: (block: Block) => unknown;
}

/** The logs of `block` in the targets' shape. */
export async function feedBlockOf(source: Pick<ChainView, 'getReceipts'>, block: Block, renderHeader?: (block: Block) => unknown): Promise<FeedBlock> {
  const logs = await blockLogEntries(source, block);
  const fed: FeedBlock = { hash: block.hash(), number: block.header.number, logs };
  if (renderHeader) fed.header = renderHeader(block);
  return fed;
}

export function startChainFilterFeed(
  source: FilterFeedSource,
  target: ChainEventTarget | readonly ChainEventTarget[],
  options: ChainFilterFeedOptions | ((error: unknown) => void) = {},
): ChainFilterFeed {
  const targets: readonly ChainEventTarget[] = Array.isArray(target) ? target : [target as ChainEventTarget];
  const { onError = () => undefined, renderHeader } = typeof options === 'function' ? { onError: options } : options;
  let tail: Promise<void> = Promise.resolve();
  const stopHead = source.onHead((event) => {
    // With nobody listening nothing reads the logs (a long anvil_mine pays nothing here); a
    // listener added later is told of removed logs only of blocks mined since.
    const listening = targets.filter((t) => t.isListening());
    if (listening.length === 0) return;
    const removed = event.removed.map((b) => b.hash());
    const added = event.removed.length > 0 ? [] : [event.block];
    tail = tail
      .then(async () => {
        const blocks = await Promise.all(added.map((b) => feedBlockOf(source, b, renderHeader)));
        for (const t of listening) t.onBlocks(blocks, removed);
      })
      .catch(onError);
  });
  const stopPending = source.onPendingTransaction?.((hash) => {
    for (const t of targets) t.onPendingTransaction(hash);
  });
  return {
    settled: () => tail,
    stop() {
      stopHead();
      stopPending?.();
    },
  };
}

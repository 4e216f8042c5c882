// Feeds a FilterRegistry from the embedded chain: every head change becomes "blocks removed, block
// added" with the added block's logs read from its receipts, and every admitted transaction a
// pending hash. Events are handled one after another in arrival order.
import type { Block } from '@ethereumjs/block';
import type { FeedBlock, FilterRegistry } from './filterRegistry.js';
import type { ChainView } from './types.js';

export interface ChainFilterFeed {
  /** Resolves once every head change seen so far has reached the registry. */
  settled(): Promise<void>;
  stop(): void;
}

export interface FilterFeedSource extends Pick<ChainView, 'onHead' | 'getReceipts'> {
  /** Subscribes to transactions entering the pool; returns the unsubscribe function. */
  onPendingTransaction?(listener: (hash: Uint8Array) => void): () => void;
}

/** The logs of `block` in the registry's shape. */
export async function feedBlockOf(source: Pick<ChainView, 'getReceipts'>, block: Block): Promise<FeedBlock> {
  const receipts = await source.getReceipts(block.hash());
  const logs = receipts.flatMap((receipt) =>
    receipt.logs.map((log) => ({
      ...log,
      blockNumber: block.header.number,
      blockHash: receipt.blockHash,
      blockTimestamp: block.header.timestamp,
      transactionHash: receipt.transactionHash,
      transactionIndex: receipt.transactionIndex,
    })),
  );
  return { hash: block.hash(), number: block.header.number, logs };
}

export function startChainFilterFeed(source: FilterFeedSource, registry: FilterRegistry, onError: (error: unknown) => void = () => undefined): ChainFilterFeed {
  let tail: Promise<void> = Promise.resolve();
  const stopHead = source.onHead((event) => {
    // With no filter installed nothing reads the logs (a long anvil_mine pays nothing here); a
    // filter installed later reports removed logs only of blocks mined since.
    if (!registry.hasFilters()) return;
    const removed = event.removed.map((b) => b.hash());
    const added = event.removed.length > 0 ? [] : [event.block];
    tail = tail.then(async () => registry.onBlocks(await Promise.all(added.map((b) => feedBlockOf(source, b))), removed)).catch(onError);
  });
  const stopPending = source.onPendingTransaction?.((hash) => registry.onPendingTransaction(hash));
  return {
    settled: () => tail,
    stop() {
      stopHead();
      stopPending?.();
    },
  };
}

// Live subscriptions (eth_subscribe's `newHeads`, `logs`, `newPendingTransactions`): who listens to
// what and which chain events reach each listener, with `removed: true` logs when blocks leave the
// chain. Fed the same plain events as the FilterRegistry ("blocks added", "blocks removed",
// "transaction pending"; chainFilterFeed.ts for the embedded chain), so an upstream node's follower
// can feed it too. Encoding and delivery are the listener's; bounds per client are the caller's.
import { LimitExceededError } from '../../rpc/errors.js';
import { type FeedBlock, type FilterLog, type LogCriteria, logMatches } from './filterRegistry.js';
import { createRecentBlockLogs } from './recentBlockLogs.js';

export type SubscriptionTopic = { kind: 'newHeads' } | { kind: 'logs'; criteria: LogCriteria } | { kind: 'newPendingTransactions' };

/** What a listener receives: a new head (the feed's header payload), one log, or a pending hash. */
export type SubscriptionEvent = { kind: 'head'; header: unknown; number: bigint } | { kind: 'log'; log: FilterLog } | { kind: 'pending'; hash: Uint8Array };

export interface SubscriptionHubOptions {
  /** Listeners of all clients together (default 10,000). */
  maxListeners?: number;
  /** Recent blocks whose logs are remembered, to report them `removed` when the blocks leave. */
  recentBlocks?: number;
}

export interface SubscriptionHub {
  /** Adds a listener; returns its removal. LimitExceededError past `maxListeners`. */
  subscribe(topic: SubscriptionTopic, listener: (event: SubscriptionEvent) => void): () => void;
  /** Feed: `removed` blocks (newest first) left the chain, then `added` (oldest first) joined it. */
  onBlocks(added: readonly FeedBlock[], removedHashes: readonly Uint8Array[]): void;
  /** Feed: a transaction entered the pool. */
  onPendingTransaction(hash: Uint8Array): void;
  /** Whether anyone listens: a feed may skip reading blocks when nobody does. */
  isListening(): boolean;
  size(): number;
}

export const DEFAULT_MAX_SUBSCRIPTION_LISTENERS = 10_000;

interface Entry {
  topic: SubscriptionTopic;
  listener: (event: SubscriptionEvent) => void;
}

export function createSubscriptionHub(options: SubscriptionHubOptions = {}): SubscriptionHub {
  const maxListeners = options.maxListeners ?? DEFAULT_MAX_SUBSCRIPTION_LISTENERS;
  const recentLimit = options.recentBlocks ?? 128;
  const entries = new Set<Entry>();
  // Logs of recent canonical blocks, for `removed: true` reports.
  const recent = createRecentBlockLogs(recentLimit);

  /** A listener that throws must not keep the others from their events. */
  const deliver = (entry: Entry, event: SubscriptionEvent) => {
    try {
      entry.listener(event);
    } catch {
      // The listener's connection reports its own failures.
    }
  };

  return {
    subscribe(topic, listener) {
      if (entries.size >= maxListeners) throw new LimitExceededError(`too many subscriptions on this node (limit ${maxListeners}); try again later`);
      const entry = { topic, listener };
      entries.add(entry);
      return () => void entries.delete(entry);
    },
    onBlocks(added, removedHashes) {
      const { addedLogs, removedLogs } = recent.apply(added, removedHashes);
      for (const entry of [...entries]) {
        const { topic } = entry;
        if (topic.kind === 'newHeads') {
          for (const block of added) deliver(entry, { kind: 'head', header: block.header, number: block.number });
        } else if (topic.kind === 'logs') {
          for (const log of removedLogs) if (logMatches(log, topic.criteria)) deliver(entry, { kind: 'log', log });
          for (const log of addedLogs) if (logMatches(log, topic.criteria)) deliver(entry, { kind: 'log', log });
        }
      }
    },
    onPendingTransaction(hash) {
      for (const entry of [...entries]) if (entry.topic.kind === 'newPendingTransactions') deliver(entry, { kind: 'pending', hash });
    },
    isListening: () => entries.size > 0,
    size: () => entries.size,
  };
}

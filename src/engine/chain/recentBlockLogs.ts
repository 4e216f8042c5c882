// The logs of recent canonical blocks by block hash, for the `removed: true` logs a reorg owes
// filters and subscriptions: one window shared in shape by the filter registry and the
// subscription hub, each fed the same "blocks added / removed" events.
import { bytesToUnprefixedHex } from '@ethereumjs/util';
import type { FeedBlock, FilterLog } from './filterRegistry.js';

export interface RecentBlockLogs {
  /**
   * Takes one feed event: forgets the removed blocks, remembers the added ones (the oldest beyond
   * the window dropped) and returns their logs as filters and subscribers see them.
   */
  apply(added: readonly FeedBlock[], removedHashes: readonly Uint8Array[]): { addedLogs: FilterLog[]; removedLogs: FilterLog[] };
}

export function createRecentBlockLogs(limit: number): RecentBlockLogs {
  // Oldest first.
  const recent = new Map<string, Omit<FilterLog, 'removed'>[]>();
  return {
    apply(added, removedHashes) {
      const removedLogs: FilterLog[] = [];
      for (const hash of removedHashes) {
        const key = bytesToUnprefixedHex(hash);
        const logs = recent.get(key);
        recent.delete(key);
        // geth reports removed logs newest block first, each block's logs in order.
        if (logs) removedLogs.push(...logs.map((l) => ({ ...l, removed: true })));
      }
      for (const block of added) {
        recent.set(bytesToUnprefixedHex(block.hash), block.logs);
        if (recent.size > limit) recent.delete(recent.keys().next().value as string);
      }
      const addedLogs = added.flatMap((b) => b.logs.map((l) => ({ ...l, removed: false })));
      return { addedLogs, removedLogs };
    },
  };
}

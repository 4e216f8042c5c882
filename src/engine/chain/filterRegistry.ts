// Polled filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): which exist,
// whose they are, what each has queued since its last poll, and when an unpolled one expires. It is
// fed plain chain events ("blocks added", "blocks removed", "transaction pending"), so any source
// of blocks can drive it: the embedded chain today (chainFilterFeed.ts), an upstream node later.
// It knows nothing of RPC encoding or of how historic logs are read.
import { randomBytes } from 'node:crypto';
import { equalsBytes } from '@ethereumjs/util';
import { LimitExceededError, ServerError } from '../../rpc/errors.js';
import { createRecentBlockLogs } from './recentBlockLogs.js';

/** A log as filters hand it out: the eth_getLogs object's fields, with `removed`. */
export interface FilterLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
  /** True when the log's block left the canonical chain (geth's reorg semantics). */
  removed: boolean;
}

/** A block that joined the canonical chain, with its logs in order. */
export interface FeedBlock {
  hash: Uint8Array;
  number: bigint;
  logs: Omit<FilterLog, 'removed'>[];
  /** The block's header as subscribers receive it (eth_subscribe `newHeads`), when the feed renders one. */
  header?: unknown;
}

/** Log criteria; bounds are block numbers (undefined: no bound, e.g. `latest`). */
export interface LogCriteria {
  fromBlock?: bigint;
  toBlock?: bigint;
  /** Any of these; undefined or empty = any address. */
  addresses?: Uint8Array[];
  /** Per position: null = any, else any of the listed topics. */
  topics: (Uint8Array[] | null)[];
}

export type FilterKind = 'logs' | 'blocks' | 'pendingTransactions';

export type FilterChanges = { kind: 'logs'; logs: FilterLog[] } | { kind: 'hashes'; hashes: Uint8Array[] };

export interface FilterRegistryOptions {
  /** Milliseconds since epoch (injected for tests). */
  clock: () => number;
  /** A filter not polled for this long is removed (geth: 5 minutes). */
  ttlMs?: number;
  /** Filters one client key may hold at once. */
  maxPerKey?: number;
  /** Filters of all keys together. */
  maxTotal?: number;
  /** Changes one filter may queue between polls; past it the filter is dropped with an error. */
  maxQueued?: number;
  /**
   * Changes all filters together may hold (entries share the log objects, so this bounds memory
   * with many idle filters); a filter that would pass it is dropped like one past `maxQueued`.
   */
  maxQueuedTotal?: number;
  /** Recent blocks whose logs are remembered, to report them `removed` when the blocks leave. */
  recentBlocks?: number;
}

export interface FilterRegistry {
  /** Installs a log filter; `initial` logs (anvil's historic ones) are returned by the first poll. */
  newLogFilter(criteria: LogCriteria, clientKey: string, initial?: Omit<FilterLog, 'removed'>[]): string;
  newBlockFilter(clientKey: string): string;
  newPendingTransactionFilter(clientKey: string): string;
  /** What the filter queued since the last poll (and resets its expiry); ServerError for an unknown id. */
  changes(id: string, clientKey: string): FilterChanges;
  /** The criteria of a log filter (eth_getFilterLogs); ServerError for an unknown id or another kind. */
  logCriteria(id: string, clientKey: string): LogCriteria;
  /** Removes the filter; false when it does not exist (or is another key's). */
  uninstall(id: string, clientKey: string): boolean;
  /** Feed: `removed` blocks (newest first) left the chain, then `added` (oldest first) joined it. */
  onBlocks(added: readonly FeedBlock[], removedHashes: readonly Uint8Array[]): void;
  /** Feed: a transaction entered the pool. */
  onPendingTransaction(hash: Uint8Array): void;
  /** Number of installed filters (after expiring stale ones). */
  size(): number;
  /** Whether any filter is installed: a feed may skip reading a block's logs when none is. */
  hasFilters(): boolean;
  /** The same, under the name every feed target shares (chainFilterFeed.ts). */
  isListening(): boolean;
}

export const FILTER_TTL_MS = 5 * 60_000;
export const DEFAULT_MAX_FILTERS_PER_KEY = 500;
export const DEFAULT_MAX_FILTERS = 10_000;
export const DEFAULT_MAX_QUEUED_CHANGES = 10_000;
export const DEFAULT_MAX_QUEUED_TOTAL = 2_000_000;

interface Filter {
  kind: FilterKind;
  clientKey: string;
  criteria?: LogCriteria;
  lastPollMs: number;
  logs: FilterLog[];
  hashes: Uint8Array[];
  overflowed: boolean;
}

/** geth's rule: a log matches when every bound, address and topic position does. */
export function logMatches(log: Omit<FilterLog, 'removed'>, criteria: LogCriteria): boolean {
  if (criteria.fromBlock !== undefined && log.blockNumber < criteria.fromBlock) return false;
  if (criteria.toBlock !== undefined && log.blockNumber > criteria.toBlock) return false;
  if (criteria.addresses?.length && !criteria.addresses.some((a) => equalsBytes(a, log.address))) return false;
  if (criteria.topics.length > log.topics.length) return false;
  return criteria.topics.every((options, i) => !options || options.length === 0 || options.some((t) => equalsBytes(t, log.topics[i]!)));
}

function notFound(): ServerError {
  return new ServerError('filter not found');
}

export function createFilterRegistry(options: FilterRegistryOptions): FilterRegistry {
  const ttlMs = options.ttlMs ?? FILTER_TTL_MS;
  const maxPerKey = options.maxPerKey ?? DEFAULT_MAX_FILTERS_PER_KEY;
  const maxTotal = options.maxTotal ?? DEFAULT_MAX_FILTERS;
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED_CHANGES;
  const maxQueuedTotal = options.maxQueuedTotal ?? DEFAULT_MAX_QUEUED_TOTAL;
  const recentLimit = options.recentBlocks ?? 128;
  let queuedTotal = 0;
  const filters = new Map<string, Filter>();
  const perKey = new Map<string, number>();
  // Logs of recent canonical blocks, for `removed: true` reports.
  const recent = createRecentBlockLogs(recentLimit);
  let lastSweepMs = 0;

  function take(filter: Filter): void {
    queuedTotal -= filter.logs.length + filter.hashes.length;
    filter.logs = [];
    filter.hashes = [];
  }

  function remove(id: string, filter: Filter): void {
    take(filter);
    filters.delete(id);
    const left = (perKey.get(filter.clientKey) ?? 1) - 1;
    if (left > 0) perKey.set(filter.clientKey, left);
    else perKey.delete(filter.clientKey);
  }

  /** Drops filters not polled within the TTL; at most once a second, so hot paths stay O(1). */
  function sweep(force = false): void {
    const now = options.clock();
    if (!force && now - lastSweepMs < 1000) return;
    lastSweepMs = now;
    for (const [id, filter] of filters) if (now - filter.lastPollMs > ttlMs) remove(id, filter);
  }

  function install(kind: FilterKind, clientKey: string, criteria?: LogCriteria): [string, Filter] {
    sweep(true);
    const held = perKey.get(clientKey) ?? 0;
    if (held >= maxPerKey) {
      throw new LimitExceededError(`too many filters: this key holds ${held} (limit ${maxPerKey}); uninstall some with eth_uninstallFilter or let them expire (${ttlMs / 1000} s unpolled)`);
    }
    if (filters.size >= maxTotal) throw new LimitExceededError(`too many filters on this node (limit ${maxTotal}); try again later`);
    const id = `0x${randomBytes(16).toString('hex')}`;
    const filter: Filter = { kind, clientKey, criteria, lastPollMs: options.clock(), logs: [], hashes: [], overflowed: false };
    filters.set(id, filter);
    perKey.set(clientKey, held + 1);
    return [id, filter];
  }

  function owned(id: string, clientKey: string): Filter {
    sweep();
    const filter = filters.get(id.toLowerCase());
    if (!filter || filter.clientKey !== clientKey) throw notFound();
    return filter;
  }

  /** Reserves room for `count` changes; false (and the filter marked overflowed) when there is none. */
  function queue(filter: Filter, count: number): boolean {
    if (filter.overflowed) return false;
    if (filter.logs.length + filter.hashes.length + count > maxQueued || queuedTotal + count > maxQueuedTotal) {
      filter.overflowed = true;
      take(filter);
      return false;
    }
    queuedTotal += count;
    return true;
  }

  return {
    newLogFilter(criteria, clientKey, initial = []) {
      const logs = initial.filter((l) => logMatches(l, criteria));
      if (logs.length > maxQueued) {
        throw new LimitExceededError(`the filter's fromBlock reaches back over ${logs.length} logs, more than a filter may hold (${maxQueued}); read them with eth_getLogs and start the filter later`);
      }
      const [id, filter] = install('logs', clientKey, criteria);
      if (queue(filter, logs.length)) filter.logs.push(...logs.map((l) => ({ ...l, removed: false })));
      return id;
    },
    newBlockFilter: (clientKey) => install('blocks', clientKey)[0],
    newPendingTransactionFilter: (clientKey) => install('pendingTransactions', clientKey)[0],
    changes(id, clientKey) {
      const filter = owned(id, clientKey);
      if (filter.overflowed) {
        remove(id.toLowerCase(), filter);
        throw new LimitExceededError(`filter ${id} fell behind: more changes queued between polls than it may hold (${maxQueued}, or the node's ${maxQueuedTotal} for all filters); it was removed, install a new one and read the gap with eth_getLogs`);
      }
      filter.lastPollMs = options.clock();
      const { logs, hashes } = filter;
      take(filter);
      return filter.kind === 'logs' ? { kind: 'logs', logs } : { kind: 'hashes', hashes };
    },
    logCriteria(id, clientKey) {
      const filter = owned(id, clientKey);
      if (filter.kind !== 'logs' || !filter.criteria) throw notFound();
      filter.lastPollMs = options.clock();
      return filter.criteria;
    },
    uninstall(id, clientKey) {
      sweep();
      const filter = filters.get(id.toLowerCase());
      if (!filter || filter.clientKey !== clientKey) return false;
      remove(id.toLowerCase(), filter);
      return true;
    },
    onBlocks(added, removedHashes) {
      sweep();
      const { addedLogs, removedLogs } = recent.apply(added, removedHashes);
      for (const filter of filters.values()) {
        if (filter.kind === 'blocks') {
          if (queue(filter, added.length)) filter.hashes.push(...added.map((b) => b.hash));
        } else if (filter.kind === 'logs') {
          const matched = [...removedLogs, ...addedLogs].filter((l) => logMatches(l, filter.criteria!));
          if (matched.length > 0 && queue(filter, matched.length)) filter.logs.push(...matched);
        }
      }
    },
    onPendingTransaction(hash) {
      sweep();
      for (const filter of filters.values()) {
        if (filter.kind === 'pendingTransactions' && queue(filter, 1)) filter.hashes.push(hash);
      }
    },
    size() {
      sweep(true);
      return filters.size;
    },
    hasFilters: () => filters.size > 0,
    isListening: () => filters.size > 0,
  };
}

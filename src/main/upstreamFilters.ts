// Polled filters (eth_newFilter, eth_newBlockFilter, eth_getFilterChanges, eth_getFilterLogs,
// eth_uninstallFilter) on an upstream network, kept by Tracehook rather than by a node: a filter
// installed on one node of a pool is unknown to the others, so a later poll routed elsewhere (load
// spread, failover, a restarted node) would answer "filter not found". Here the filters live in a
// FilterRegistry (engine/chain/filterRegistry.ts, the embedded chain's) fed by the network's block
// feed (upstreamSubscriptions.ts), and every node read (historic logs, eth_getFilterLogs) goes
// through the network's Backend, with its routing and failover. Same rules as the embedded chain:
// filters belong to the client key that made them, expire after 5 minutes unpolled, are bounded per
// key and in total, and a log filter starting at a past block answers that block's logs first.
// `eth_newPendingTransactionFilter` is refused: the nodes' transaction pools are not followed.
import type { z } from 'zod';
import type { HandlersFor, RpcContext } from '../backends/embedded/methodTable.js';
import { addressTopicsOf } from '../backends/embedded/logFilterCriteria.js';
import { logEntryToRpc } from '../backends/embedded/rpcLog.js';
import type { FilterLog, FilterRegistry, LogCriteria } from '../engine/chain/filterRegistry.js';
import { MethodNotFoundError, ResourceNotFoundError } from '../rpc/errors.js';
import { bytesToHex, quantityToHex } from '../rpc/hex.js';
import type { filterSchema } from '../rpc/schema/filter.js';
import type { LogFilterObject } from '../rpc/schema/eth.js';
import type { BlockId } from '../rpc/schema/primitives.js';

export interface UpstreamFilterDeps {
  network: string;
  registry: FilterRegistry;
  /** A read through the network's Backend, on behalf of the caller (its signal). */
  request<T>(method: string, params: unknown[], ctx: RpcContext): Promise<T>;
  /**
   * Runs `fn` once the block feed has caught up with the node's head (given), with no block fed
   * while it runs: where filters are installed (the first one starts the feed).
   */
  atHead<T>(fn: (head: bigint) => Promise<T> | T): Promise<T>;
  /** Resolves once every block seen so far has reached the registry. */
  settled(): Promise<void>;
  /** A node's log in the registry's shape, with its block's timestamp (hex). */
  logOf(log: NodeLog, blockTimestamp: string): Omit<FilterLog, 'removed'>;
}

type Filter = z.output<typeof LogFilterObject>;

/** The fields of a node's eth_getLogs entry read here (the rest is checked by `logOf`). */
export interface NodeLog {
  blockHash: string;
  blockTimestamp?: string;
}

/** A block bound: a number, or undefined for `latest`/`pending`/`safe`/`finalized`. */
function boundOf(id: BlockId | undefined): bigint | undefined {
  if (!id) return undefined;
  if (id.kind === 'number') return id.number;
  if (id.kind === 'tag' && id.tag === 'earliest') return 0n;
  return undefined;
}

/** The eth_getLogs filter of `criteria` from `fromBlock` to `toBlock`, in wire form. */
function getLogsFilter(criteria: LogCriteria, fromBlock: bigint | 'latest', toBlock: bigint | 'latest'): Record<string, unknown> {
  const wire = (b: bigint | 'latest') => (b === 'latest' ? b : quantityToHex(b));
  return {
    fromBlock: wire(fromBlock),
    toBlock: wire(toBlock),
    ...(criteria.addresses ? { address: criteria.addresses.map((a) => bytesToHex(a)) } : {}),
    topics: criteria.topics.map((position) => (position === null ? null : position.map((t) => bytesToHex(t)))),
  };
}

const keyOf = (ctx: RpcContext): string => ctx.clientKey ?? '';

export function createUpstreamFilterHandlers(deps: UpstreamFilterDeps): HandlersFor<typeof filterSchema> {
  const { registry, request } = deps;
  return {
    async eth_newFilter([filter], ctx) {
      const { addresses, topics } = addressTopicsOf(filter as Filter);
      const criteria: LogCriteria = { fromBlock: boundOf(filter.fromBlock), toBlock: boundOf(filter.toBlock), addresses, topics };
      if (filter.blockHash) {
        const block = await request<{ number: string } | null>('eth_getBlockByHash', [filter.blockHash, false], ctx);
        if (!block) throw new ResourceNotFoundError(`eth_newFilter: unknown block ${filter.blockHash} on network ${deps.network}`);
        criteria.fromBlock = criteria.toBlock = BigInt(block.number);
      }
      return deps.atHead(async (now) => {
        const logs =
          criteria.fromBlock !== undefined && criteria.fromBlock <= now
            ? await request<NodeLog[]>('eth_getLogs', [getLogsFilter(criteria, criteria.fromBlock, criteria.toBlock ?? now)], ctx)
            : [];
        // Nodes that leave `blockTimestamp` out of their logs: the blocks' own (one read per block).
        const untimed = [...new Set(logs.filter((l) => l.blockTimestamp === undefined).map((l) => l.blockHash))];
        const stamps = new Map(
          await Promise.all(untimed.map(async (hash) => [hash, (await request<{ timestamp: string } | null>('eth_getBlockByHash', [hash, false], ctx))?.timestamp] as const)),
        );
        const historic = logs.map((log) => {
          const stamp = log.blockTimestamp ?? stamps.get(log.blockHash);
          if (stamp === undefined) throw new ResourceNotFoundError(`eth_newFilter: block ${log.blockHash} of a log left network ${deps.network}; try again`);
          return deps.logOf(log, stamp);
        });
        return registry.newLogFilter(criteria, keyOf(ctx), historic);
      });
    },
    eth_newBlockFilter: (_params, ctx) => deps.atHead(() => registry.newBlockFilter(keyOf(ctx))),
    eth_newPendingTransactionFilter() {
      throw new MethodNotFoundError('eth_newPendingTransactionFilter', {
        message: `eth_newPendingTransactionFilter is not served on network ${deps.network}: its transactions are in the upstream nodes' pools, which are not followed; block and log filters are`,
      });
    },
    async eth_getFilterChanges([id], ctx) {
      await deps.settled();
      const changes = registry.changes(id, keyOf(ctx));
      if (changes.kind === 'hashes') return changes.hashes.map((h) => bytesToHex(h));
      return changes.logs.map((log) => ({ ...logEntryToRpc(log), removed: log.removed }));
    },
    async eth_getFilterLogs([id], ctx) {
      const criteria = registry.logCriteria(id, keyOf(ctx));
      await deps.settled();
      return request<unknown[]>('eth_getLogs', [getLogsFilter(criteria, criteria.fromBlock ?? 'latest', criteria.toBlock ?? 'latest')], ctx);
    },
    eth_uninstallFilter: ([id], ctx) => registry.uninstall(id, keyOf(ctx)),
  };
}

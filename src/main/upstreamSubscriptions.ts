// eth_subscribe on an upstream network: the network's chain follower (backends/upstream/
// chainFollower.ts, through NetworkUpstreams.onChain) says when the head moves or a reorg happened;
// this feed reads the new blocks and their logs through the network's Backend (failover and cache
// included) and hands them to a SubscriptionHub, the same one the embedded chain feeds
// (engine/chain/subscriptionHub.ts), so `newHeads` and `logs` (with `removed: true` after a reorg)
// reach WebSocket clients in the same shape. New blocks are found by walking parent hashes from the
// new head down to a block already fed, so a reorg is handled whether or not its event came first.
// `newPendingTransactions` is refused: the upstream nodes' pools are not followed. The same feed
// drives the network's polled filters (upstreamFilters.ts), kept here rather than on a node.
import type { Logger } from 'pino';
import type { Backend } from '../backends/backend.js';
import { createMethodTableBackend } from '../backends/backend.js';
import { type RpcContext, createMethodTable, defineNamespace } from '../backends/embedded/methodTable.js';
import { createSubscriptionHandlers } from '../backends/embedded/subscriptionMethods.js';
import type { ChainEvent } from '../backends/upstream/chainFollower.js';
import { type FeedBlock, type FilterLog, type FilterRegistry, createFilterRegistry } from '../engine/chain/filterRegistry.js';
import { type SubscriptionHub, createSubscriptionHub } from '../engine/chain/subscriptionHub.js';
import { MethodNotFoundError } from '../rpc/errors.js';
import { hexToBytes } from '../rpc/hex.js';
import { rawJsonToValue } from '../rpc/rawJson.js';
import { subscriptionSchema } from '../rpc/schema/subscription.js';
import { filterSchema } from '../rpc/schema/filter.js';
import { createUpstreamFilterHandlers } from './upstreamFilters.js';

/** Blocks fed most recently, remembered to find where a new head joins them. */
const REMEMBERED_BLOCKS = 128;
/** Most blocks one head change feeds (a longer gap feeds its newest blocks only). */
const MAX_WALK = 64;
const EMPTY_BLOOM = `0x${'0'.repeat(512)}`;
/** Fields of a block object that are not header fields (newHeads carries the header only). */
const NOT_HEADER = ['transactions', 'uncles', 'withdrawals', 'size', 'totalDifficulty'];

export interface UpstreamSubscriptionsOptions {
  network: string;
  /** Serves the network's reads (the gateway's pass-through backend). */
  backend: Backend;
  /** The network's chain view: head and reorg events. */
  chain: { onChain(listener: (event: ChainEvent) => void): () => void };
  logger: Logger;
  /** Listeners of all clients together (SubscriptionHub default unless set). */
  maxListeners?: number;
}

export interface UpstreamSubscriptions {
  /** Serves eth_subscribe/eth_unsubscribe and the polled filters for the network (listed before its pass-through). */
  readonly backend: Backend;
  readonly hub: SubscriptionHub;
  readonly filters: FilterRegistry;
  /** Resolves once every chain event seen so far has reached the hub. */
  settled(): Promise<void>;
  close(): void;
}

type RpcBlock = Record<string, unknown> & { number: string; hash: string; parentHash: string; timestamp: string; logsBloom?: string };
type RpcLog = { address: string; topics: string[]; data: string; blockNumber: string; blockHash: string; blockTimestamp?: string; transactionHash: string; transactionIndex: string; logIndex: string };

function headerOf(block: RpcBlock): Record<string, unknown> {
  const header = { ...block };
  for (const field of NOT_HEADER) delete header[field];
  return header;
}

function logOf(log: RpcLog, timestamp: string): Omit<FilterLog, 'removed'> {
  return {
    address: hexToBytes(log.address),
    topics: log.topics.map((t) => hexToBytes(t)),
    data: hexToBytes(log.data),
    blockNumber: BigInt(log.blockNumber),
    blockHash: hexToBytes(log.blockHash),
    blockTimestamp: BigInt(log.blockTimestamp ?? timestamp),
    transactionHash: hexToBytes(log.transactionHash),
    transactionIndex: Number(log.transactionIndex),
    logIndex: Number(log.logIndex),
  };
}

export function createUpstreamSubscriptions(options: UpstreamSubscriptionsOptions): UpstreamSubscriptions {
  const { network, backend, logger } = options;
  const hub = createSubscriptionHub({ maxListeners: options.maxListeners });
  const filters = createFilterRegistry({ clock: Date.now });
  const listening = () => hub.isListening() || filters.hasFilters();
  const controller = new AbortController();
  let n = 0;
  const request = async <T>(method: string, params: unknown[], ctx?: RpcContext): Promise<T> => {
    ctx ??= { requestId: `subscriptions:${network}:${++n}`, signal: controller.signal, clientKey: `subscriptions:${network}` };
    return rawJsonToValue(await backend.call(method, params, ctx)) as T;
  };
  // Fed blocks, oldest first.
  let fed: { number: bigint; hash: string }[] = [];
  let tail: Promise<void> = Promise.resolve();

  const feedBlockOf = async (block: RpcBlock): Promise<FeedBlock> => {
    const logs = block.logsBloom === EMPTY_BLOOM ? [] : await request<RpcLog[]>('eth_getLogs', [{ blockHash: block.hash }]);
    return { hash: hexToBytes(block.hash), number: BigInt(block.number), logs: logs.map((l) => logOf(l, block.timestamp)), header: headerOf(block) };
  };

  /** Feeds what changed up to `head`: blocks that left (newest first), then blocks that joined (oldest first). */
  const advance = async (head: { hash: string }): Promise<void> => {
    const known = new Map(fed.map((b, i) => [b.hash, i]));
    const joined: RpcBlock[] = [];
    let cursor = await request<RpcBlock | null>('eth_getBlockByHash', [head.hash, false]);
    while (cursor && !known.has(cursor.hash.toLowerCase())) {
      joined.push(cursor);
      // Nothing fed yet (the first listener), or a gap too long: start from what was read.
      if (fed.length === 0 || joined.length >= MAX_WALK) break;
      cursor = await request<RpcBlock | null>('eth_getBlockByHash', [cursor.parentHash, false]);
    }
    if (joined.length === 0) return;
    joined.reverse();
    const firstNumber = BigInt(joined[0]!.number);
    const ancestorIndex = cursor ? known.get(cursor.hash.toLowerCase()) : undefined;
    // Blocks above the common ancestor (or, without one, at or above the first joined block) left.
    const keep = ancestorIndex !== undefined ? ancestorIndex + 1 : fed.filter((b) => b.number < firstNumber).length;
    const left = fed.slice(keep).reverse();
    const blocks: FeedBlock[] = [];
    for (const block of joined) blocks.push(await feedBlockOf(block));
    fed = [...fed.slice(0, keep), ...joined.map((b) => ({ number: BigInt(b.number), hash: b.hash.toLowerCase() }))].slice(-REMEMBERED_BLOCKS);
    const removed = left.map((b) => hexToBytes(b.hash));
    hub.onBlocks(blocks, removed);
    filters.onBlocks(blocks, removed);
  };

  /**
   * Runs `fn` on the feed's queue once the feed has caught up with the node's current head (its
   * number is given to `fn`): no block reaches the filters while it runs, so a filter installed
   * there neither misses a block nor hears again of one its first answer already holds.
   */
  const atHead = <T>(fn: (head: bigint) => Promise<T> | T): Promise<T> => {
    const run = tail.then(async () => {
      const head = await request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
      if (!head) throw new Error(`network ${network} has no latest block`);
      if (fed.length === 0) fed = [{ number: BigInt(head.number), hash: head.hash.toLowerCase() }];
      else await advance({ hash: head.hash });
      return fn(BigInt(head.number));
    });
    tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const stopChain = options.chain.onChain((event) => {
    if (event.kind === 'finalized') return;
    // With nobody listening nothing is read; a listener added later hears of blocks from then on.
    if (!listening()) {
      fed = [];
      return;
    }
    const head = event.kind === 'head' ? event : event.head;
    tail = tail
      .then(() => advance({ hash: head.hash }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) logger.warn({ err: error, network }, 'subscription feed could not read the new blocks; they are skipped');
      });
  });

  const subscriptions = createSubscriptionHandlers({
    hub: {
      ...hub,
      subscribe(topic, listener) {
        if (topic.kind === 'newPendingTransactions') {
          throw new MethodNotFoundError('eth_subscribe', {
            message: `eth_subscribe: newPendingTransactions is not served on network ${network}: it is served by upstream nodes whose transaction pools are not followed; newHeads and logs are`,
          });
        }
        return hub.subscribe(topic, listener);
      },
    },
  });
  const filterHandlers = createUpstreamFilterHandlers({
    network,
    registry: filters,
    request: (method, params, ctx) => request(method, params, ctx),
    atHead,
    settled: () => tail,
    logOf: (log, timestamp) => logOf(log as RpcLog, timestamp),
  });
  const table = createMethodTable(defineNamespace(subscriptionSchema, subscriptions), defineNamespace(filterSchema, filterHandlers));
  return {
    backend: createMethodTableBackend(table, 'subscriptions'),
    hub,
    filters,
    settled: () => tail,
    close() {
      stopChain();
      controller.abort();
    },
  };
}

// The one place that decides what serves an upstream network: the network's pool of upstream nodes
// (backends/upstream/networkUpstreams.ts: probing, health, capability routing, failover, pinned
// tags), the trace path choice over it (backends/upstream/tracePaths.ts: native, translated or
// executed by backends/fork/), and the finality-aware cache outermost (backends/upstream/cache/), so translated
// answers are cached too; with a shared cache (Redis) its traces are the cache's second tier. The gateway, the follower and main.ts take whatever this returns.
import type { Logger } from '../log/createLogger.js';
import type { Backend } from '../backends/backend.js';
import { createNetworkUpstreams, type NetworkStatus, type NetworkUpstreams } from '../backends/upstream/networkUpstreams.js';
import { createCachingBackend, type CachingBackend } from '../backends/upstream/cache/cachingBackend.js';
import type { CacheMetrics } from '../backends/upstream/cache/cacheMetrics.js';
import type { RedisSharedCache } from '../backends/upstream/cache/redisSharedCache.js';
import { createTracePathBackend } from '../backends/upstream/tracePaths.js';
import { createForkExecutor, type ForkExecutorOptions } from '../backends/fork/forkExecutor.js';
import type { TracePathMetrics } from '../backends/upstream/tracePathMetrics.js';
import type { ServedNetwork } from '../config/networks.js';

export type UpstreamNetwork = Extract<ServedNetwork, { kind: 'upstream' }>;

export interface NetworkBackend {
  /** Serves every method of the network (the gateway's pass-through, the follower's requests). */
  readonly backend: Backend;
  /** The pool: the network's canonical view (head, finalized, reorgs) and its upstreams. */
  readonly upstreams: NetworkUpstreams;
  /** Probes every upstream once; resolves when each first probe has ended. */
  start(): Promise<void>;
  /** For `/readyz`: at least one upstream is healthy and on the network's chain. */
  isReady(): boolean;
  /** The network and one row per upstream (`/api/upstreams`, `/readyz`, `/metrics`). */
  status(): NetworkStatus;
  close(): void;
}

export interface NetworkBackendOptions {
  logger: Logger;
  /** Deadline of one attempt on one upstream. Default 30,000 ms. */
  timeoutMs?: number;
  /** Largest answer read from a node. */
  maxResponseBytes?: number;
  /** Bound of the cache, in bytes of JSON text; 0 serves without a cache. Default 256 MiB. */
  cacheBytes?: number;
  cacheMetrics?: CacheMetrics;
  /** The traces shared by every gateway (Redis), the cache's second tier; absent: this process's cache alone. */
  sharedCache?: RedisSharedCache;
  /** Head polling interval of the pool. Default 1,000 ms. */
  headPollMs?: number;
  tracePathMetrics?: TracePathMetrics;
  /**
   * Fork execution (the embedded engine on an upstream's state) of trace calls no upstream and no
   * translation answers; absent: those are -32601.
   */
  fork?: Omit<ForkExecutorOptions, 'chainId'>;
}

export function createNetworkBackend(network: UpstreamNetwork, options: NetworkBackendOptions): NetworkBackend {
  const upstreams = createNetworkUpstreams({
    network: network.name,
    chainId: network.chainId,
    upstreams: network.upstreams,
    logger: options.logger,
    attemptTimeoutMs: options.timeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    headPollMs: options.headPollMs,
    // Many clients' cheap calls share one round trip to the node (the hop's main cost).
    coalesceCalls: true,
  });
  const executor = options.fork && createForkExecutor({ ...options.fork, chainId: () => upstreams.chainId() });
  const traced = createTracePathBackend({ network: network.name, inner: upstreams.backend, members: () => upstreams.members(), executor, metrics: options.tracePathMetrics });
  const cacheBytes = options.cacheBytes ?? 256 * 1024 * 1024;
  const cache: CachingBackend | undefined =
    cacheBytes > 0 ? createCachingBackend(traced, {
          chain: upstreams,
          maxBytes: cacheBytes,
          network: network.name,
          metrics: options.cacheMetrics,
          shared: options.sharedCache?.forNetwork(network.name, network.chainId),
        }) : undefined;
  return {
    backend: cache ?? traced,
    upstreams,
    start: () => upstreams.start(),
    isReady: () => upstreams.isReady(),
    status: () => ({ ...upstreams.networkStatus(), tracePaths: traced.paths() }),
    close() {
      cache?.close();
      upstreams.close();
    },
  };
}

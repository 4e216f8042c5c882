// Test support: the service's request path assembled for real, as main.ts wires it: a dev chain on
// a temporary data dir, the trace worker pool running traces, eth_call and eth_estimateGas, and a
// real gateway (HTTP, SQLite key store, one key per tier) in front of the method table.
import { type TempChain, openTempChain } from '../../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../../engine/trace/createTracer.js';
import { createPooledCalls } from '../../../engine/trace/pooledCalls.js';
import { type TracePool, createTracePool } from '../../../engine/trace/tracePool.js';
import type { TierPolicyOptions } from '../../../gateway/policy/tiers.js';
import type { NetworkOptions } from '../../../gateway/router/networkRouter.js';
import type { WebSocketLimits } from '../../../gateway/websocket/wsLimits.js';
import { type TestGateway, startTestGateway } from '../../../gateway/testing/startTestGateway.js';
import type { ApiKeyTier } from '../../../store/types.js';
import { createDebugNamespace } from '../debugNamespace.js';
import { createDevNamespace } from '../devNamespace.js';
import { createEthNamespace } from '../ethNamespace.js';
import { createMethodTable } from '../methodTable.js';
import { createTraceNamespace } from '../traceNamespace.js';

export interface PooledServiceOptions {
  /** Trace workers; 0 runs everything in-process (like `--trace-workers 0`). */
  workers: number;
  gasCap: bigint;
  callTimeoutMs: number;
  traceTimeoutMs?: number;
  maxQueuedJobs?: number;
  tiers?: TierPolicyOptions;
  /** The gateway's keep-alive fast path (default on, as in the service); false for node:http alone. */
  fastPath?: boolean;
  /** Chain id of the embedded chain (default 31337), e.g. a hosted network's so its SDK accepts it. */
  chainId?: bigint;
  /** Bounds of the WebSocket endpoint. */
  websocket?: Partial<WebSocketLimits>;
  /** More networks after `local` (e.g. a pass-through one). */
  moreNetworks?: NetworkOptions[];
  /** How often usage is written to the store (the gateway's default unless set). */
  usageFlushIntervalMs?: number;
}

export interface PooledService {
  gateway: TestGateway;
  temp: TempChain;
  pool: TracePool | undefined;
  tracer: Tracer;
  /** The JSON-RPC URL of the key of `tier`. */
  rpcUrl(tier: ApiKeyTier): string;
  /** The WebSocket URL of the key of `tier`. */
  wsUrl(tier: ApiKeyTier): string;
  close(): Promise<void>;
}

export async function startPooledService(options: PooledServiceOptions): Promise<PooledService> {
  const temp = await openTempChain({ clock: Date.now, gasCap: options.gasCap, callTimeoutMs: options.callTimeoutMs, ...(options.chainId ? { chainId: options.chainId } : {}) });
  const { chain } = temp;
  const worker = { dataDir: temp.dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: options.gasCap };
  const pool = options.workers > 0 ? createTracePool({ size: options.workers, worker, maxQueuedJobs: options.maxQueuedJobs }) : undefined;
  const runJob = pool && ((job: Parameters<TracePool['run']>[0], scope?: Parameters<TracePool['run']>[1]) => pool.run(job, scope));
  const tracer = createTracer({ chain, gasCap: options.gasCap, timeoutMs: options.traceTimeoutMs, runJob });
  const calls = runJob && createPooledCalls({ stateRootAt: (block) => chain.stateRootAt(block), runJob, timeoutMs: options.callTimeoutMs });
  const table = createMethodTable(createEthNamespace({ chain, calls }), createDevNamespace({ chain }), createTraceNamespace({ tracer }), createDebugNamespace({ tracer }));
  const gateway = await startTestGateway({ networks: [{ name: 'local', table }, ...(options.moreNetworks ?? [])], tiers: options.tiers, fastPath: options.fastPath, websocket: options.websocket, usageFlushIntervalMs: options.usageFlushIntervalMs });
  return {
    gateway,
    temp,
    pool,
    tracer,
    rpcUrl: (tier) => `${gateway.url}/v2/${gateway.keys[tier]}`,
    wsUrl: (tier) => `${gateway.url.replace(/^http/, 'ws')}/v2/${gateway.keys[tier]}`,
    async close() {
      await gateway.close();
      tracer.close();
      await pool?.close();
      await temp.dispose();
    },
  };
}

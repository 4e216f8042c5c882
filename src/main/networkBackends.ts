// The one place that decides what serves an upstream network: today a pass-through to its first
// upstream node (backends/upstream/upstreamBackend.ts). Issue 12's routed pool
// (`createNetworkUpstreams(...).backend`, probing and failover) wrapped by the finality-aware cache
// replaces it here; the gateway, the follower and main.ts take whatever this returns.
import type { Logger } from '../log/createLogger.js';
import type { Backend } from '../backends/backend.js';
import type { RpcContext } from '../backends/embedded/methodTable.js';
import { createUpstreamBackend } from '../backends/upstream/upstreamBackend.js';
import type { ServedNetwork } from '../config/networks.js';

export type UpstreamNetwork = Extract<ServedNetwork, { kind: 'upstream' }>;

/** One row of `/api/upstreams` and `/readyz` details; never a URL with credentials. */
export interface UpstreamStatusRow {
  /** `<NETWORK>#<index>`. */
  label: string;
  /** Scheme, host and port only: no user info, path or query. */
  origin: string;
  [detail: string]: unknown;
}

export interface NetworkBackend {
  /** Serves every method of the network (the gateway's pass-through, the follower's requests). */
  readonly backend: Backend;
  /** For `/readyz`: the network can answer now. */
  isReady(): Promise<boolean>;
  /** One row per upstream. */
  status(): UpstreamStatusRow[];
  close(): void;
}

export interface NetworkBackendOptions {
  logger: Logger;
  /** Deadline of one call to a node. Default 30,000 ms. */
  timeoutMs?: number;
  /** Largest answer read from a node. */
  maxResponseBytes?: number;
}

/** Label of an upstream in logs, metrics and errors: `ETH_MAINNET#0`. */
export const upstreamLabel = (network: string, index: number): string => `${network}#${index}`;

/** `https://user:key@node.example:8545/v1/key?x=1` → `https://node.example:8545`. */
export function upstreamOrigin(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

const READY_TIMEOUT_MS = 2_000;

export function createNetworkBackend(network: UpstreamNetwork, options: NetworkBackendOptions): NetworkBackend {
  const [first, ...others] = network.upstreams;
  if (!first) throw new TypeError(`network ${network.name} has no upstream`);
  const label = upstreamLabel(network.name, 0);
  if (others.length) {
    options.logger.warn({ network: network.name, serving: label, unused: others.map((_, i) => upstreamLabel(network.name, i + 1)) }, 'this build serves an upstream network from its first upstream only; the others wait for routing and failover');
  }
  const backend = createUpstreamBackend({ url: first.url, headers: first.headers, label, name: label, timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes });
  const expected = `0x${network.chainId.toString(16)}`;
  return {
    backend,
    async isReady() {
      const ctx: RpcContext = { requestId: `readyz:${label}`, signal: AbortSignal.timeout(READY_TIMEOUT_MS) };
      try {
        return BigInt((await backend.call('eth_chainId', [], ctx)) as string) === BigInt(expected);
      } catch {
        return false;
      }
    },
    status: () => network.upstreams.map((u, i) => ({ label: upstreamLabel(network.name, i), origin: upstreamOrigin(u.url), serving: i === 0 })),
    close: () => backend.close(),
  };
}

// One network's upstream pool: a JSON-RPC client per upstream, probing (at start, every
// probeIntervalMs, after a -32601), head polling, the network's canonical view with reorg and
// finality events, status rows, and the routed Backend (routedBackend.ts) over it all.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Backend } from '../backend.js';
import type { Hex } from '../../rpc/hex.js';
import { createChainFollower, type ChainEvent } from './chainFollower.js';
import { createJsonRpcClient } from './jsonRpcClient.js';
import { createCoalescingClient } from './coalescingClient.js';
import { probeUpstream, type ProbedTracer, type TraceType } from './probeUpstream.js';
import { createRoutedBackend, failureKind } from './routedBackend.js';
import { createUpstreamHealth } from './upstreamHealth.js';
import { memberState, type UpstreamMember, type UpstreamState } from './upstreamMember.js';

export interface UpstreamSpec {
  url: string;
  headers?: Record<string, string>;
  weight?: number;
}

export interface NetworkUpstreamsOptions {
  /** Config name, e.g. ETH_MAINNET (for logs, metrics, errors). */
  network: string;
  /** Expected chain id; a probe answering another id takes that upstream out. */
  chainId?: bigint;
  upstreams: readonly UpstreamSpec[];
  logger: Logger;
  /** Default 300,000; an upstream is also re-probed after it answers -32601. */
  probeIntervalMs?: number;
  /** Default 1,000. */
  headPollMs?: number;
  /** Per attempt on one upstream. Default 30,000. */
  attemptTimeoutMs?: number;
  /** Per probe call. Default min(attemptTimeoutMs, 10,000); a whole probe ends within 3 of them (at least 10 s). */
  probeTimeoutMs?: number;
  /** Per answer. Default 128 MiB. */
  maxResponseBytes?: number;
  /** Blocks an upstream may trail the network's head and still count as current. Default 2. */
  maxLagBlocks?: number;
  /** Cool-down after the first failure in a row (doubling with each further one). Default 500 ms. */
  baseCooldownMs?: number;
  /** Longest cool-down after failures in a row. Default 30,000 ms. */
  maxCooldownMs?: number;
  /** Shortest time between two probes of one upstream triggered by -32601 answers. Default min(probeIntervalMs, 10,000). */
  minReprobeMs?: number;
  /** How long an upstream that answered from another fork is kept out. Default 10,000 ms. */
  forkPenaltyMs?: number;
  /** Send cheap single calls made in the same event-loop turn as one batch (coalescingClient.ts). Default false. */
  coalesceCalls?: boolean;
}

export type { ChainEvent } from './chainFollower.js';

/** One upstream's row for /readyz details, GET /api/upstreams and /metrics (no URL secrets). */
export interface UpstreamStatus {
  network: string;
  label: string;
  /** Scheme, host and port only. */
  origin: string;
  weight: number;
  state: UpstreamState;
  chainId?: string;
  clientVersion?: string;
  head?: string;
  headLagBlocks?: number;
  finalized?: string;
  /** Oldest block whose state it serves ("0": archive). */
  stateFrom?: string;
  archive?: boolean;
  methods: Record<string, boolean>;
  tracers: Partial<Record<ProbedTracer, boolean>>;
  traceTypes: Partial<Record<TraceType, boolean>>;
  latencyMs: number;
  errorRate: number;
  requests: number;
  failures: number;
  coolingUntil?: string;
  lastError?: string;
  probedAt?: string;
  probeError?: string;
}

/** The network as a whole, with its upstreams' rows (GET /api/upstreams, /readyz details). */
export interface NetworkStatus {
  network: string;
  chainId?: string;
  head?: { number: string; hash: Hex };
  finalized?: string;
  ready: boolean;
  upstreams: UpstreamStatus[];
  /** Which path each trace method takes on the network (tracePaths.ts), when a path choice serves it. */
  tracePaths?: Record<string, 'native' | 'translated' | 'executed' | 'unsupported'>;
}

export interface NetworkUpstreams {
  readonly network: string;
  /** Probes every upstream once (resolves when all first probes ended, success or not). */
  start(): Promise<void>;
  close(): void;
  /** Probed chain id (the expected one if given). */
  chainId(): bigint | undefined;
  /** The network's canonical view, from the best healthy upstream. */
  head(): { number: bigint; hash: Hex } | undefined;
  finalized(): bigint | undefined;
  /** Canonical hash at `number` if within the tracked window (>= 128 recent blocks), else undefined. */
  canonicalHash(number: bigint): Hex | undefined;
  onChain(listener: (event: ChainEvent) => void): () => void;
  status(): UpstreamStatus[];
  /** True when at least one upstream is healthy and on the right chain. */
  isReady(): boolean;
  /** status() with the network's own facts around it. */
  networkStatus(): NetworkStatus;
  /** The routed Backend: call + callBatch with capability routing, scoring, failover, tag pinning. */
  readonly backend: Backend;
  /** The pool's members with their probed capabilities (the trace path choice reads them). */
  members(): readonly UpstreamMember[];
}

/** Label of an upstream in logs, metrics and errors: `ETH_MAINNET#0` (never its URL). */
export const upstreamLabel = (network: string, index: number): string => `${network}#${index}`;

/** `https://user:pw@node.example:8545/key?x` → `https://node.example:8545`. */
export function redactedOrigin(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

export function createNetworkUpstreams(options: NetworkUpstreamsOptions): NetworkUpstreams {
  const { network } = options;
  const logger = options.logger.child({ network });
  const probeIntervalMs = options.probeIntervalMs ?? 300_000;
  const headPollMs = options.headPollMs ?? 1_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
  const maxLagBlocks = options.maxLagBlocks ?? 2;
  const forkPenaltyMs = options.forkPenaltyMs ?? 10_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? Math.min(attemptTimeoutMs, 10_000);
  const pollTimeoutMs = Math.min(attemptTimeoutMs, Math.max(2_000, headPollMs * 4));
  const reprobeMinMs = options.minReprobeMs ?? Math.min(probeIntervalMs, 10_000);
  if (options.upstreams.length === 0) throw new TypeError(`network ${network}: no upstreams`);

  const members: UpstreamMember[] = options.upstreams.map((spec, index) => {
    const label = upstreamLabel(network, index);
    return {
      index,
      label,
      origin: redactedOrigin(spec.url),
      weight: spec.weight ?? 1,
      client: ((client) => (options.coalesceCalls ? createCoalescingClient(client) : client))(
        createJsonRpcClient({ url: spec.url, headers: spec.headers, label, timeoutMs: attemptTimeoutMs, maxResponseBytes: options.maxResponseBytes }),
      ),
      health: createUpstreamHealth({ baseCooldownMs: options.baseCooldownMs, maxCooldownMs: options.maxCooldownMs }),
      wrongChain: false,
      forked: false,
      unsupported: new Set(),
    };
  });
  const probing = new Map<UpstreamMember, Promise<void>>();
  const lastProbeAt = new Map<UpstreamMember, number>();
  const life = new AbortController();
  // Every probe and poll call listens on it at once.
  setMaxListeners(0, life.signal);
  let expectedChainId = options.chainId;
  const timers: NodeJS.Timeout[] = [];
  let started = false;

  const decideChainId = () => {
    if (expectedChainId !== undefined) return;
    const votes = new Map<bigint, number>();
    for (const m of members) if (m.caps) votes.set(m.caps.chainId, (votes.get(m.caps.chainId) ?? 0) + 1);
    let best: bigint | undefined;
    for (const m of members) {
      const id = m.caps?.chainId;
      if (id !== undefined && (best === undefined || votes.get(id)! > votes.get(best)!)) best = id;
    }
    expectedChainId = best;
  };

  const judgeChain = (m: UpstreamMember) => {
    if (!m.caps || expectedChainId === undefined) return;
    const wrong = m.caps.chainId !== expectedChainId;
    if (wrong && !m.wrongChain) logger.error({ upstream: m.label, chainId: m.caps.chainId.toString(), expected: expectedChainId.toString() }, 'upstream answers another chain id; taken out of the network');
    if (!wrong && m.wrongChain) logger.info({ upstream: m.label }, 'upstream is back on the network\'s chain');
    m.wrongChain = wrong;
  };

  const probe = (m: UpstreamMember): Promise<void> => {
    const running = probing.get(m);
    if (running) return running;
    lastProbeAt.set(m, Date.now());
    const run = (async () => {
      try {
        // A node that answers each probe call just before its deadline still ends in bounded time.
        const signal = AbortSignal.any([life.signal, AbortSignal.timeout(Math.max(3 * probeTimeoutMs, 10_000))]);
        setMaxListeners(0, signal);
        const caps = await probeUpstream(m.client, { timeoutMs: probeTimeoutMs, signal });
        m.caps = caps;
        m.probeError = undefined;
        m.unsupported.clear();
        if (!m.head || caps.head.number >= m.head.number) m.head = caps.head;
        if (started) decideChainId();
        judgeChain(m);
        logger.info({ upstream: m.label, chainId: caps.chainId.toString(), clientVersion: caps.clientVersion, head: caps.head.number.toString(), stateFrom: caps.stateFrom?.toString(), tracers: caps.tracers, traceTypes: caps.traceTypes }, 'upstream probed');
      } catch (error) {
        if (life.signal.aborted) return;
        m.probeError = error instanceof Error ? error.message : String(error);
        m.health.recordFailure(`probe: ${m.probeError}`, failureKind(error));
        logger.warn({ upstream: m.label, error: m.probeError }, 'upstream probe failed');
      } finally {
        probing.delete(m);
      }
    })();
    probing.set(m, run);
    return run;
  };

  const follower = createChainFollower({
    members,
    logger,
    pollTimeoutMs,
    forkPenaltyMs,
    signal: life.signal,
    onUnprobed(m) {
      if (!probing.has(m) && Date.now() - (lastProbeAt.get(m) ?? 0) > reprobeMinMs / 10) void probe(m);
    },
  });

  const view = {
    network,
    members: () => members,
    currentPins: () => ({ latest: follower.head()?.number, safe: follower.safe(), finalized: follower.finalized() }),
    expectedChainId: () => expectedChainId,
    canonicalHash: (n: bigint) => follower.hashAt(n),
    onUnsupported(m: UpstreamMember) {
      if (Date.now() - (lastProbeAt.get(m) ?? 0) >= reprobeMinMs) void probe(m);
    },
    onForkedAnswer: (m: UpstreamMember) => void follower.poll(m),
    maxLagBlocks,
    attemptTimeoutMs,
    logger,
  };
  const backend = createRoutedBackend(view);
  const networkHead = () => follower.head()?.number;

  const status = (): UpstreamStatus[] =>
    members.map((m): UpstreamStatus => {
      const h = m.health.snapshot();
      const head = networkHead();
      const f = follower.finalizedOf(m);
      return {
        network,
        label: m.label,
        origin: m.origin,
        weight: m.weight,
        state: memberState(m, head, maxLagBlocks),
        chainId: m.caps?.chainId.toString(),
        clientVersion: m.caps?.clientVersion,
        head: m.head?.number.toString(),
        headLagBlocks: head !== undefined && m.head ? Math.max(0, Number(head - m.head.number)) : undefined,
        finalized: f?.toString(),
        stateFrom: m.caps?.stateFrom?.toString(),
        archive: m.caps?.stateFrom === undefined ? undefined : m.caps.stateFrom === 0n,
        // Only probed methods: -32601 answers to arbitrary names must not grow the table (or metrics labels).
        methods: { ...m.caps?.methods, ...Object.fromEntries([...m.unsupported].filter((k) => m.caps && k in m.caps.methods).map((k) => [k, false])) },
        tracers: { ...m.caps?.tracers },
        traceTypes: { ...m.caps?.traceTypes },
        latencyMs: h.latencyMs,
        errorRate: h.errorRate,
        requests: h.requests,
        failures: h.failures,
        coolingUntil: h.coolingUntilMs ? new Date(h.coolingUntilMs).toISOString() : undefined,
        lastError: h.lastError,
        probedAt: m.caps ? new Date(m.caps.probedAtMs).toISOString() : undefined,
        probeError: m.probeError,
      };
    });
  const isReady = () => backend.isReady!() as boolean;

  return {
    network,
    async start() {
      await Promise.all(members.map(probe));
      started = true;
      decideChainId();
      for (const m of members) judgeChain(m);
      await follower.pollAll();
      if (life.signal.aborted) return;
      timers.push(setInterval(() => void follower.pollAll(), headPollMs));
      timers.push(
        setInterval(() => {
          for (const m of members) void probe(m).then(() => judgeChain(m));
        }, probeIntervalMs),
      );
      for (const t of timers) t.unref();
    },
    close() {
      life.abort();
      for (const t of timers) clearInterval(t);
      for (const m of members) m.client.close();
      follower.close();
    },
    chainId: () => expectedChainId,
    head: () => follower.head(),
    finalized: () => follower.finalized(),
    canonicalHash: (n) => follower.hashAt(n),
    onChain: (listener) => follower.onChain(listener),
    status,
    isReady,
    networkStatus() {
      const head = follower.head();
      const finalized = follower.finalized();
      return {
        network,
        chainId: expectedChainId?.toString(),
        head: head && { number: head.number.toString(), hash: head.hash },
        finalized: finalized?.toString(),
        ready: isReady(),
        upstreams: status(),
      };
    },
    backend,
    members: () => members,
  };
}

// One network's upstream pool: a JSON-RPC client per upstream, probing (at start, every
// probeIntervalMs, after a -32601), head polling, the network's canonical view with reorg and
// finality events, status rows, and the routed Backend (routedBackend.ts) over it all.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Backend } from '../backend.js';
import type { Hex } from '../../rpc/hex.js';
import { quantityToHex } from '../../rpc/hex.js';
import { UpstreamBadAnswerError } from '../../rpc/errors.js';
import { createCanonicalChain, type ChainBlock } from './canonicalChain.js';
import { createJsonRpcClient } from './jsonRpcClient.js';
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
  /** Per answer. Default 128 MiB. */
  maxResponseBytes?: number;
  /** Blocks an upstream may trail the network's head and still count as current. Default 2. */
  maxLagBlocks?: number;
  /** Longest cool-down after failures in a row. Default 30,000 ms. */
  maxCooldownMs?: number;
  /** Shortest time between two probes of one upstream triggered by -32601 answers. Default min(probeIntervalMs, 10,000). */
  minReprobeMs?: number;
  /** How long an upstream that answered from another fork is kept out. Default 10,000 ms. */
  forkPenaltyMs?: number;
}

export type ChainEvent =
  | { kind: 'head'; number: bigint; hash: Hex }
  /** Blocks >= fromNumber were replaced. */
  | { kind: 'reorg'; fromNumber: bigint; head: { number: bigint; hash: Hex } }
  | { kind: 'finalized'; number: bigint };

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
}

const WINDOW_BLOCKS = 256;
/** Ancestors fetched below a fresh head. */
const BACKFILL_BLOCKS = 128n;

/** `https://user:pw@node.example:8545/key?x` → `https://node.example:8545`. */
export function redactedOrigin(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

function chainBlockOf(value: unknown): ChainBlock | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const b = value as { number?: unknown; hash?: unknown; parentHash?: unknown };
  if (typeof b.number !== 'string' || typeof b.hash !== 'string' || typeof b.parentHash !== 'string' || !/^0x[0-9a-fA-F]+$/.test(b.number)) return undefined;
  return { number: BigInt(b.number), hash: b.hash.toLowerCase() as Hex, parentHash: b.parentHash.toLowerCase() as Hex };
}

export function createNetworkUpstreams(options: NetworkUpstreamsOptions): NetworkUpstreams {
  const { network } = options;
  const logger = options.logger.child({ network });
  const probeIntervalMs = options.probeIntervalMs ?? 300_000;
  const headPollMs = options.headPollMs ?? 1_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
  const maxLagBlocks = options.maxLagBlocks ?? 2;
  const forkPenaltyMs = options.forkPenaltyMs ?? 10_000;
  const probeTimeoutMs = Math.min(attemptTimeoutMs, 10_000);
  const pollTimeoutMs = Math.min(attemptTimeoutMs, Math.max(2_000, headPollMs * 4));
  const reprobeMinMs = options.minReprobeMs ?? Math.min(probeIntervalMs, 10_000);
  if (options.upstreams.length === 0) throw new TypeError(`network ${network}: no upstreams`);

  const members: UpstreamMember[] = options.upstreams.map((spec, index) => {
    const label = `${network}#${index}`;
    return {
      index,
      label,
      origin: redactedOrigin(spec.url),
      weight: spec.weight ?? 1,
      client: createJsonRpcClient({ url: spec.url, headers: spec.headers, label, timeoutMs: attemptTimeoutMs, maxResponseBytes: options.maxResponseBytes }),
      health: createUpstreamHealth({ maxCooldownMs: options.maxCooldownMs }),
      wrongChain: false,
      forked: false,
      unsupported: new Set(),
    };
  });
  const parents = new Map<UpstreamMember, ChainBlock>();
  const finalizedOf = new Map<UpstreamMember, bigint>();
  const safeOf = new Map<UpstreamMember, bigint>();
  const probing = new Map<UpstreamMember, Promise<void>>();
  const lastProbeAt = new Map<UpstreamMember, number>();
  const polling = new Set<UpstreamMember>();
  const listeners = new Set<(event: ChainEvent) => void>();
  const chain = createCanonicalChain(WINDOW_BLOCKS);
  const life = new AbortController();
  // Every probe and poll call listens on it at once.
  setMaxListeners(0, life.signal);
  let expectedChainId = options.chainId;
  let finalized: bigint | undefined;
  let safe: bigint | undefined;
  let leader: UpstreamMember | undefined;
  let reconciling: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  let started = false;

  const emit = (event: ChainEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (error) {
        logger.error({ err: error }, 'chain event listener threw');
      }
    }
  };

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
        const caps = await probeUpstream(m.client, { timeoutMs: probeTimeoutMs, signal: life.signal });
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

  const fetchBlock = async (m: UpstreamMember, n: bigint): Promise<ChainBlock | undefined> =>
    chainBlockOf(await m.client.call('eth_getBlockByNumber', [quantityToHex(n), false], { timeoutMs: pollTimeoutMs, signal: life.signal }));

  const judgeForks = () => {
    for (const m of members) {
      if (!m.head) continue;
      const ours = chain.hashAt(m.head.number);
      m.forked = ours !== undefined && ours !== m.head.hash;
    }
  };

  /**
   * Whether the other upstreams outvote `from` on block `n`: some other hash is held by more of
   * them than `theirs` (counting `from` itself). One upstream alone is never outvoted.
   */
  const outvoted = async (from: UpstreamMember, n: bigint, theirs: Hex): Promise<boolean> => {
    const others = members.filter((m) => m !== from && !m.wrongChain && m.caps);
    const hashes = await Promise.all(others.map((m) => fetchBlock(m, n).then((b) => b?.hash, () => undefined)));
    const counts = new Map<Hex, number>();
    for (const h of hashes) if (h !== undefined && h !== theirs) counts.set(h, (counts.get(h) ?? 0) + 1);
    const agree = 1 + hashes.filter((h) => h === theirs).length;
    return Math.max(0, ...counts.values()) > agree;
  };

  const keepOut = (m: UpstreamMember, n: bigint) => {
    m.forked = true;
    m.health.penalize(forkPenaltyMs, `block ${n} from another fork`);
    logger.warn({ upstream: m.label, block: n.toString() }, 'upstream is on another fork than the others; kept out for a while');
  };

  /** Fills the window below a fresh head with its ancestors (one batch), as far as they link. */
  const backfill = async (m: UpstreamMember, head: ChainBlock) => {
    const from = head.number > BACKFILL_BLOCKS ? head.number - BACKFILL_BLOCKS : 0n;
    if (from >= head.number) return;
    const numbers: bigint[] = [];
    for (let n = from; n < head.number; n++) numbers.push(n);
    try {
      const answers = await m.client.batch(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [quantityToHex(n), false] })), { timeoutMs: pollTimeoutMs, signal: life.signal });
      const blocks = answers.map((a) => (a.ok ? chainBlockOf(a.result) : undefined));
      const segment: ChainBlock[] = [head];
      for (let i = blocks.length - 1; i >= 0; i--) {
        const b = blocks[i];
        if (!b || b.hash !== segment[0]!.parentHash) break;
        segment.unshift(b);
      }
      if (chain.tip()?.hash === head.hash) chain.adopt(segment);
    } catch (error) {
      logger.warn({ upstream: m.label, error: error instanceof Error ? error.message : String(error) }, 'could not fill the canonical window');
    }
  };

  /** Brings the canonical view to `m`'s head: fills gaps, finds the fork point, emits events. */
  const follow = async (m: UpstreamMember, head: ChainBlock) => {
    const tip = chain.tip();
    if (!tip || head.number - tip.number > BigInt(WINDOW_BLOCKS)) {
      if (await outvoted(m, head.number, head.hash)) return keepOut(m, head.number);
      chain.reset(head);
      await backfill(m, head);
      emit({ kind: 'head', number: head.number, hash: head.hash });
      return;
    }
    if (chain.hashAt(head.number) === head.hash) return;
    const segment = [head];
    let cursor = head;
    for (let steps = 0; steps < WINDOW_BLOCKS && cursor.number > 0n; steps++) {
      const n = cursor.number - 1n;
      const low = chain.low();
      if (low === undefined || n < low || chain.hashAt(n) === cursor.parentHash) break;
      const parent = await fetchBlock(m, n);
      if (!parent || parent.hash !== cursor.parentHash) throw new UpstreamBadAnswerError(m.label, `block ${n} does not link to block ${cursor.number}`);
      segment.unshift(parent);
      cursor = parent;
    }
    const firstChanged = segment.find((b) => chain.hashAt(b.number) !== undefined && chain.hashAt(b.number) !== b.hash);
    if (firstChanged && (await outvoted(m, firstChanged.number, firstChanged.hash))) return keepOut(m, firstChanged.number);
    const replaced = chain.adopt(segment);
    if (replaced !== undefined) {
      logger.warn({ fromNumber: replaced.toString(), head: head.number.toString(), upstream: m.label }, 'reorg');
      emit({ kind: 'reorg', fromNumber: replaced, head: { number: head.number, hash: head.hash } });
    }
    emit({ kind: 'head', number: head.number, hash: head.hash });
  };

  /** Picks the leader (highest head among current members; the old leader keeps a tie) and follows it. */
  const updateView = () => {
    reconciling = reconciling.then(async () => {
      const eligible = members.filter((m) => m.caps && m.head && parents.has(m) && !m.wrongChain && !m.health.isCooling() && !m.forked);
      let best = leader && eligible.includes(leader) ? leader : undefined;
      for (const m of eligible) if (!best || m.head!.number > best.head!.number) best = m;
      if (!best) return;
      leader = best;
      const head = parents.get(best)!;
      const tip = chain.tip();
      // A leader behind our tip whose block agrees with ours is only lagging: nothing replaced.
      if (tip && head.number < tip.number && chain.hashAt(head.number) === head.hash) return;
      try {
        await follow(best, head);
      } catch (error) {
        best.health.recordFailure(error instanceof Error ? error.message : String(error));
      }
      judgeForks();
      const f = finalizedOf.get(best);
      if (f !== undefined && (finalized === undefined || f > finalized)) {
        finalized = f;
        emit({ kind: 'finalized', number: f });
      }
      const s = safeOf.get(best);
      if (s !== undefined && (safe === undefined || s > safe)) safe = s;
    });
    return reconciling;
  };

  const poll = async (m: UpstreamMember) => {
    if (polling.has(m) || m.wrongChain || life.signal.aborted) return;
    polling.add(m);
    try {
      const answers = await m.client.batch(
        [
          { method: 'eth_getBlockByNumber', params: ['latest', false] },
          { method: 'eth_getBlockByNumber', params: ['finalized', false] },
          { method: 'eth_getBlockByNumber', params: ['safe', false] },
        ],
        { timeoutMs: pollTimeoutMs, signal: life.signal },
      );
      const head = answers[0]!.ok ? chainBlockOf(answers[0]!.result) : undefined;
      if (!head) throw new UpstreamBadAnswerError(m.label, 'latest block is not a block');
      m.health.recordAlive();
      m.head = { number: head.number, hash: head.hash };
      parents.set(m, head);
      const f = answers[1]!.ok ? chainBlockOf(answers[1]!.result) : undefined;
      if (f) finalizedOf.set(m, f.number);
      const s = answers[2]!.ok ? chainBlockOf(answers[2]!.result) : undefined;
      if (s) safeOf.set(m, s.number);
      if (!m.caps && !probing.has(m) && Date.now() - (lastProbeAt.get(m) ?? 0) > reprobeMinMs / 10) void probe(m);
      await updateView();
    } catch (error) {
      if (life.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      m.health.recordFailure(`head poll: ${message}`, failureKind(error));
    } finally {
      polling.delete(m);
    }
  };

  const pollAll = () => Promise.all(members.map(poll));

  const view = {
    network,
    members: () => members,
    currentPins: () => ({ latest: chain.tip()?.number, safe, finalized }),
    expectedChainId: () => expectedChainId,
    canonicalHash: (n: bigint) => chain.hashAt(n),
    onUnsupported(m: UpstreamMember) {
      if (Date.now() - (lastProbeAt.get(m) ?? 0) >= reprobeMinMs) void probe(m);
    },
    onForkedAnswer: (m: UpstreamMember) => void poll(m),
    maxLagBlocks,
    attemptTimeoutMs,
    logger,
  };
  const backend = createRoutedBackend(view);
  const networkHead = () => chain.tip()?.number;

  const status = (): UpstreamStatus[] =>
    members.map((m): UpstreamStatus => {
      const h = m.health.snapshot();
      const head = networkHead();
      const f = finalizedOf.get(m);
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
        methods: { ...m.caps?.methods, ...Object.fromEntries([...m.unsupported].map((k) => [k, false])) },
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
      await pollAll();
      if (life.signal.aborted) return;
      timers.push(setInterval(() => void pollAll(), headPollMs));
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
      listeners.clear();
    },
    chainId: () => expectedChainId,
    head: () => {
      const tip = chain.tip();
      return tip && { number: tip.number, hash: tip.hash };
    },
    finalized: () => finalized,
    canonicalHash: (n) => chain.hashAt(n),
    onChain(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status,
    isReady,
    networkStatus() {
      const tip = chain.tip();
      return {
        network,
        chainId: expectedChainId?.toString(),
        head: tip && { number: tip.number.toString(), hash: tip.hash },
        finalized: finalized?.toString(),
        ready: isReady(),
        upstreams: status(),
      };
    },
    backend,
  };
}

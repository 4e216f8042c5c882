// Follows one network's chain through its upstreams: polls each upstream's latest, safe and
// finalized blocks, keeps the canonical view from the leader (the highest current head; ties keep
// the old leader), fills gaps, finds fork points, and emits head, reorg and finalized events. An
// upstream whose blocks the others outvote is kept out as forked. Routing is routedBackend.ts's.
import type { Logger } from 'pino';
import { UpstreamBadAnswerError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { quantityToHex } from '../../rpc/hex.js';
import { createCanonicalChain, type ChainBlock } from './canonicalChain.js';
import { failureKind } from './routedBackend.js';
import type { UpstreamMember } from './upstreamMember.js';

export type ChainEvent =
  | { kind: 'head'; number: bigint; hash: Hex }
  /** Blocks >= fromNumber were replaced. */
  | { kind: 'reorg'; fromNumber: bigint; head: { number: bigint; hash: Hex } }
  | { kind: 'finalized'; number: bigint };

const WINDOW_BLOCKS = 256;
/** Blocks fetched per batch when filling a gap below a new head. */
const GAP_BATCH = 32n;
/** Ancestors fetched below a fresh head. */
const BACKFILL_BLOCKS = 128n;

function chainBlockOf(value: unknown): ChainBlock | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const b = value as { number?: unknown; hash?: unknown; parentHash?: unknown };
  if (typeof b.number !== 'string' || typeof b.hash !== 'string' || typeof b.parentHash !== 'string' || !/^0x[0-9a-fA-F]+$/.test(b.number)) return undefined;
  return { number: BigInt(b.number), hash: b.hash.toLowerCase() as Hex, parentHash: b.parentHash.toLowerCase() as Hex };
}

export interface ChainFollowerOptions {
  members: readonly UpstreamMember[];
  logger: Logger;
  /** Deadline of each poll and block fetch. */
  pollTimeoutMs: number;
  /** How long an outvoted (forked) upstream is kept out. */
  forkPenaltyMs: number;
  /** Aborted when the pool closes. */
  signal: AbortSignal;
  /** A member answered a poll but has no probed capabilities yet. */
  onUnprobed(member: UpstreamMember): void;
}

export interface ChainFollower {
  /** Polls one member and updates the view; never rejects. */
  poll(member: UpstreamMember): Promise<void>;
  pollAll(): Promise<void>;
  head(): { number: bigint; hash: Hex } | undefined;
  hashAt(number: bigint): Hex | undefined;
  finalized(): bigint | undefined;
  safe(): bigint | undefined;
  /** The finalized block a member last reported. */
  finalizedOf(member: UpstreamMember): bigint | undefined;
  onChain(listener: (event: ChainEvent) => void): () => void;
  close(): void;
}

export function createChainFollower(options: ChainFollowerOptions): ChainFollower {
  const { members, logger, pollTimeoutMs, forkPenaltyMs, onUnprobed } = options;
  const life = { signal: options.signal };
  const parents = new Map<UpstreamMember, ChainBlock>();
  const finalizedOf = new Map<UpstreamMember, bigint>();
  const safeOf = new Map<UpstreamMember, bigint>();
  const polling = new Set<UpstreamMember>();
  const listeners = new Set<(event: ChainEvent) => void>();
  const chain = createCanonicalChain(WINDOW_BLOCKS);
  let finalized: bigint | undefined;
  let safe: bigint | undefined;
  let leader: UpstreamMember | undefined;
  let reconciling: Promise<void> = Promise.resolve();

  const emit = (event: ChainEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (error) {
        logger.error({ err: error }, 'chain event listener threw');
      }
    }
  };

  const fetchBlock = async (m: UpstreamMember, n: bigint): Promise<ChainBlock | undefined> =>
    chainBlockOf(await m.client.call('eth_getBlockByNumber', [quantityToHex(n), false], { timeoutMs: pollTimeoutMs, signal: life.signal }));

  /** Blocks `from..to` of one member, in one batch. */
  const fetchBlocks = async (m: UpstreamMember, from: bigint, to: bigint): Promise<Map<bigint, ChainBlock | undefined>> => {
    const numbers: bigint[] = [];
    for (let n = from; n <= to; n++) numbers.push(n);
    const answers = await m.client.batch(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [quantityToHex(n), false] })), { timeoutMs: pollTimeoutMs, signal: life.signal });
    return new Map(numbers.map((n, i) => [n, answers[i]!.ok ? chainBlockOf(answers[i]!.result) : undefined]));
  };

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
    try {
      const byNumber = await fetchBlocks(m, from, head.number - 1n);
      const blocks = [...byNumber.values()];
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
    const fetched = new Map<bigint, ChainBlock | undefined>();
    for (let steps = 0; steps < WINDOW_BLOCKS && cursor.number > 0n; steps++) {
      const n = cursor.number - 1n;
      const low = chain.low();
      if (low === undefined || n < low || chain.hashAt(n) === cursor.parentHash) break;
      // A gap of several blocks (a poll missed some) is fetched in batches, not one call a block.
      if (!fetched.has(n)) for (const [k, b] of await fetchBlocks(m, n - GAP_BATCH + 1n < low ? low : n - GAP_BATCH + 1n, n)) fetched.set(k, b);
      const parent = fetched.get(n);
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
      if (!tip || head.number >= tip.number || chain.hashAt(head.number) !== head.hash) {
        try {
          await follow(best, head);
        } catch (error) {
          best.health.recordFailure(error instanceof Error ? error.message : String(error));
        }
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
      if (!m.caps) onUnprobed(m);
      await updateView();
    } catch (error) {
      if (life.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      m.health.recordFailure(`head poll: ${message}`, failureKind(error));
    } finally {
      polling.delete(m);
    }
  };

  const pollAll = async () => {
    await Promise.all(members.map(poll));
  };

  return {
    poll,
    pollAll,
    head: () => {
      const tip = chain.tip();
      return tip && { number: tip.number, hash: tip.hash };
    },
    hashAt: (n) => chain.hashAt(n),
    finalized: () => finalized,
    safe: () => safe,
    finalizedOf: (m) => finalizedOf.get(m),
    onChain(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => listeners.clear(),
  };
}

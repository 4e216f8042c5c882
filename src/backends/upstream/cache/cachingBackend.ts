// The finality-aware cache in front of any Backend (a network's routed upstreams): answers that
// cannot change once their block is named by hash or final are kept as JSON text in a byte-bounded
// LRU and served without asking a node. An answer enters only after it is checked to be about
// what was asked and to belong to a block the chain view calls canonical (or final); entries
// above the finalized block leave on a reorg and are re-checked on every hit until final.
// Which calls qualify and how answers are checked: cacheableCalls.ts. Storage: lruByteStore.ts.
// With a shared tier (sharedCacheTier.ts), traces that entered are also written there for other
// gateways, and a miss here reads it before asking a node: a read is served only when its block
// passes the same check as a hit here (final, or its hash still canonical in this gateway's view).
import type { Backend, BackendCall, CallOutcome } from '../../backend.js';
import type { RpcContext } from '../../embedded/methodTable.js';
import type { Hex } from '../../../rpc/hex.js';
import { RawJson } from '../../../rpc/rawJson.js';
import { UpstreamAbortedError, UpstreamBadAnswerError } from '../../../rpc/errors.js';
import { classifyCall, type BlockRef, type CacheableCall } from './cacheableCalls.js';
import { createLruByteStore, type CacheEntry } from './lruByteStore.js';
import type { CacheMetrics, CacheStats } from './cacheMetrics.js';
import { decodeSharedEntry, encodeSharedEntry, SHARED_METHODS, type SharedCacheTier } from './sharedCacheTier.js';

/** Chain events as the network's upstreams report them (NetworkUpstreams' ChainEvent). */
export type CacheChainEvent =
  | { kind: 'head'; number: bigint; hash: Hex }
  | { kind: 'reorg'; fromNumber: bigint; head: { number: bigint; hash: Hex } }
  | { kind: 'finalized'; number: bigint };

/** The network's canonical view the cache trusts (NetworkUpstreams satisfies it). */
export interface CacheChainView {
  finalized(): bigint | undefined;
  /** Canonical hash at `number` while the view tracks that height, else undefined. */
  canonicalHash(number: bigint): Hex | undefined;
  onChain(listener: (event: CacheChainEvent) => void): () => void;
}

export interface CachingBackendOptions {
  chain: CacheChainView;
  /** Bound of the answers held, in characters of their JSON text. */
  maxBytes: number;
  /** Network name, for metrics. */
  network: string;
  metrics?: CacheMetrics;
  /** Largest single answer kept, so one huge trace cannot flush the cache. Default maxBytes / 4. */
  maxEntryBytes?: number;
  /** The second tier shared by every gateway (traces only); absent: this process's LRU alone. */
  shared?: SharedCacheTier;
}

export interface CachingBackend extends Backend {
  stats(): CacheStats;
  /** Stops listening to the chain view and empties the cache (the inner backend is the caller's). */
  close(): void;
}

const NONE_SHARED: ReadonlyMap<string, string> = new Map();

/** Reorgs remembered to keep an answer that was in flight during one out of the cache. */
const RECENT_REORGS = 32;

interface Lookup {
  readonly cacheable: CacheableCall | undefined;
  /** Position in the calls sent on; absent when the cache answered it. */
  readonly sendAt?: number;
  ok: boolean;
  value?: unknown;
}

interface Miss {
  readonly index: number;
  readonly cacheable: CacheableCall;
  readonly sendAt: number;
  readonly lookup: Lookup | undefined;
}

/**
 * Wraps `inner` with the cache. Answers served from the cache (and fresh answers that entered it)
 * are RawJson: the gateway writes them as is; other callers unwrap them with `rawJsonToValue`.
 */
export function createCachingBackend(inner: Backend, options: CachingBackendOptions): CachingBackend {
  const { chain, network, metrics, shared } = options;
  const store = createLruByteStore(options.maxBytes);
  const maxEntryBytes = options.maxEntryBytes ?? Math.floor(options.maxBytes / 4);
  let hits = 0;
  let misses = 0;
  let reorgSeq = 0;
  const recentReorgs: { seq: number; fromNumber: bigint }[] = [];

  const unsubscribe = chain.onChain((event) => {
    if (event.kind !== 'reorg') return;
    reorgSeq++;
    recentReorgs.push({ seq: reorgSeq, fromNumber: event.fromNumber });
    if (recentReorgs.length > RECENT_REORGS) recentReorgs.shift();
    const dropped = store.dropFrom(event.fromNumber);
    metrics?.removed(network, 'reorg', dropped);
  });
  const untrack = metrics?.track(network, () => stats());

  const stats = (): CacheStats => ({ hits, misses, bytes: store.bytes, entries: store.entries });

  /** True when a reorg since `seq` replaced blocks from `number` down (or the record of it is lost). */
  const reorgedSince = (seq: number, number: bigint): boolean => {
    if (seq === reorgSeq) return false;
    if (recentReorgs.length === 0 || recentReorgs[0]!.seq > seq + 1) return true;
    return recentReorgs.some((r) => r.seq > seq && r.fromNumber <= number);
  };

  /**
   * Whether the chain view vouches for a block: `final` at or below the finalized block (and not
   * contradicted by a tracked canonical hash), `canonical` when the tracked hash is its hash.
   */
  const standing = (ref: BlockRef): 'final' | 'canonical' | undefined => {
    const canonical = chain.canonicalHash(ref.number);
    const finalized = chain.finalized();
    const finalHeight = finalized !== undefined && ref.number <= finalized;
    if (canonical !== undefined) return canonical.toLowerCase() === ref.hash ? (finalHeight ? 'final' : 'canonical') : undefined;
    return finalHeight ? 'final' : undefined;
  };

  /** A usable entry; one whose block is no longer canonical is dropped on the way. */
  const liveEntry = (key: string): CacheEntry | undefined => {
    const entry = store.get(key);
    if (!entry || entry.final) return entry;
    const now = standing(entry);
    if (now === undefined) {
      store.delete(key);
      metrics?.removed(network, 'stale', 1);
      return undefined;
    }
    if (now === 'final') entry.final = true;
    return entry;
  };

  /** Checks an answer and stores it when it qualifies; returns its JSON text when it entered. */
  const admit = (cacheable: CacheableCall, result: unknown, lookupValue: unknown, startSeq: number): string | undefined => {
    const ref = cacheable.anchor(result, lookupValue);
    if (!ref) return undefined;
    const now = standing(ref);
    if (now === undefined || (now === 'canonical' && reorgedSince(startSeq, ref.number))) return undefined;
    let text: string | undefined;
    try {
      text = JSON.stringify(result);
    } catch {
      return undefined;
    }
    if (text === undefined || text.length > maxEntryBytes) return undefined;
    const evicted = store.set(cacheable.key, { text, number: ref.number, hash: ref.hash, final: now === 'final' });
    metrics?.removed(network, 'evicted', evicted);
    if (shared && SHARED_METHODS.has(cacheable.method)) shared.put(cacheable.key, encodeSharedEntry({ number: ref.number, hash: ref.hash, final: now === 'final', text }));
    return text;
  };

  /** `hit`: answered by this process's LRU; `sharedHit`: by the shared tier (X-Cache says HIT for either). */
  const note = (method: string, hit: boolean, ctx: RpcContext, sharedHit = false) => {
    if (hit) hits++;
    else misses++;
    metrics?.lookup(network, method, hit);
    ctx.noteCache?.(hit || sharedHit);
  };

  /** The trace calls (one per key) this process's LRU misses: what the shared tier is asked for. */
  const sharedWanted = (forms: readonly (CacheableCall | undefined)[]): CacheableCall[] => {
    const byKey = new Map<string, CacheableCall>();
    for (const f of forms) if (f && SHARED_METHODS.has(f.method) && !byKey.has(f.key) && !liveEntry(f.key)) byKey.set(f.key, f);
    return [...byKey.values()];
  };

  /**
   * Reads the shared tier for `wanted`, in one round trip; an entry is served (and kept here) only
   * when its block stands as a hit here would: final, or its hash canonical at its height; answers
   * that name their own block are checked again.
   */
  const readShared = async (tier: SharedCacheTier, wanted: readonly CacheableCall[]): Promise<Map<string, string>> => {
    const found = new Map<string, string>();
    const texts = await tier.get(wanted.map((f) => f.key));
    let missed = 0;
    wanted.forEach((form, i) => {
      const stored = texts[i];
      if (stored === undefined) return void missed++;
      const entry = decodeSharedEntry(stored);
      // A form whose answer names its block (trace_transaction, trace_block) must name this one.
      const named = entry && !form.lookup ? form.anchor(entry.value, undefined) : entry;
      if (!entry || !named || named.number !== entry.number || named.hash !== entry.hash) return void metrics?.sharedLookup(network, 'invalid');
      const now = standing(entry);
      if (now === undefined) return void metrics?.sharedLookup(network, 'stale');
      metrics?.sharedLookup(network, 'hit');
      found.set(form.key, entry.text);
      if (entry.text.length <= maxEntryBytes) {
        const evicted = store.set(form.key, { text: entry.text, number: entry.number, hash: entry.hash, final: now === 'final' });
        metrics?.removed(network, 'evicted', evicted);
      }
    });
    metrics?.sharedLookup(network, 'miss', missed);
    return found;
  };

  /** Sends calls on: none, one with `call`, several as one batch when the inner backend takes batches. */
  const sendOn = async (calls: readonly BackendCall[], ctx: RpcContext): Promise<CallOutcome[]> => {
    if (calls.length === 0) return [];
    if (calls.length > 1 && inner.callBatch) return inner.callBatch(calls, ctx);
    return Promise.all(
      calls.map((c) =>
        inner.call(c.method, c.params, ctx).then(
          (result): CallOutcome => ({ ok: true, result }),
          (error: unknown): CallOutcome => ({ ok: false, error }),
        ),
      ),
    );
  };

  /**
   * Answers calls (each with its cacheable form, if any): hits from the cache, everything else
   * (and the lookups that misses need) in one go to the inner backend, outcomes in order.
   * `noted`: the calls were already reported to the context and the stats.
   */
  const serve = async (calls: readonly BackendCall[], forms: readonly (CacheableCall | undefined)[], ctx: RpcContext, noted = false): Promise<CallOutcome[]> => {
    // Only a miss of a trace here waits for the shared tier; hits here never do.
    const wanted = shared ? sharedWanted(forms) : [];
    const fromShared = shared && wanted.length > 0 ? await readShared(shared, wanted) : NONE_SHARED;
    const startSeq = reorgSeq;
    const finalized = chain.finalized();
    const outcomes: CallOutcome[] = new Array(calls.length);
    const send: BackendCall[] = [];
    const passed: { index: number; sendAt: number }[] = [];
    const missed: Miss[] = [];
    const lookups = new Map<string, Lookup>();
    let anyHit = false;

    const lookupFor = (call: BackendCall): Lookup => {
      const cacheable = classifyCall(call.method, call.params, finalized);
      const id = cacheable?.key ?? `${call.method}|${JSON.stringify(call.params)}`;
      let lookup = lookups.get(id);
      if (lookup) return lookup;
      const entry = cacheable && liveEntry(cacheable.key);
      lookup = entry ? { cacheable, ok: true, value: JSON.parse(entry.text) as unknown } : { cacheable, sendAt: send.push(call) - 1, ok: false };
      lookups.set(id, lookup);
      return lookup;
    };

    for (let i = 0; i < calls.length; i++) {
      const cacheable = forms[i];
      if (!cacheable) {
        passed.push({ index: i, sendAt: send.push(calls[i]!) - 1 });
        continue;
      }
      const sharedText = fromShared.get(cacheable.key);
      const entry = sharedText === undefined ? liveEntry(cacheable.key) : undefined;
      if (!noted) note(cacheable.method, entry !== undefined, ctx, sharedText !== undefined);
      const text = sharedText ?? entry?.text;
      if (text !== undefined) {
        outcomes[i] = { ok: true, result: new RawJson(text) };
        anyHit = true;
        continue;
      }
      const sendAt = send.push(calls[i]!) - 1;
      missed.push({ index: i, cacheable, sendAt, lookup: cacheable.lookup ? lookupFor(cacheable.lookup) : undefined });
    }

    let answers: CallOutcome[];
    try {
      answers = await sendOn(send, ctx);
    } catch (error) {
      // The inner batch failed as a whole: only the calls sent on fail when the cache answered others.
      if (!anyHit) throw error;
      answers = send.map(() => ({ ok: false, error }));
    }
    const answerAt = (k: number): CallOutcome => answers[k] ?? { ok: false, error: new UpstreamBadAnswerError(inner.name, `no outcome for call ${k} of a batch`) };

    for (const lookup of lookups.values()) {
      if (lookup.sendAt === undefined) continue;
      const answer = answerAt(lookup.sendAt);
      if (!answer.ok) continue;
      lookup.ok = true;
      lookup.value = answer.result;
      if (lookup.cacheable) admit(lookup.cacheable, answer.result, undefined, startSeq);
    }
    for (const miss of missed) {
      const answer = answerAt(miss.sendAt);
      outcomes[miss.index] = answer;
      if (!answer.ok || (miss.lookup && !miss.lookup.ok)) continue;
      const text = admit(miss.cacheable, answer.result, miss.lookup?.value, startSeq);
      if (text !== undefined) outcomes[miss.index] = { ok: true, result: new RawJson(text) };
    }
    for (const { index, sendAt } of passed) outcomes[index] = answerAt(sendAt);
    return outcomes;
  };

  /** Misses of single calls being answered now, by key: an identical call meanwhile waits for it. */
  const inFlight = new Map<string, Promise<CallOutcome>>();

  /** One cacheable call; concurrent identical misses share one request to the inner backend. */
  const callOnce = async (cacheable: CacheableCall, call: BackendCall, ctx: RpcContext): Promise<CallOutcome> => {
    const shared = inFlight.get(cacheable.key);
    if (shared) {
      note(cacheable.method, false, ctx);
      const outcome = await shared;
      // The first caller went away (its call was aborted): this one asks on its own.
      if (outcome.ok || !(outcome.error instanceof UpstreamAbortedError) || ctx.signal.aborted) return outcome;
    }
    const running = serve([call], [cacheable], ctx, shared !== undefined).then(
      ([outcome]) => outcome!,
      (error: unknown): CallOutcome => ({ ok: false, error }),
    );
    if (shared) return running;
    inFlight.set(cacheable.key, running);
    try {
      return await running;
    } finally {
      inFlight.delete(cacheable.key);
    }
  };

  const backend: CachingBackend = {
    name: inner.name,
    handles: (method) => inner.handles(method),
    async call(method, params, ctx) {
      const cacheable = classifyCall(method, params, chain.finalized());
      if (!cacheable) return inner.call(method, params, ctx);
      // A hit here is answered at once: no batch bookkeeping, no shared tier, nothing in flight.
      const entry = liveEntry(cacheable.key);
      if (entry !== undefined) {
        note(cacheable.method, true, ctx);
        return new RawJson(entry.text);
      }
      const outcome = await callOnce(cacheable, { method, params }, ctx);
      if (!outcome.ok) throw outcome.error;
      return outcome.result;
    },
    async callBatch(calls, ctx) {
      const finalized = chain.finalized();
      const forms = calls.map((c) => classifyCall(c.method, c.params, finalized));
      if (forms.every((f) => f === undefined) && inner.callBatch) return inner.callBatch(calls, ctx);
      return serve(calls, forms, ctx);
    },
    stats,
    close() {
      unsubscribe();
      untrack?.();
      store.clear();
    },
  };
  if (inner.isReady) backend.isReady = () => inner.isReady!();
  return backend;
}

// The Backend of a network served by several upstreams: each call goes to a healthy upstream able to
// answer its method, tracer, trace types and block, chosen by weight and score; on a retryable
// failure it fails over to the next one within the caller's budget (ctx.signal) and a write is
// never sent twice. Tags are pinned once per batch so a batch sees one head. The pool (probing,
// polling, the canonical view) is networkUpstreams.ts's.
import type { Logger } from 'pino';
import type { Backend, BackendCall, CallOutcome } from '../backend.js';
import type { RpcContext } from '../embedded/methodTable.js';
import { MethodNotFoundError, NoHealthyUpstreamError, RpcError, UpstreamAbortedError, UpstreamBadAnswerError, UpstreamConnectionError, UpstreamError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { quantityToHex } from '../../rpc/hex.js';
import { blockRefsOf, isWriteMethod, namesPinnableTag, pinBlockTags, type TagPins } from './blockParams.js';
import { isMissingStateAnswer, isUnsupportedAnswer } from './probeUpstream.js';
import { canAnswer, hasBlocks, memberState, tracingNeeds, type CallNeeds, type UpstreamMember } from './upstreamMember.js';

/** What the router reads from the pool. */
export interface RoutingView {
  readonly network: string;
  members(): readonly UpstreamMember[];
  /** Current numbers of `latest`, `safe`, `finalized` (the network's view). */
  currentPins(): TagPins;
  expectedChainId(): bigint | undefined;
  canonicalHash(number: bigint): Hex | undefined;
  /** A member answered -32601/"unsupported": re-probe it soon. */
  onUnsupported(member: UpstreamMember): void;
  /** A member answered a block from another fork: the pool re-checks its view. */
  onForkedAnswer(member: UpstreamMember): void;
  readonly maxLagBlocks: number;
  readonly attemptTimeoutMs: number;
  readonly logger: Logger;
  random?: () => number;
}

interface Attempted {
  reasons: string[];
  unsupported: number;
  nodeError?: RpcError;
}

/** Most distinct method names remembered as unsupported per upstream (callers choose the names). */
const MAX_UNSUPPORTED = 256;

function noteUnsupported(member: UpstreamMember, key: string): void {
  if (member.unsupported.size < MAX_UNSUPPORTED) member.unsupported.add(key);
}

/** Failures that prove the request never reached the node, so even a write may go elsewhere. */
function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return error instanceof UpstreamConnectionError && (cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND' || cause?.code === 'EHOSTUNREACH');
}

/**
 * `connection`: the node could not be reached (refused, reset), so a head poll it answers shows it
 * is back. A timeout or a bad answer from a node that is up is `answer`: its cool-down runs out.
 */
export function failureKind(error: unknown): 'connection' | 'answer' {
  return error instanceof UpstreamConnectionError ? 'connection' : 'answer';
}

/**
 * A block that is not the canonical one at its number. The node may be on another fork, or the
 * network's view may be a poll behind a reorg: it is not scored down for it (its head polls judge
 * that), the call goes on to the next upstream, and a second upstream giving the same block wins.
 */
class OffCanonicalAnswer extends UpstreamBadAnswerError {
  constructor(
    label: string,
    readonly blockNumber: bigint,
    readonly hash: string,
  ) {
    super(label, `block ${blockNumber} is not on the network's canonical chain`);
  }
}

export function createRoutedBackend(view: RoutingView): Backend {
  const pinsByRequest = new WeakMap<RpcContext, TagPins>();
  const random = view.random ?? Math.random;

  /**
   * A batch's pins, taken once and kept for every call of the batch, so it sees one head. `latest`
   * is the newer of the pool's polled head and a fresh eth_blockNumber from an upstream, so a batch
   * sent right after a write's receipt still reads at or past that write's block. A single call is
   * never pinned: it passes its tags to the node as they are (no staler than the node itself).
   */
  const pinBatch = async (calls: readonly BackendCall[], ctx: RpcContext): Promise<TagPins | undefined> => {
    if (!calls.some((c) => c.method === 'eth_blockNumber' || namesPinnableTag(c.method, c.params))) return undefined;
    const pins = { ...view.currentPins() };
    try {
      const fresh = BigInt((await routeCall('eth_blockNumber', [], ctx)) as string);
      if (pins.latest === undefined || fresh > pins.latest) pins.latest = fresh;
    } catch {
      // No upstream answered now: the pool's view is the best there is.
    }
    pinsByRequest.set(ctx, pins);
    return pins;
  };

  const needsOf = (method: string, params: unknown): CallNeeds => ({ method, blocks: blockRefsOf(method, params), ...tracingNeeds(method, params) });

  /** The network's canonical head (not the highest any node claims: a lying node must not make the others look lagging). */
  const headNumber = () => view.currentPins().latest;

  /**
   * Members to try, in order: healthy ones (weighted random by weight × score), then the rest that
   * might answer (cooling, lagging, unreachable: soonest back first). Throws when none can.
   */
  const plan = (needsList: readonly CallNeeds[], label: string, exclude?: ReadonlySet<UpstreamMember>): UpstreamMember[] => {
    const members = view.members().filter((m) => !exclude?.has(m));
    const onChain = members.filter((m) => !m.wrongChain);
    const capable = onChain.filter((m) => needsList.every((n) => canAnswer(m, n)));
    if (capable.length === 0) {
      if (onChain.some((m) => m.caps || m.unsupported.size > 0)) {
        const tracer = needsList.length === 1 && needsList[0]!.tracer ? ` with tracer ${needsList[0]!.tracer}` : '';
        const types = needsList.length === 1 && needsList[0]!.traceTypes?.length ? ` with trace types ${needsList[0]!.traceTypes.join(', ')}` : '';
        throw new MethodNotFoundError(label, { message: `Unsupported method: ${label}${tracer}${types} is not supported on network ${view.network}` });
      }
      throw new NoHealthyUpstreamError(view.network, label, members.map((m) => `${m.label} ${m.wrongChain ? 'is on another chain' : (m.probeError ?? 'not probed')}`));
    }
    const head = headNumber();
    const withBlocks = capable.filter((m) => needsList.every((n) => hasBlocks(m, n)));
    const pool = withBlocks.length > 0 ? withBlocks : capable;
    const healthy: UpstreamMember[] = [];
    const rest: UpstreamMember[] = [];
    for (const m of pool) {
      const state = memberState(m, head, view.maxLagBlocks);
      // A lagging member is fine for calls pinned to numbers it has (hasBlocks checked them).
      const pinned = needsList.every((n) => n.blocks.length > 0 && n.blocks.every((b) => b.kind === 'number'));
      if (state === 'healthy' || (state === 'lagging' && pinned)) healthy.push(m);
      else rest.push(m);
    }
    const ordered: UpstreamMember[] = [];
    const weights = healthy.map((m) => m.weight * m.health.preference());
    while (healthy.length > 0) {
      const total = weights.reduce((a, b) => a + b, 0);
      let pick = random() * total;
      let i = 0;
      while (i < healthy.length - 1 && pick >= weights[i]!) pick -= weights[i++]!;
      ordered.push(healthy.splice(i, 1)[0]!);
      weights.splice(i, 1);
    }
    rest.sort((a, b) => a.health.snapshot().coolingUntilMs - b.health.snapshot().coolingUntilMs);
    return [...ordered, ...rest];
  };

  /** Checks answers a wrong node could give: another chain id, a block of another fork. */
  const checkAnswer = (member: UpstreamMember, method: string, params: unknown, result: unknown) => {
    if (method === 'eth_chainId') {
      const expected = view.expectedChainId();
      if (expected !== undefined && (typeof result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(result) || BigInt(result) !== expected)) {
        throw new UpstreamBadAnswerError(member.label, `eth_chainId ${String(result).slice(0, 20)} is not the network's ${quantityToHex(expected)}`);
      }
      return;
    }
    if ((method !== 'eth_getBlockByNumber' && method !== 'eth_getBlockByHash') || result === null || !Array.isArray(params)) return;
    const block = result as { number?: unknown; hash?: unknown };
    if (typeof block !== 'object' || typeof block.hash !== 'string' || typeof block.number !== 'string') throw new UpstreamBadAnswerError(member.label, `${method} answer is not a block`);
    if (method === 'eth_getBlockByHash') {
      if (typeof params[0] === 'string' && block.hash.toLowerCase() !== params[0].toLowerCase()) throw new UpstreamBadAnswerError(member.label, 'eth_getBlockByHash answered another block');
      return;
    }
    if (typeof params[0] === 'string' && /^0x[0-9a-fA-F]+$/.test(params[0]) && BigInt(params[0]) !== BigInt(block.number)) throw new UpstreamBadAnswerError(member.label, 'eth_getBlockByNumber answered another number');
    const canonical = view.canonicalHash(BigInt(block.number));
    if (canonical !== undefined && canonical !== block.hash.toLowerCase()) {
      view.onForkedAnswer(member);
      throw new OffCanonicalAnswer(member.label, BigInt(block.number), block.hash.toLowerCase());
    }
  };

  /** Notes a failed attempt; returns the error to throw at once, or undefined to try the next member. */
  const noteFailure = (member: UpstreamMember, error: unknown, method: string, write: boolean, attempted: Attempted, tracer?: string): unknown => {
    if (error instanceof UpstreamAbortedError) return error;
    if (isUnsupportedAnswer(error)) {
      noteUnsupported(member, tracer && !(error instanceof MethodNotFoundError) ? `${method}/${tracer}` : method);
      view.onUnsupported(member);
      attempted.unsupported++;
      attempted.nodeError = error as RpcError;
      return undefined;
    }
    if (isMissingStateAnswer(error)) {
      // Not the node's fault and not the caller's: another node may keep that state.
      attempted.nodeError = error as RpcError;
      return undefined;
    }
    const retryable = error instanceof RpcError && error.retryable;
    if (!retryable) return error;
    const message = error instanceof RpcError ? error.shortMessage : String(error);
    member.health.recordFailure(message, failureKind(error));
    view.logger.warn({ upstream: member.label, method, error: message }, 'upstream attempt failed');
    if (write && !neverSent(error)) return error;
    attempted.reasons.push(error instanceof UpstreamError ? error.message : `${member.label}: ${message}`);
    if (!(error instanceof UpstreamError)) attempted.nodeError = error as RpcError;
    return undefined;
  };

  const exhausted = (method: string, attempted: Attempted): Error => {
    if (attempted.reasons.length === 0 && attempted.nodeError) {
      if (attempted.nodeError instanceof MethodNotFoundError || isUnsupportedAnswer(attempted.nodeError)) {
        return new MethodNotFoundError(method, { message: `Unsupported method: ${method} is not supported on network ${view.network} (${attempted.nodeError.message})` });
      }
      return attempted.nodeError;
    }
    return new NoHealthyUpstreamError(view.network, method, attempted.reasons);
  };

  /** One attempt; `disputed` collects off-canonical answers, and one seen before is accepted. */
  const callOn = async (member: UpstreamMember, method: string, params: unknown, ctx: RpcContext, disputed: Set<string>): Promise<unknown> => {
    const started = performance.now();
    const result = await member.client.call(method, params, { signal: ctx.signal, timeoutMs: view.attemptTimeoutMs });
    try {
      checkAnswer(member, method, params, result);
    } catch (error) {
      if (!(error instanceof OffCanonicalAnswer)) throw error;
      member.health.recordSuccess(performance.now() - started);
      if (disputed.has(error.hash)) return result;
      disputed.add(error.hash);
      throw error;
    }
    member.health.recordSuccess(performance.now() - started);
    return result;
  };

  const routeCall = async (method: string, rawParams: unknown, ctx: RpcContext, exclude?: ReadonlySet<UpstreamMember>): Promise<unknown> => {
    const batchPins = pinsByRequest.get(ctx);
    const pins = batchPins && (namesPinnableTag(method, rawParams) || method === 'eth_blockNumber') ? batchPins : {};
    if (method === 'eth_blockNumber' && pins.latest !== undefined) return quantityToHex(pins.latest);
    const params = pinBlockTags(method, rawParams, pins);
    const needs = needsOf(method, params);
    const order = plan([needs], method, exclude);
    const write = isWriteMethod(method);
    const attempted: Attempted = { reasons: [], unsupported: 0 };
    const disputed = new Set<string>();
    for (const member of order) {
      if (ctx.signal.aborted) throw new UpstreamAbortedError(member.label);
      try {
        return await callOn(member, method, params, ctx, disputed);
      } catch (error) {
        if (error instanceof OffCanonicalAnswer) {
          attempted.reasons.push(error.message);
          continue;
        }
        const fatal = noteFailure(member, error, method, write, attempted, needs.tracer);
        if (fatal !== undefined) {
          // A node's own answer (a revert, bad params) still shows the node is up.
          if (!(fatal instanceof UpstreamError) && !(fatal instanceof RpcError && fatal.retryable)) member.health.recordSuccess(0);
          throw fatal;
        }
      }
    }
    throw exhausted(method, attempted);
  };

  const routeBatch = async (calls: readonly BackendCall[], ctx: RpcContext): Promise<CallOutcome[]> => {
    const outcomes: (CallOutcome | undefined)[] = new Array(calls.length);
    const pins = await pinBatch(calls, ctx);
    const pinned = calls.map((c) => ({ method: c.method, params: pins && namesPinnableTag(c.method, c.params) ? pinBlockTags(c.method, c.params, pins) : c.params }));
    const single = async (i: number, exclude?: ReadonlySet<UpstreamMember>) => {
      try {
        outcomes[i] = { ok: true, result: await routeCall(pinned[i]!.method, pinned[i]!.params, ctx, exclude) };
      } catch (error) {
        outcomes[i] = { ok: false, error };
      }
    };
    // Writes go alone (never inside a batch that could be resent); eth_blockNumber from the pin.
    const together: number[] = [];
    const alone: number[] = [];
    pinned.forEach((c, i) => (isWriteMethod(c.method) || c.method === 'eth_blockNumber' ? alone : together).push(i));
    let order: UpstreamMember[] = [];
    if (together.length > 1) {
      try {
        order = plan(together.map((i) => needsOf(pinned[i]!.method, pinned[i]!.params)), 'batch');
      } catch {
        order = [];
      }
    }
    const retry: number[] = [];
    let sent = false;
    let refused = false;
    const reasons: string[] = [];
    const tried = new Set<UpstreamMember>();
    for (const member of order) {
      if (ctx.signal.aborted) break;
      tried.add(member);
      const started = performance.now();
      try {
        const answers = await member.client.batch(together.map((i) => pinned[i]!), { signal: ctx.signal, timeoutMs: view.attemptTimeoutMs });
        member.health.recordSuccess(performance.now() - started);
        answers.forEach((answer, k) => {
          const i = together[k]!;
          if (answer.ok) {
            try {
              checkAnswer(member, pinned[i]!.method, pinned[i]!.params, answer.result);
              outcomes[i] = answer;
            } catch (error) {
              if (!(error instanceof OffCanonicalAnswer)) member.health.recordFailure((error as Error).message);
              retry.push(i);
            }
          } else if (isMissingStateAnswer(answer.error)) {
            outcomes[i] = answer;
            retry.push(i);
          } else if (isUnsupportedAnswer(answer.error)) {
            const tracer = needsOf(pinned[i]!.method, pinned[i]!.params).tracer;
            noteUnsupported(member, tracer && !(answer.error instanceof MethodNotFoundError) ? `${pinned[i]!.method}/${tracer}` : pinned[i]!.method);
            view.onUnsupported(member);
            retry.push(i);
          } else {
            // Kept unless another upstream answers it better (a retryable node error).
            outcomes[i] = answer;
            if (answer.error.retryable) retry.push(i);
          }
        });
        sent = true;
        break;
      } catch (error) {
        if (error instanceof UpstreamAbortedError) break;
        if (!(error instanceof UpstreamError)) {
          refused = true; // the node refused the batch as a whole: call one by one
          break;
        }
        reasons.push(error.message);
        member.health.recordFailure(error.shortMessage, failureKind(error));
        view.logger.warn({ upstream: member.label, calls: together.length, error: error.shortMessage }, 'upstream batch attempt failed');
      }
    }
    const others = view.members().some((m) => !tried.has(m) && !m.wrongChain);
    if (!sent && !refused && order.length > 0 && (ctx.signal.aborted || !others)) {
      // Every upstream able to take the batch failed it (or the caller left): no second round one by one.
      const error = ctx.signal.aborted ? new UpstreamAbortedError(view.network) : new NoHealthyUpstreamError(view.network, 'batch', reasons);
      for (const i of together) outcomes[i] = { ok: false, error };
    }
    const pending = sent ? retry : together.filter((i) => !outcomes[i]);
    const again = async (i: number) => {
      const kept = outcomes[i];
      if (sent && kept && !others) return;
      await single(i, sent && others ? tried : undefined);
      const now = outcomes[i];
      if (kept && now && !now.ok && now.error instanceof NoHealthyUpstreamError) outcomes[i] = kept;
    };
    await Promise.all([...pending.map(again), ...alone.map((i) => single(i))]);
    return outcomes.map((o) => o ?? { ok: false, error: new UpstreamAbortedError(view.network) });
  };

  return {
    name: `upstreams:${view.network}`,
    handles: () => true,
    call: (method, params, ctx) => routeCall(method, params, ctx),
    callBatch: (calls, ctx) => routeBatch(calls, ctx),
    isReady: () => view.members().some((m) => m.caps !== undefined && memberState(m, headNumber(), view.maxLagBlocks) === 'healthy'),
  };
}

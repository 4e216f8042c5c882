// One upstream of a network as the pool keeps it (client, probed capabilities, polled head, health)
// and the facts about it the router reads: its state, whether it can answer a call. Probing and
// polling fill it (networkUpstreams.ts); choosing among members is routedBackend.ts's.
import type { Hex } from '../../rpc/hex.js';
import type { JsonRpcClient } from './jsonRpcClient.js';
import type { BlockRef } from './blockParams.js';
import { PROBED_TRACERS, type ProbedTracer, type TraceType, type UpstreamCapabilities } from './probeUpstream.js';
import type { UpstreamHealth } from './upstreamHealth.js';

export type UpstreamState = 'healthy' | 'lagging' | 'cooling' | 'forked' | 'unreachable' | 'wrong-chain';

export interface UpstreamMember {
  readonly index: number;
  /** `<NETWORK>#<index>`: what logs, errors and metrics call it (never the URL). */
  readonly label: string;
  /** Scheme, host and port of the URL, without user info, path or query. */
  readonly origin: string;
  readonly weight: number;
  readonly client: JsonRpcClient;
  readonly health: UpstreamHealth;
  caps?: UpstreamCapabilities;
  /** Last probe's failure, cleared by a successful probe. */
  probeError?: string;
  /** Probed chain id differs from the network's: out until a probe says otherwise. */
  wrongChain: boolean;
  /** Its head is on another fork than the network's canonical view (judged at each poll). */
  forked: boolean;
  head?: { number: bigint; hash: Hex };
  /** Methods (or `method/tracer`) it answered -32601 or "unsupported" to since its last probe. */
  readonly unsupported: Set<string>;
}

/** What a call needs from an upstream. */
export interface CallNeeds {
  method: string;
  /** The geth tracer a debug_trace* call names (`structLogger` when none). */
  tracer?: string;
  /** Parity trace types a trace_* call asks for. */
  traceTypes?: string[];
  blocks: BlockRef[];
}

const TRACER_PARAM: Record<string, number> = { debug_traceTransaction: 1, debug_traceCall: 2, debug_traceBlockByNumber: 1, debug_traceBlockByHash: 1, debug_traceBlock: 1 };
const TRACE_TYPES_PARAM: Record<string, number> = { trace_call: 1, trace_replayTransaction: 1, trace_replayBlockTransactions: 1, trace_rawTransaction: 1 };

/** The tracer and trace types a call names (beside its blocks, which blockParams.ts finds). */
export function tracingNeeds(method: string, params: unknown): Pick<CallNeeds, 'tracer' | 'traceTypes'> {
  if (!Array.isArray(params)) return {};
  const tracerAt = TRACER_PARAM[method];
  if (tracerAt !== undefined) {
    const config = params[tracerAt] as { tracer?: unknown } | undefined;
    const tracer = typeof config === 'object' && config !== null && typeof config.tracer === 'string' ? config.tracer : 'structLogger';
    return { tracer };
  }
  const typesAt = TRACE_TYPES_PARAM[method];
  if (typesAt !== undefined && Array.isArray(params[typesAt])) return { traceTypes: (params[typesAt] as unknown[]).filter((t): t is string => typeof t === 'string') };
  if (method === 'trace_callMany' && Array.isArray(params[0])) {
    const types = new Set<string>();
    for (const entry of params[0] as unknown[]) if (Array.isArray(entry) && Array.isArray(entry[1])) for (const t of entry[1]) if (typeof t === 'string') types.add(t);
    return { traceTypes: [...types] };
  }
  return {};
}

/** Whether the member can answer the call's method, tracer and trace types (unknown counts as yes). */
export function canAnswer(member: UpstreamMember, needs: CallNeeds): boolean {
  if (member.unsupported.has(needs.method)) return false;
  if (needs.tracer && member.unsupported.has(`${needs.method}/${needs.tracer}`)) return false;
  const caps = member.caps;
  if (!caps) return true;
  if (caps.methods[needs.method] === false) return false;
  if (needs.tracer && (PROBED_TRACERS as readonly string[]).includes(needs.tracer) && caps.tracers[needs.tracer as ProbedTracer] === false) return false;
  if (needs.traceTypes?.some((t) => caps.traceTypes[t as TraceType] === false)) return false;
  return true;
}

/**
 * Whether the member holds the blocks the call names: its head is not below a named number, and a
 * state read is not older than the state it keeps. Unknown facts count as yes.
 */
export function hasBlocks(member: UpstreamMember, needs: CallNeeds): boolean {
  for (const ref of needs.blocks) {
    if (ref.kind !== 'number') continue;
    if (member.head && member.head.number < ref.number) return false;
    const from = member.caps?.stateFrom;
    if (ref.state && from !== undefined && ref.number < from) return false;
  }
  return true;
}

/** The member's state for routing and status rows. */
export function memberState(member: UpstreamMember, networkHead: bigint | undefined, maxLagBlocks: number): UpstreamState {
  if (member.wrongChain) return 'wrong-chain';
  if (!member.caps && member.probeError) return 'unreachable';
  if (member.health.isCooling()) return 'cooling';
  if (member.forked) return 'forked';
  if (networkHead !== undefined && member.head && networkHead - member.head.number > BigInt(maxLagBlocks)) return 'lagging';
  return 'healthy';
}

// trace_filter: Parity trace entries over a block range, filtered by sender and recipient
// addresses (both lists must match when both are given), then `after` entries skipped and at most
// `count` returned. The range is capped so one request cannot replay the whole chain.
import type { ParityTraceEntry } from '../../engine/render/parityTrace.js';
import { rawJsonToValue } from '../../rpc/rawJson.js';
import { InvalidParamsError, LimitExceededError } from '../../rpc/errors.js';
import type { TraceFilterObject, traceSchema } from '../../rpc/schema/trace.js';
import type { BlockTag } from '../../rpc/schema/primitives.js';
import type { MethodHandler } from './methodTable.js';
import { blockTraceEntries } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

/** Most blocks one trace_filter request may span. */
export const TRACE_FILTER_MAX_BLOCKS = 10_000n;

type Entry = ParityTraceEntry & { action: Record<string, string>; result: Record<string, string> | null };

function addressesOf(entry: Entry): { from: string | undefined; to: string | undefined } {
  const { action, result } = entry;
  if (entry.type === 'suicide') return { from: action.address, to: action.refundAddress };
  if (entry.type === 'create') return { from: action.from, to: result?.address };
  return { from: action.from, to: action.to };
}

function matches(entry: Entry, filter: TraceFilterObject): boolean {
  const { from, to } = addressesOf(entry);
  if (filter.fromAddress?.length && !(from && filter.fromAddress.includes(from as `0x${string}`))) return false;
  if (filter.toAddress?.length && !(to && filter.toAddress.includes(to as `0x${string}`))) return false;
  return true;
}

export function trace_filter({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_filter']> {
  const numberOf = async (tag: BlockTag | undefined, fallback: bigint): Promise<bigint> => {
    if (tag === undefined) return fallback;
    const block = await tracer.requireBlock(typeof tag === 'bigint' ? { kind: 'number', number: tag } : { kind: 'tag', tag });
    return block.header.number;
  };
  return async ([filter], ctx) => {
    const head = tracer.chain.headNumber();
    const from = await numberOf(filter.fromBlock, 0n);
    const to = await numberOf(filter.toBlock, head);
    if (from > to) throw new InvalidParamsError(`trace_filter: fromBlock ${from} is after toBlock ${to}`);
    if (to - from + 1n > TRACE_FILTER_MAX_BLOCKS) {
      throw new LimitExceededError(`trace_filter: the range spans ${to - from + 1n} blocks; at most ${TRACE_FILTER_MAX_BLOCKS} are allowed`, { beforeWork: true });
    }
    const after = Number(filter.after ?? 0n);
    const count = filter.count === undefined ? Infinity : Number(filter.count);
    const out: ParityTraceEntry[] = [];
    let skipped = 0;
    for (let n = from; n <= to && out.length < count; n++) {
      const block = await tracer.chain.getBlockByNumber(n);
      if (!block || block.transactions.length === 0) continue;
      for (const entry of rawJsonToValue<ParityTraceEntry[]>(await blockTraceEntries(tracer, block, ctx))) {
        if (!matches(entry as Entry, filter)) continue;
        if (skipped < after) {
          skipped++;
          continue;
        }
        out.push(entry);
        if (out.length >= count) break;
      }
    }
    return out;
  };
}

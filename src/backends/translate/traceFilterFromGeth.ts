// trace_filter from a geth-family node: trace_block's translation (parityFromGeth.ts) over a block
// range, entries filtered by sender and recipient (both lists must match when both are given; a
// create matches on the new address, a suicide on `address`/`refundAddress`), then `after`
// entries skipped and at most `count` kept, as the embedded engine's trace_filter does
// (docs/trace-conventions.md, "Parity methods"). The range is capped the same way.
import { InvalidParamsError, LimitExceededError } from '../../rpc/errors.js';
import { traceBlockFromGeth } from './parityFromGeth.js';
import type { Translation } from './translation.js';
import type { Upstream } from './upstreamFacts.js';

/** Most blocks one request may span (the embedded engine's TRACE_FILTER_MAX_BLOCKS). */
const MAX_BLOCKS = 10_000n;

type Entry = { type: string; action: Record<string, string>; result: Record<string, string> | null };

function addressesOf(entry: Entry): [string | undefined, string | undefined] {
  if (entry.type === 'suicide') return [entry.action.address, entry.action.refundAddress];
  if (entry.type === 'create') return [entry.action.from, entry.result?.address];
  return [entry.action.from, entry.action.to];
}

function addressList(value: unknown, name: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((a) => typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a))) {
    throw new InvalidParamsError(`trace_filter: ${name} must be a list of addresses`);
  }
  return value.length === 0 ? undefined : new Set(value.map((a: string) => a.toLowerCase()));
}

function count(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) return Number(BigInt(value));
  throw new InvalidParamsError(`trace_filter: ${name} must be a quantity`);
}

async function blockNumber(upstream: Upstream, tag: unknown, fallback: () => Promise<bigint>, name: string): Promise<bigint> {
  if (tag === undefined) return fallback();
  if (typeof tag !== 'string') throw new InvalidParamsError(`trace_filter: ${name} must be a block number or tag`);
  if (/^0x[0-9a-fA-F]+$/.test(tag)) return BigInt(tag);
  if (tag === 'earliest') return 0n;
  const block = (await upstream('eth_getBlockByNumber', [tag === 'pending' ? 'latest' : tag, false])) as { number?: string } | null;
  if (!block?.number) throw new InvalidParamsError(`trace_filter: ${name} ${tag} names no block`);
  return BigInt(block.number);
}

export const traceFilterFromGeth: Translation = {
  method: 'trace_filter',
  from: 'geth',
  requires: [{ method: 'eth_blockNumber' }, ...traceBlockFromGeth.requires],
  optional: traceBlockFromGeth.optional,
  accepts: () => true,
  async run(params, upstream) {
    const filter = params[0];
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw new InvalidParamsError('trace_filter: the filter must be an object');
    const f = filter as Record<string, unknown>;
    const head = async (): Promise<bigint> => BigInt((await upstream('eth_blockNumber', [])) as string);
    const from = await blockNumber(upstream, f.fromBlock, async () => 0n, 'fromBlock');
    const to = await blockNumber(upstream, f.toBlock, head, 'toBlock');
    if (from > to) throw new InvalidParamsError(`trace_filter: fromBlock ${from} is after toBlock ${to}`);
    if (to - from + 1n > MAX_BLOCKS) throw new LimitExceededError(`trace_filter: the range spans ${to - from + 1n} blocks; at most ${MAX_BLOCKS} are allowed`, { beforeWork: true });
    const fromAddress = addressList(f.fromAddress, 'fromAddress');
    const toAddress = addressList(f.toAddress, 'toAddress');
    const after = count(f.after, 'after') ?? 0;
    const limit = count(f.count, 'count') ?? Infinity;
    const out: unknown[] = [];
    let skipped = 0;
    for (let n = from; n <= to && out.length < limit; n++) {
      const entries = (await traceBlockFromGeth.run([`0x${n.toString(16)}`], upstream)) as Entry[] | null;
      for (const entry of entries ?? []) {
        const [sender, recipient] = addressesOf(entry);
        if (fromAddress && !(sender && fromAddress.has(sender))) continue;
        if (toAddress && !(recipient && toAddress.has(recipient))) continue;
        if (skipped < after) {
          skipped++;
          continue;
        }
        out.push(entry);
        if (out.length >= limit) break;
      }
    }
    return out;
  },
};

// eth_getLogs over the canonical chain: the SQLite log index narrows candidates by block range,
// address and topics; the logs themselves come from the stored receipts.
import type { Block } from '@ethereumjs/block';
import { LimitExceededError } from '../../rpc/errors.js';
import type { ChainCore } from './chainCore.js';
import type { ChainLog, ChainView } from './types.js';

export interface LogFilter {
  fromBlock: bigint;
  toBlock: bigint;
  /** Any of these addresses; undefined or empty = any. */
  addresses?: Uint8Array[];
  /** Per topic position: null/empty = any, else any of the listed values. */
  topics?: (Uint8Array[] | null)[];
}

/** A log with the position fields of the RPC log object. */
export interface LogEntry extends ChainLog {
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
}

/** Logs of one block, in order, optionally restricted to some log indexes. */
export async function blockLogEntries(source: Pick<ChainView, 'getReceipts'>, block: Block, only?: Set<number>): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  for (const receipt of await source.getReceipts(block.hash())) {
    for (const log of receipt.logs) {
      if (only && !only.has(log.logIndex)) continue;
      entries.push({
        ...log,
        blockNumber: block.header.number,
        blockHash: receipt.blockHash,
        blockTimestamp: block.header.timestamp,
        transactionHash: receipt.transactionHash,
        transactionIndex: receipt.transactionIndex,
      });
    }
  }
  return entries;
}

/**
 * Matching logs in [fromBlock, toBlock] (clamped to the head). Throws LimitExceededError when the
 * range is wider than the configured maximum.
 */
export async function queryLogs(core: ChainCore, filter: LogFilter): Promise<LogEntry[]> {
  const head = core.headNumber();
  const to = filter.toBlock > head ? head : filter.toBlock;
  if (filter.fromBlock > to) return [];
  const span = to - filter.fromBlock + 1n;
  if (span > BigInt(core.config.maxLogBlockRange)) {
    throw new LimitExceededError(
      `eth_getLogs: block range of ${span} blocks exceeds the limit of ${core.config.maxLogBlockRange}; narrow fromBlock/toBlock`,
      { beforeWork: true },
    );
  }
  const positions = core.blocks.queryLogs({
    fromBlock: filter.fromBlock,
    toBlock: to,
    addresses: filter.addresses?.length ? filter.addresses : undefined,
    topics: (filter.topics ?? []).map((t) => (t && t.length ? t : null)),
  });
  const byBlock = new Map<bigint, Set<number>>();
  for (const p of positions) {
    let set = byBlock.get(p.blockNumber);
    if (!set) byBlock.set(p.blockNumber, (set = new Set()));
    set.add(p.logIndex);
  }
  const out: LogEntry[] = [];
  for (const [number, indexes] of byBlock) {
    const block = await core.getBlockByNumber(number);
    if (block) out.push(...(await blockLogEntries(core, block, indexes)));
  }
  return out;
}

// The objects the Custom webhook schema resolves over: one block's transactions, logs and flattened
// call frames, indexed once per block and shared by every Custom webhook, plus the filters
// (eth_getLogs-style topics, from/to address criteria).
import type { Hex } from '../../rpc/hex.js';
import type { BlockData, CallFrame, RpcLog } from '../extract/blockData.js';

/** Loads another block (for `parent`); undefined when the source no longer has it. */
export type BlockLoader = (hash: Hex) => Promise<BlockData | undefined>;

/** Counts what a result holds while it is built (see customQuery.ts). */
export interface ResultMeter {
  /** Set once the result passed its budget; resolvers then stop descending. */
  readonly exceeded: boolean;
  add(fieldName: string, value: unknown): void;
}

export interface GraphqlContext {
  loadBlock: BlockLoader;
  meter?: ResultMeter;
}

export interface BlockNode {
  data: BlockData;
  /** Flattened call frames in depth-first order (empty when the source cannot trace). */
  traces: TraceNode[];
  logs: LogNode[];
  /** The same logs by transaction index. */
  logsByTx: LogNode[][];
}

export interface TransactionNode {
  block: BlockNode;
  index: number;
}

export interface LogNode {
  block: BlockNode;
  txIndex: number;
  log: RpcLog;
}

export interface TraceNode {
  block: BlockNode;
  txIndex: number;
  frame: CallFrame;
  /** Child positions from the transaction's top frame; [] for the top frame itself. */
  path: number[];
}

export function createBlockNode(data: BlockData): BlockNode {
  const node: BlockNode = { data, traces: [], logs: [], logsByTx: [] };
  data.receipts.forEach((receipt, txIndex) => {
    const own: LogNode[] = [];
    for (const log of receipt.logs) own.push({ block: node, txIndex, log });
    node.logs.push(...own);
    node.logsByTx.push(own);
  });
  data.callFrames?.forEach((frame, txIndex) => walk(frame, [], txIndex));
  function walk(frame: CallFrame, path: number[], txIndex: number): void {
    node.traces.push({ block: node, txIndex, frame, path });
    frame.calls?.forEach((child, k) => walk(child, [...path, k], txIndex));
  }
  return node;
}

/** `{from, to}` criteria: an entry matches when each non-empty list contains the address. */
export interface AddressCriteria {
  from?: readonly string[] | null;
  to?: readonly string[] | null;
}

/** Pre-lowers criteria lists into sets once per query execution. */
export function compileAddressCriteria(criteria: readonly AddressCriteria[] | null | undefined): ((from: string, to: string | null) => boolean) | null {
  if (!criteria || criteria.length === 0) return null;
  const compiled = criteria.map((c) => ({
    from: c.from && c.from.length ? new Set(c.from.map((a) => a.toLowerCase())) : null,
    to: c.to && c.to.length ? new Set(c.to.map((a) => a.toLowerCase())) : null,
  }));
  return (from, to) => {
    const f = from.toLowerCase();
    const t = to?.toLowerCase() ?? null;
    return compiled.some((c) => (!c.from || c.from.has(f)) && (!c.to || (t !== null && c.to.has(t))));
  };
}

export interface LogFilter {
  addresses?: readonly string[] | null;
  topics?: readonly (readonly string[])[] | null;
}

/** eth_getLogs semantics: any listed address; per position, any listed topic (empty = anything). */
export function compileLogFilter(filter: LogFilter | null | undefined): (log: RpcLog) => boolean {
  const addresses = filter?.addresses?.length ? new Set(filter.addresses.map((a) => a.toLowerCase())) : null;
  const topics = (filter?.topics ?? []).map((position) => (position.length ? new Set(position.map((t) => t.toLowerCase())) : null));
  return (log) => {
    if (addresses && !addresses.has(log.address.toLowerCase())) return false;
    for (let i = 0; i < topics.length; i++) {
      const wanted = topics[i];
      if (!wanted) continue;
      const topic = log.topics[i];
      if (topic === undefined || !wanted.has(topic.toLowerCase())) return false;
    }
    return true;
  };
}

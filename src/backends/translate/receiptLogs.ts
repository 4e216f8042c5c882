// A receipt's logs placed into a record parsed from Parity entries (which carry none), where the
// placement is certain: geth's callTracer `withLog` shows exactly the receipt's logs (a failed
// frame's are gone from both), each under the frame that emitted it with its `position` (calls
// made before it). A log can be placed when exactly one frame that did not fail runs as its
// address, and that frame made no calls (so its position is 0); otherwise the logs stay a gap.
import type { ExecutionRecord, RecordedLog } from '../../engine/record/types.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { bytesToHex } from '../../rpc/hex.js';
import { address, bytes } from './txFacts.js';

/** Fills `record.logs` and the frames' log lists from the receipt's logs; false (record unchanged) when any placement is uncertain. */
export function placeReceiptLogs(record: ExecutionRecord, receiptLogs: readonly unknown[]): boolean {
  if (receiptLogs.length === 0) return true;
  const alive = (index: number): boolean => {
    for (let i = index; i >= 0; i = record.frames[i]!.parent) if (record.frames[i]!.error) return false;
    return true;
  };
  const byContext = new Map<string, number[]>();
  record.frames.forEach((frame, i) => {
    if (frame.kind === 'SELFDESTRUCT' || !frame.contextAddress || !alive(i)) return;
    const key = bytesToHex(frame.contextAddress);
    byContext.set(key, [...(byContext.get(key) ?? []), i]);
  });
  const placed: RecordedLog[] = [];
  for (const [i, raw] of receiptLogs.entries()) {
    if (typeof raw !== 'object' || raw === null) throw new UpstreamTraceMalformedError('eth_getTransactionReceipt', `logs[${i}] is not an object`);
    const log = raw as { address?: unknown; topics?: unknown; data?: unknown };
    if (!Array.isArray(log.topics)) throw new UpstreamTraceMalformedError('eth_getTransactionReceipt', `logs[${i}].topics is not a list`);
    const from = address(log.address, 'address');
    const candidates = byContext.get(bytesToHex(from)) ?? [];
    if (candidates.length !== 1 || record.frames[candidates[0]!]!.children.length > 0) return false;
    placed.push({ frame: candidates[0]!, address: from, topics: log.topics.map((t) => bytes(t, 'topics')), data: bytes(log.data, 'data'), position: 0, indexInTx: i });
  }
  record.logs = placed;
  for (const frame of record.frames) frame.logs = [];
  placed.forEach((log, i) => record.frames[log.frame]!.logs.push(i));
  return true;
}

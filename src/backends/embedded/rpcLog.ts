// Converts chain log entries to JSON-RPC log objects (the eth_getLogs and receipt shape).
import type { LogEntry } from '../../engine/chain/logQuery.js';
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';

export function logEntryToRpc(entry: LogEntry): Record<string, unknown> {
  return {
    address: bytesToHex(entry.address),
    topics: entry.topics.map(bytesToHex),
    data: bytesToHex(entry.data),
    blockHash: bytesToHex(entry.blockHash),
    blockNumber: quantityToHex(entry.blockNumber),
    blockTimestamp: quantityToHex(entry.blockTimestamp),
    transactionHash: bytesToHex(entry.transactionHash),
    transactionIndex: quantityToHex(entry.transactionIndex),
    logIndex: quantityToHex(entry.logIndex),
    removed: false,
  };
}

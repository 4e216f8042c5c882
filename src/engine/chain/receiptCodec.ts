// Compact storage form of a block's receipts (one RLP blob per block) and its expansion into
// ChainReceipt objects. Fields derivable from the block (hashes, indexes, type, to) are not stored.
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import type { ChainLog, ChainReceipt } from './types.js';

/** What the chain records per transaction when it mines a block. */
export interface ReceiptRecord {
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress: Uint8Array | undefined;
  from: Uint8Array;
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[];
}

/** RLP of all receipts of one block. */
export function receiptRecordsToBytes(records: readonly ReceiptRecord[]): Uint8Array {
  return RLP.encode(
    records.map((r) => [
      bigIntToUnpaddedBytes(BigInt(r.status)),
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      bigIntToUnpaddedBytes(r.effectiveGasPrice),
      r.contractAddress ?? new Uint8Array(0),
      r.from,
      r.logs.map((l) => [l.address, l.topics, l.data]),
    ]),
  );
}

/** Decodes a stored receipts blob. */
export function bytesToReceiptRecords(bytes: Uint8Array): ReceiptRecord[] {
  const rows = RLP.decode(bytes) as unknown as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, [Uint8Array, Uint8Array[], Uint8Array][]][];
  return rows.map(([status, cumulative, gasUsed, price, contract, from, logs]) => ({
    status: bytesToBigInt(status) === 1n ? 1 : 0,
    cumulativeGasUsed: bytesToBigInt(cumulative),
    gasUsed: bytesToBigInt(gasUsed),
    effectiveGasPrice: bytesToBigInt(price),
    contractAddress: contract.length === 0 ? undefined : contract,
    from,
    logs: logs.map(([address, topics, data]) => ({ address, topics, data })),
  }));
}

/** 256-byte bloom over the addresses and topics of some logs. */
export function logsToBloom(logs: readonly { address: Uint8Array; topics: Uint8Array[] }[], common: Common): Uint8Array {
  const bloom = new Bloom(undefined, common);
  for (const log of logs) {
    bloom.add(log.address);
    for (const topic of log.topics) bloom.add(topic);
  }
  return bloom.bitvector;
}

/** Joins stored receipt records with their block into full ChainReceipt objects. */
export function receiptRecordsToChainReceipts(block: Block, records: readonly ReceiptRecord[], common: Common): ChainReceipt[] {
  const blockHash = block.hash();
  let logIndex = 0;
  return records.map((record, i) => {
    const tx = block.transactions[i]!;
    const logs: ChainLog[] = record.logs.map((l) => ({ ...l, logIndex: logIndex++ }));
    return {
      transactionHash: tx.hash(),
      transactionIndex: i,
      blockHash,
      blockNumber: block.header.number,
      type: tx.type,
      from: record.from,
      to: tx.to?.bytes,
      status: record.status,
      cumulativeGasUsed: record.cumulativeGasUsed,
      gasUsed: record.gasUsed,
      effectiveGasPrice: record.effectiveGasPrice,
      contractAddress: record.contractAddress,
      logs,
      logsBloom: logsToBloom(record.logs, common),
    };
  });
}

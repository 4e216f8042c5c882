// Execution records of mined transactions, kept in memory so the first trace of a mined transaction
// renders instead of replaying its block. The miner stages a built block's records; they enter the
// store only when that block becomes the head, leave it when the block leaves the chain, and the
// oldest blocks are evicted first when an estimate of their size passes the byte budget.
import type { Block } from '@ethereumjs/block';
import { flatHex } from '../state/flatHex.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import type { HeadEvent } from './types.js';

/**
 * What the miner records: frames and logs, no state, no steps (the cheap opcode hook only). Past
 * 1 MiB of call data in one transaction (calls can pass their caller's whole memory for little
 * gas) frames keep no more input and the record is not kept: its traces replay in a worker under
 * their caps, rather than render megabytes of hex on the main thread.
 */
export const MINED_RECORD_NEEDS: RecordNeeds = { state: false, steps: undefined, frames: { kind: 'drop', maxBytes: 1024 * 1024 } };

/** A mined transaction's record and where it sits in the block it was recorded in. */
export interface MinedRecord {
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** Position of the transaction in its block. */
  index: number;
  /** Block-level index of the transaction's first log (the logs of the receipts before it). */
  logIndexOffset: number;
  record: ExecutionRecord;
}

export interface MinedRecordStoreStats {
  blocks: number;
  transactions: number;
  /** Estimated size of the stored records (see {@link estimateRecordBytes}). */
  bytes: number;
  maxBytes: number;
  /** Blocks evicted for the byte budget since the store was created. */
  evictedBlocks: number;
}

export interface MinedRecordStore {
  /**
   * Holds the records of a block the miner just built (`records[i]` and `receipts[i]` belong to
   * `block.transactions[i]`) until it becomes the head (several blocks may be staged while earlier
   * ones are being written).
   */
  stage(block: Block, records: readonly ExecutionRecord[], receipts: readonly { logs: readonly unknown[] }[]): void;
  /** Forgets the staged blocks (their builds were reset and will not be committed). */
  discardStaged(): void;
  /** Applies a head change: stores the staged block if it is the new head, drops removed blocks. */
  onHead(event: HeadEvent): void;
  /** The record of mined transaction `txHash`, or undefined (never recorded, evicted or removed). */
  get(txHash: Uint8Array): MinedRecord | undefined;
  stats(): MinedRecordStoreStats;
}

export interface MinedRecordStoreOptions {
  /** Byte budget for the estimated size of all stored records (at least 1). */
  maxBytes: number;
}

interface StoredBlock {
  blockHash: Uint8Array;
  txKeys: string[];
  bytes: number;
}

// Rough V8 costs: an object with its fields (bigints included), a Uint8Array view with its
// buffer, an array slot, and per record the store's own entry (hex key, map slot). Calibrated on
// ERC-20 transfers (one frame, one log): the estimate is 4.9 kB, the heap and external memory
// grew by 5.4 kB per stored record.
const OBJECT_BYTES = 200;
const BYTES_OVERHEAD = 160;
const SLOT_BYTES = 8;
const ENTRY_BYTES = 1000;

const bytesSize = (b: Uint8Array | undefined): number => (b ? BYTES_OVERHEAD + b.length : 0);

/**
 * Estimated heap size of a frames-and-logs record, in bytes: per-object and per-byte-array
 * overheads plus the byte contents (call data, return data, log data). Records with state or
 * steps are never stored, so those parts are not counted.
 */
export function estimateRecordBytes(record: ExecutionRecord): number {
  const { tx } = record;
  let bytes = ENTRY_BYTES + 2 * OBJECT_BYTES + bytesSize(tx.from) + bytesSize(tx.to) + bytesSize(tx.output) + bytesSize(tx.createdAddress);
  for (const frame of record.frames) {
    bytes += OBJECT_BYTES + bytesSize(frame.from) + bytesSize(frame.to) + bytesSize(frame.contextAddress) + bytesSize(frame.input) + bytesSize(frame.output);
    bytes += 2 * OBJECT_BYTES + SLOT_BYTES * (frame.children.length + frame.logs.length) + (frame.error ? OBJECT_BYTES + frame.error.message.length : 0);
  }
  for (const log of record.logs) {
    bytes += 2 * OBJECT_BYTES + bytesSize(log.address) + bytesSize(log.data);
    for (const topic of log.topics) bytes += SLOT_BYTES + bytesSize(topic);
  }
  return bytes;
}

/** Creates an empty store; subscribe its `onHead` to the chain's head events. */
export function createMinedRecordStore(options: MinedRecordStoreOptions): MinedRecordStore {
  const maxBytes = Math.max(1, options.maxBytes);
  const byTx = new Map<string, MinedRecord>();
  // Insertion order is mining order: the first entry is the oldest block.
  const blocks = new Map<string, StoredBlock>();
  let bytes = 0;
  let evictedBlocks = 0;
  // Built blocks not yet the head, by hash: more than one while earlier blocks are being written.
  const staged = new Map<string, { block: Block; records: readonly ExecutionRecord[]; logIndexOffsets: number[] }>();

  function removeBlock(key: string): void {
    const stored = blocks.get(key);
    if (!stored) return;
    blocks.delete(key);
    bytes -= stored.bytes;
    for (const txKey of stored.txKeys) if (byTx.get(txKey)?.blockHash === stored.blockHash) byTx.delete(txKey);
  }

  function add(block: Block, records: readonly ExecutionRecord[], logIndexOffsets: readonly number[]): void {
    const blockHash = block.hash();
    const key = flatHex(blockHash);
    removeBlock(key);
    const size = records.reduce((sum, r) => sum + estimateRecordBytes(r), 0);
    if (records.length === 0 || size > maxBytes || records.some((r) => r.incomplete)) return;
    while (bytes + size > maxBytes) {
      const oldest = blocks.keys().next().value as string;
      removeBlock(oldest);
      evictedBlocks++;
    }
    const txKeys = block.transactions.map((tx) => flatHex(tx.hash()));
    const blockNumber = block.header.number;
    txKeys.forEach((txKey, i) => byTx.set(txKey, { blockHash, blockNumber, index: i, logIndexOffset: logIndexOffsets[i]!, record: records[i]! }));
    blocks.set(key, { blockHash, txKeys, bytes: size });
    bytes += size;
  }

  return {
    stage(block, records, receipts) {
      if (records.length !== block.transactions.length || receipts.length !== block.transactions.length) {
        throw new Error(`staged ${records.length} records and ${receipts.length} receipts for ${block.transactions.length} transactions`);
      }
      const logIndexOffsets: number[] = [];
      let logs = 0;
      for (const receipt of receipts) {
        logIndexOffsets.push(logs);
        logs += receipt.logs.length;
      }
      staged.set(flatHex(block.hash()), { block, records, logIndexOffsets });
    },
    discardStaged() {
      staged.clear();
    },
    onHead(event) {
      for (const gone of event.removed) removeBlock(flatHex(gone.hash()));
      if (event.removed.length > 0) {
        staged.clear();
        return;
      }
      const key = flatHex(event.block.hash());
      const pending = staged.get(key);
      staged.delete(key);
      if (pending) add(pending.block, pending.records, pending.logIndexOffsets);
    },
    get(txHash) {
      return byTx.get(flatHex(txHash));
    },
    stats() {
      return { blocks: blocks.size, transactions: byTx.size, bytes, maxBytes, evictedBlocks };
    },
  };
}

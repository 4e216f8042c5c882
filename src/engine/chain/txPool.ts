// Transactions waiting for the next block in interval-mining mode, in arrival order, with the
// per-sender count that makes the "pending" nonce.
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToUnprefixedHex } from '@ethereumjs/util';

export interface PooledTransaction {
  tx: TypedTransaction;
  /** Sender address, lowercase hex without prefix. */
  sender: string;
}

export interface TxPool {
  add(tx: TypedTransaction, senderHex: string): void;
  /** All pooled transactions in arrival order. */
  all(): PooledTransaction[];
  get(hash: Uint8Array): PooledTransaction | undefined;
  /** How many pooled transactions `senderHex` has. */
  countFrom(senderHex: string): number;
  /** Keeps only the given transactions (after a block took the rest). */
  retain(keep: readonly TypedTransaction[]): void;
  clear(): void;
}

export function createTxPool(): TxPool {
  let entries: PooledTransaction[] = [];
  const byHash = new Map<string, PooledTransaction>();
  return {
    add(tx, sender) {
      const entry = { tx, sender };
      entries.push(entry);
      byHash.set(bytesToUnprefixedHex(tx.hash()), entry);
    },
    all: () => [...entries],
    get: (hash) => byHash.get(bytesToUnprefixedHex(hash)),
    countFrom: (sender) => entries.filter((e) => e.sender === sender).length,
    retain(keep) {
      const kept = new Set(keep);
      entries = entries.filter((e) => kept.has(e.tx));
      byHash.clear();
      for (const e of entries) byHash.set(bytesToUnprefixedHex(e.tx.hash()), e);
    },
    clear() {
      entries = [];
      byHash.clear();
    },
  };
}

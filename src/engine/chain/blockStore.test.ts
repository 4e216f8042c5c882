// Block store: canonical index, transaction index, receipts and the log index, and their removal
// when blocks leave the canonical chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Block, createBlock } from '@ethereumjs/block';
import { createTx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createBlockStore } from './blockStore.js';
import { createBlockStoreReads } from './blockStoreReads.js';
import { createChainCommon } from './chainConfig.js';
import { deriveDevAccounts } from './devAccounts.js';
import type { ReceiptRecord } from './receiptCodec.js';

const common = createChainCommon(31337n, 'prague');
const [alice] = deriveDevAccounts('test test test test test test test test test test test junk', 1);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const A = hexToBytes(`0x${'aa'.repeat(20)}`);
const B = hexToBytes(`0x${'bb'.repeat(20)}`);
const T1 = hexToBytes(`0x${'01'.repeat(32)}`);
const T2 = hexToBytes(`0x${'02'.repeat(32)}`);

function block(number: bigint, nonces: bigint[], parentHash: Uint8Array = new Uint8Array(32)): Block {
  const transactions = nonces.map((nonce) =>
    createTx({ type: 2, nonce, gasLimit: 21_000n, to: A, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n }, { common }).sign(alice!.privateKey),
  );
  return createBlock({ header: { number, parentHash, baseFeePerGas: 1n, gasLimit: 30_000_000n }, transactions, withdrawals: [] }, { common });
}

function receipt(logs: ReceiptRecord['logs']): ReceiptRecord {
  return { status: 1, cumulativeGasUsed: 21_000n, gasUsed: 21_000n, effectiveGasPrice: 1n, contractAddress: undefined, from: alice!.address.bytes, logs };
}

function openStore(options: { cacheReceiptBlocks?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'block-store-'));
  dirs.push(dir);
  const db = new Database(join(dir, 'b.sqlite'));
  return Object.assign(createBlockStore({ db, common, ...options }), { db });
}

describe('block store', () => {
  it('default: stores blocks with receipts, indexes transactions by hash and numbers canonically', () => {
    const store = openStore();
    const b1 = block(1n, [0n, 1n]);
    store.putCanonicalBlock(b1, [receipt([{ address: A, topics: [T1], data: new Uint8Array([1]) }]), receipt([])]);
    expect(bytesToHex(store.canonicalHash(1n)!)).toBe(bytesToHex(b1.hash()));
    expect(store.highestCanonical()).toBe(1n);
    expect(store.getTxLocation(b1.transactions[1]!.hash())).toEqual({ blockHash: b1.hash(), blockNumber: 1n, index: 1 });
    const records = store.getReceiptRecords(b1.hash())!;
    expect(records[0]!.logs[0]).toEqual({ address: A, topics: [T1], data: new Uint8Array([1]) });
    expect(bytesToHex(store.getBlockByHash(b1.hash())!.serialize())).toBe(bytesToHex(b1.serialize()));
  });

  it('behavior: the log index filters by range, address list and topics with OR sets', () => {
    const store = openStore();
    store.putCanonicalBlock(block(1n, [0n]), [receipt([{ address: A, topics: [T1, T2], data: new Uint8Array() }, { address: B, topics: [T2], data: new Uint8Array() }])]);
    store.putCanonicalBlock(block(2n, [1n]), [receipt([{ address: B, topics: [T1], data: new Uint8Array() }])]);
    const q = (query: Partial<Parameters<typeof store.queryLogs>[0]>) => store.queryLogs({ fromBlock: 0n, toBlock: 9n, topics: [], ...query }).map((p) => `${p.blockNumber}:${p.logIndex}`);
    expect(q({})).toEqual(['1:0', '1:1', '2:0']);
    expect(q({ fromBlock: 2n })).toEqual(['2:0']);
    expect(q({ addresses: [B] })).toEqual(['1:1', '2:0']);
    expect(q({ addresses: [A, B], topics: [[T1]] })).toEqual(['1:0', '2:0']);
    expect(q({ topics: [[T1, T2]] })).toEqual(['1:0', '1:1', '2:0']);
    expect(q({ topics: [null, [T2]] })).toEqual(['1:0']);
  });

  it('behavior: removing canonical blocks drops their indexes and returns them newest first', () => {
    const store = openStore();
    const blocks = [block(1n, [0n]), block(2n, [1n]), block(3n, [2n])];
    for (const b of blocks) store.putCanonicalBlock(b, [receipt([{ address: A, topics: [], data: new Uint8Array() }])]);
    const removed = store.removeCanonicalAbove(1n);
    expect(removed.map((b) => b.header.number)).toEqual([3n, 2n]);
    expect(store.highestCanonical()).toBe(1n);
    expect(store.canonicalHash(2n)).toBeUndefined();
    expect(store.getTxLocation(blocks[2]!.transactions[0]!.hash())).toBeUndefined();
    expect(store.getBlockByHash(blocks[2]!.hash())).toBeUndefined();
    expect(store.queryLogs({ fromBlock: 0n, toBlock: 9n, topics: [] })).toEqual([{ blockNumber: 1n, logIndex: 0 }]);
  });

  it('behavior: receipts of recently stored blocks come from memory, equal to what SQLite holds, and leave with their block', () => {
    const store = openStore({ cacheReceiptBlocks: 2 });
    const blocks = [block(1n, [0n]), block(2n, [1n]), block(3n, [2n])];
    const stored = blocks.map((b, i) => [receipt([{ address: A, topics: [T1], data: new Uint8Array([i]) }])]);
    blocks.forEach((b, i) => store.putCanonicalBlock(b, stored[i]!));
    const cold = createBlockStore({ db: store.db, common });
    for (const [i, b] of blocks.entries()) {
      expect(store.getReceiptRecords(b.hash())).toEqual(stored[i]);
      expect(cold.getReceiptRecords(b.hash())).toEqual(stored[i]);
    }
    // Callers get their own array: changing it does not change what the store answers.
    store.getReceiptRecords(blocks[2]!.hash())!.pop();
    expect(store.getReceiptRecords(blocks[2]!.hash())).toHaveLength(1);
    store.removeCanonicalAbove(1n);
    expect(store.getReceiptRecords(blocks[2]!.hash())).toBeUndefined();
    expect(store.getReceiptRecords(blocks[0]!.hash())).toEqual(stored[0]);
  });

  it('behavior: canonical hashes follow a rewind and a re-mined height, for the writer and for another connection', () => {
    const store = openStore();
    const reader = createBlockStore({ db: store.db, common });
    const first = [block(1n, [0n]), block(2n, [1n])];
    for (const b of first) store.putCanonicalBlock(b, [receipt([])]);
    expect(reader.canonicalHash(2n)).toEqual(first[1]!.hash());
    store.removeCanonicalAbove(1n);
    expect(store.canonicalHash(2n)).toBeUndefined();
    expect(reader.canonicalHash(2n)).toBeUndefined();
    const again = block(2n, [5n]);
    store.putCanonicalBlock(again, [receipt([])]);
    expect(store.canonicalHash(2n)).toEqual(again.hash());
    expect(reader.canonicalHash(2n)).toEqual(again.hash());
    expect(store.canonicalHash(1n)).toEqual(first[0]!.hash());
  });

  it('behavior: a block read back carries its senders as the miner recovered them, with no recovery; a block stored before the keys were kept still recovers them', () => {
    const store = openStore();
    const b1 = block(1n, [0n, 1n]);
    store.putCanonicalBlock(b1, [receipt([]), receipt([])]);
    const b2 = block(2n, [2n], b1.hash());
    store.putCanonicalBlock(b2, [receipt([])]);
    // As a data dir from before the table: block 2 has no keys.
    store.db.prepare('DELETE FROM sender_keys WHERE hash = ?').run(Buffer.from(b2.hash()));
    // Another connection (a trace worker's) decodes the blocks afresh, counting recoveries.
    const counting = createChainCommon(31337n, 'prague');
    let recoveries = 0;
    const recover = counting.customCrypto.ecrecover!;
    counting.customCrypto.ecrecover = (...args) => {
      recoveries++;
      return recover(...args);
    };
    const reader = createBlockStore({ db: store.db, common: counting });
    const read1 = reader.getBlockByHash(b1.hash())!;
    expect(read1.transactions.map((tx) => tx.getSenderAddress().toString())).toEqual([alice!.address.toString(), alice!.address.toString()]);
    expect(recoveries).toBe(0);
    expect(reader.getBlockByHash(b2.hash())!.transactions[0]!.getSenderAddress().toString()).toBe(alice!.address.toString());
    expect(recoveries).toBe(1);
    // The keys leave with their block.
    store.removeCanonicalAbove(0n);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM sender_keys').get()).toEqual({ n: 0 });
  });

  it('behavior: a stored block header is read without its transactions, and a replay parent carries that header alone', async () => {
    const store = openStore();
    const b1 = block(1n, [0n, 1n, 2n]);
    store.putCanonicalBlock(b1, [receipt([]), receipt([]), receipt([])]);
    const b2 = block(2n, [3n], b1.hash());
    store.putCanonicalBlock(b2, [receipt([])]);
    // Another connection: nothing decoded yet.
    const reader = createBlockStore({ db: store.db, common });
    const header = reader.getHeaderByHash(b1.hash())!;
    expect(bytesToHex(header.hash())).toBe(bytesToHex(b1.hash()));
    expect(header.stateRoot).toEqual(b1.header.stateRoot);
    expect(reader.getHeaderByHash(new Uint8Array(32))).toBeUndefined();
    const parent = (await createBlockStoreReads(reader, common).parentForReplay(b2))!;
    expect(bytesToHex(parent.hash())).toBe(bytesToHex(b1.hash()));
    expect(parent.transactions).toHaveLength(0);
    expect(parent.header.calcNextBaseFee()).toBe(b1.header.calcNextBaseFee());
  });
});

// The node calls every translation shares: a mined transaction's facts (transaction object and
// receipt → RecordedTx, Parity locators, EIP-7623 floor), a block's transactions and receipts,
// each answer checked before use (a receipt of another block means the chain moved between
// calls: a retryable error, never a mixed trace).
import type { RecordedTx } from '../../engine/record/types.js';
import type { TxLocation } from '../../engine/render/types.js';
import { ResourceNotFoundError, UpstreamTraceMalformedError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { type CallObject, type UpstreamReceipt, type UpstreamTx, bytes, floorDataGas, quantity, txFactsOf } from './txFacts.js';

/** One JSON-RPC call to the upstream; an error answer rejects (as src/backends/upstream's client does). */
export type Upstream = (method: string, params: unknown[]) => Promise<unknown>;

export interface MinedTxFacts {
  tx: RecordedTx;
  floorGas: bigint;
  location: TxLocation;
  /** Block-level index of the transaction's first log (receipt). */
  logIndexOffset: number;
  /** The receipt's logs: those of frames that did not fail, exactly what callTracer `withLog` shows. */
  logs: unknown[];
  /** The transaction object as the node gave it (a re-execution rebuilds the transaction from it). */
  txJson: unknown;
}

function object(value: unknown, what: string): { [key: string]: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UpstreamTraceMalformedError(what, 'is not an object');
  return value as { [key: string]: unknown };
}

function floorOf(tx: UpstreamTx | CallObject): bigint {
  return floorDataGas(bytes(tx.input ?? tx.data ?? '0x', 'input'), tx.to === undefined || tx.to === null);
}

/** Facts of a transaction object and its receipt (both from the same block). */
export function minedTxFacts(txJson: unknown, receiptJson: unknown): MinedTxFacts {
  const tx = object(txJson, 'eth_getTransactionByHash') as unknown as UpstreamTx;
  const receipt = object(receiptJson, 'eth_getTransactionReceipt') as unknown as UpstreamReceipt & { blockHash?: string; transactionHash?: string };
  if (receipt.logs !== undefined && !Array.isArray(receipt.logs)) throw new UpstreamTraceMalformedError('eth_getTransactionReceipt', '`logs` is not a list');
  if (typeof tx.blockHash !== 'string' || receipt.blockHash !== tx.blockHash) {
    throw new UpstreamTraceMalformedError('eth_getTransactionReceipt', 'the receipt and the transaction name different blocks (the chain moved); try again');
  }
  const gasPrice = receipt.effectiveGasPrice !== undefined ? quantity(receipt.effectiveGasPrice, 'effectiveGasPrice') : quantity(tx.gasPrice ?? '0x0', 'gasPrice');
  const firstLog = receipt.logs?.[0]?.logIndex;
  return {
    tx: txFactsOf(tx, quantity(receipt.gasUsed, 'gasUsed'), gasPrice),
    floorGas: floorOf(tx),
    location: {
      blockHash: tx.blockHash as Hex,
      blockNumber: quantity(tx.blockNumber, 'blockNumber'),
      transactionHash: tx.hash as Hex,
      transactionPosition: Number(quantity(tx.transactionIndex, 'transactionIndex')),
    },
    logIndexOffset: firstLog === undefined ? 0 : Number(quantity(firstLog, 'logIndex')),
    logs: receipt.logs ?? [],
    txJson,
  };
}

/** eth_getTransactionByHash + eth_getTransactionReceipt; ResourceNotFoundError for an unknown or pending transaction. */
export async function fetchMinedTx(upstream: Upstream, hash: string): Promise<MinedTxFacts> {
  const [tx, receipt] = await Promise.all([upstream('eth_getTransactionByHash', [hash]), upstream('eth_getTransactionReceipt', [hash])]);
  if (tx === null || receipt === null) throw new ResourceNotFoundError(`transaction ${hash} not found`);
  return minedTxFacts(tx, receipt);
}

export interface MinedBlock {
  hash: Hex;
  number: bigint;
  txs: MinedTxFacts[];
  /** The block as the node gave it (its header fields: a re-execution's context). */
  json: unknown;
}

/** A block with full transactions and its receipts; undefined for an unknown block. */
export async function fetchMinedBlock(upstream: Upstream, block: unknown): Promise<MinedBlock | undefined> {
  const blockJson = await upstream(typeof block === 'string' && block.length === 66 ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [block, true]);
  if (blockJson === null) return undefined;
  const b = object(blockJson, 'eth_getBlockByNumber');
  if (typeof b.hash !== 'string' || !Array.isArray(b.transactions)) throw new UpstreamTraceMalformedError('eth_getBlockByNumber', 'a block without hash or full transactions');
  const number = quantity(b.number, 'number');
  if (b.transactions.length === 0) return { hash: b.hash as Hex, number, txs: [], json: b };
  const receipts = await upstream('eth_getBlockReceipts', [b.hash]);
  if (!Array.isArray(receipts) || receipts.length !== b.transactions.length) {
    throw new UpstreamTraceMalformedError('eth_getBlockReceipts', "the receipts do not match the block's transactions (the chain moved?)");
  }
  return { hash: b.hash as Hex, number, txs: b.transactions.map((tx, i) => minedTxFacts(tx, receipts[i])), json: b };
}

/** A call object's facts for trace_call: `gas` must be set (the translation fills in the cap). */
export function callFacts(call: CallObject & { gas: string }, receiptGasUsed: bigint): { tx: RecordedTx; floorGas: bigint } {
  const from = call.from ?? '0x0000000000000000000000000000000000000000';
  return { tx: txFactsOf({ ...call, from }, receiptGasUsed, call.gasPrice === undefined ? 0n : quantity(call.gasPrice, 'gasPrice')), floorGas: floorOf(call) };
}

// The plain, JSON-serialisable input of every extractor: one block exactly as an Ethereum node
// answers for it (eth_getBlockByNumber(n, true), eth_getBlockReceipts, debug_traceBlockByNumber
// with callTracer). Any source (embedded chain, upstream node, a recorded fixture) produces it.
import type { Hex } from '../../rpc/hex.js';

/** A block header in JSON-RPC form (`eth_getBlockByNumber`), without the transaction list. */
export interface RpcBlockHeader {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  nonce: Hex;
  sha3Uncles: Hex;
  logsBloom: Hex;
  transactionsRoot: Hex;
  stateRoot: Hex;
  receiptsRoot: Hex;
  miner: Hex;
  difficulty: Hex;
  totalDifficulty?: Hex;
  extraData: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  mixHash: Hex;
  baseFeePerGas?: Hex;
}

/** A transaction in JSON-RPC form (`eth_getBlockByNumber(n, true)`), every type. */
export interface RpcTransaction {
  hash: Hex;
  nonce: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  transactionIndex: Hex;
  from: Hex;
  /** Null for contract creation. */
  to: Hex | null;
  value: Hex;
  gas: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  input: Hex;
  type: Hex;
  chainId?: Hex;
  v?: Hex;
  r?: Hex;
  s?: Hex;
  yParity?: Hex;
  accessList?: { address: Hex; storageKeys: Hex[] }[];
}

/** A log in JSON-RPC form; `logIndex` counts within the block. */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  logIndex: Hex;
  removed: boolean;
}

/** A receipt in JSON-RPC form (`eth_getBlockReceipts`). */
export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  from: Hex;
  to: Hex | null;
  cumulativeGasUsed: Hex;
  gasUsed: Hex;
  effectiveGasPrice: Hex;
  contractAddress: Hex | null;
  logs: RpcLog[];
  logsBloom: Hex;
  /** `0x1` success, `0x0` failure. */
  status: Hex;
  type: Hex;
}

/**
 * One call frame in geth's callTracer JSON (https://geth.ethereum.org/docs/developers/evm-tracing/built-in-tracers#call-tracer).
 * `type` is upper case: CALL, STATICCALL, DELEGATECALL, CALLCODE, CREATE, CREATE2, SELFDESTRUCT.
 */
export interface CallFrame {
  type: string;
  from: Hex;
  to?: Hex;
  value?: Hex;
  gas?: Hex;
  gasUsed?: Hex;
  input?: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

/** Everything the extractors read about one block. */
export interface BlockData {
  header: RpcBlockHeader;
  /** In block order. */
  transactions: RpcTransaction[];
  /** Index-aligned with `transactions`. */
  receipts: RpcReceipt[];
  /**
   * The top call frame of each transaction, index-aligned with `transactions`; null when the
   * source cannot trace (then no internal transfers and no `callTracerTraces` are produced).
   */
  callFrames: CallFrame[] | null;
}

/** Block number of a header as bigint. */
export function blockNumberOf(block: Pick<BlockData, 'header'>): bigint {
  return BigInt(block.header.number);
}

/**
 * Checks the cross-references a source must get right (counts, hashes, numbers), so a broken
 * source fails loudly instead of producing wrong notifications. Returns a problem or null.
 */
export function blockDataProblem(block: BlockData): string | null {
  const { header, transactions, receipts, callFrames } = block;
  if (receipts.length !== transactions.length) return `block ${header.number}: ${transactions.length} transactions but ${receipts.length} receipts`;
  if (callFrames && callFrames.length !== transactions.length) return `block ${header.number}: ${transactions.length} transactions but ${callFrames.length} call frames`;
  for (let i = 0; i < transactions.length; i++) {
    const tx = transactions[i]!;
    const receipt = receipts[i]!;
    if (tx.hash.toLowerCase() !== receipt.transactionHash.toLowerCase()) return `block ${header.number}: receipt ${i} is for ${receipt.transactionHash}, not ${tx.hash}`;
    if (receipt.blockHash.toLowerCase() !== header.hash.toLowerCase()) return `block ${header.number}: receipt ${i} belongs to block ${receipt.blockHash}`;
  }
  return null;
}

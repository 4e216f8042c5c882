// BlockSource over the embedded dev chain (in-process ChainView): blocks and receipts from the
// chain's store, call frames from an injected block tracer (the tracing engine's callTracer), token
// metadata calls on an isolated VM at the block's state, new heads pushed by onHead.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { createAddressFromString } from '@ethereumjs/util';
import { bytesToHex, hexToBytes, quantityToHex, type Hex } from '../../rpc/hex.js';
import type { ChainReceipt, ChainView } from '../../engine/chain/types.js';
import type { BlockData, CallFrame, RpcBlockHeader, RpcLog, RpcReceipt, RpcTransaction } from '../extract/blockData.js';
import type { BlockSource } from './blockSource.js';
import { senderOf } from '../../engine/chain/txSender.js';

/** callTracer frames of each transaction of a mined block, in transaction order. */
export type BlockTracer = (block: Block) => Promise<CallFrame[]>;

export interface ChainBlockSourceOptions {
  chain: ChainView;
  /** Without a tracer, blocks carry no call frames: no internal transfers, empty `callTracerTraces`. */
  traceBlock?: BlockTracer;
  /** Gas for each symbol()/decimals() read. Default 1,000,000. */
  callGasLimit?: bigint;
  /** State root to read at for a block (default its header's; pass the tracer's when setters can change the head's state). */
  stateRootAt?: (block: Block) => Promise<Uint8Array>;
}

export function createChainBlockSource(options: ChainBlockSourceOptions): BlockSource {
  const { chain } = options;
  const gasLimit = options.callGasLimit ?? 1_000_000n;

  async function toBlockData(block: Block): Promise<BlockData> {
    const receipts = await chain.getReceipts(block.hash());
    const callFrames = options.traceBlock ? await options.traceBlock(block) : null;
    return chainBlockToBlockData(block, receipts, callFrames);
  }

  return {
    async head() {
      const block = await chain.getBlockByNumber(chain.headNumber());
      if (!block) throw new Error(`chain head ${chain.headNumber()} is not stored`);
      return { number: block.header.number, hash: bytesToHex(block.hash()) };
    },
    async canonicalHash(number) {
      const block = number >= 0n ? await chain.getBlockByNumber(number) : undefined;
      return block ? bytesToHex(block.hash()) : undefined;
    },
    async blockByNumber(number) {
      const block = number >= 0n ? await chain.getBlockByNumber(number) : undefined;
      return block ? toBlockData(block) : undefined;
    },
    async headerByNumber(number) {
      const block = number >= 0n ? await chain.getBlockByNumber(number) : undefined;
      return block ? { number: block.header.number, hash: bytesToHex(block.hash()), parentHash: bytesToHex(block.header.parentHash) } : undefined;
    },
    async blockByHash(hash) {
      const block = await chain.getBlockByHash(hexToBytes(hash));
      return block ? toBlockData(block) : undefined;
    },
    async call(to, data, at) {
      const block = await chain.getBlockByHash(hexToBytes(at.hash));
      if (!block) return null;
      const vm = await chain.createVm({ stateRoot: options.stateRootAt ? await options.stateRootAt(block) : block.header.stateRoot });
      const result = await vm.evm.runCall({ to: createAddressFromString(to), data: hexToBytes(data), gasLimit, block });
      return result.execResult.exceptionError ? null : result.execResult.returnValue;
    },
    subscribe(listener) {
      return chain.onHead(() => listener());
    },
  };
}

/** A mined block with its receipts (and call frames, when traced) as JSON-RPC shaped BlockData. */
export function chainBlockToBlockData(block: Block, receipts: readonly ChainReceipt[], callFrames: CallFrame[] | null): BlockData {
  const h = block.header;
  const blockHash = bytesToHex(block.hash());
  const header: RpcBlockHeader = {
    number: quantityToHex(h.number),
    hash: blockHash,
    parentHash: bytesToHex(h.parentHash),
    timestamp: quantityToHex(h.timestamp),
    nonce: bytesToHex(h.nonce),
    sha3Uncles: bytesToHex(h.uncleHash),
    logsBloom: bytesToHex(h.logsBloom),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    stateRoot: bytesToHex(h.stateRoot),
    receiptsRoot: bytesToHex(h.receiptTrie),
    miner: bytesToHex(h.coinbase.bytes),
    difficulty: quantityToHex(h.difficulty),
    extraData: bytesToHex(h.extraData),
    gasLimit: quantityToHex(h.gasLimit),
    gasUsed: quantityToHex(h.gasUsed),
    mixHash: bytesToHex(h.mixHash),
    ...(h.baseFeePerGas !== undefined ? { baseFeePerGas: quantityToHex(h.baseFeePerGas) } : {}),
  };
  const transactions = block.transactions.map((tx, i) => toRpcTransaction(tx, i, block, receipts[i]));
  return { header, transactions, receipts: receipts.map((r) => toRpcReceipt(r)), callFrames };
}

function toRpcTransaction(tx: TypedTransaction, index: number, block: Block, receipt: ChainReceipt | undefined): RpcTransaction {
  const json = tx.toJSON();
  const out: RpcTransaction = {
    hash: bytesToHex(tx.hash()),
    nonce: quantityToHex(tx.nonce),
    blockHash: bytesToHex(block.hash()),
    blockNumber: quantityToHex(block.header.number),
    transactionIndex: quantityToHex(index),
    from: bytesToHex(senderOf(tx).bytes),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    value: quantityToHex(tx.value),
    gas: quantityToHex(tx.gasLimit),
    input: bytesToHex(tx.data),
    type: quantityToHex(tx.type),
  };
  // Legacy and access-list transactions carry gasPrice; 1559-style ones report what was paid.
  if (json.gasPrice) out.gasPrice = json.gasPrice;
  else if (receipt) out.gasPrice = quantityToHex(receipt.effectiveGasPrice);
  if (json.maxFeePerGas) out.maxFeePerGas = json.maxFeePerGas;
  if (json.maxPriorityFeePerGas) out.maxPriorityFeePerGas = json.maxPriorityFeePerGas;
  if (json.chainId) out.chainId = json.chainId;
  if (json.accessList) out.accessList = json.accessList.map((item) => ({ address: item.address as Hex, storageKeys: item.storageKeys as Hex[] }));
  if (tx.v !== undefined) out.v = quantityToHex(tx.v);
  if (tx.r !== undefined) out.r = quantityToHex(tx.r);
  if (tx.s !== undefined) out.s = quantityToHex(tx.s);
  if (tx.type !== 0 && tx.v !== undefined) out.yParity = quantityToHex(tx.v);
  return out;
}

function toRpcReceipt(r: ChainReceipt): RpcReceipt {
  const base = {
    transactionHash: bytesToHex(r.transactionHash),
    transactionIndex: quantityToHex(r.transactionIndex),
    blockHash: bytesToHex(r.blockHash),
    blockNumber: quantityToHex(r.blockNumber),
  };
  const logs: RpcLog[] = r.logs.map((log) => ({
    address: bytesToHex(log.address),
    topics: log.topics.map((t) => bytesToHex(t)),
    data: bytesToHex(log.data),
    ...base,
    logIndex: quantityToHex(log.logIndex),
    removed: false,
  }));
  return {
    ...base,
    from: bytesToHex(r.from),
    to: r.to ? bytesToHex(r.to) : null,
    cumulativeGasUsed: quantityToHex(r.cumulativeGasUsed),
    gasUsed: quantityToHex(r.gasUsed),
    effectiveGasPrice: quantityToHex(r.effectiveGasPrice),
    contractAddress: r.contractAddress ? bytesToHex(r.contractAddress) : null,
    logs,
    logsBloom: bytesToHex(r.logsBloom),
    status: quantityToHex(r.status),
    type: quantityToHex(r.type),
  };
}


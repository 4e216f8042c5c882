// Finds every asset movement in a block once, for all webhooks: top-level ETH (external), ETH moved
// by internal calls (from the call frames), ERC-20, ERC-721 and ERC-1155 (single and batch) logs.
// Per-webhook matching and payload shaping live in addressActivity.ts and nftActivity.ts.
import type { Hex } from '../../rpc/hex.js';
import type { BlockData, CallFrame, RpcLog } from './blockData.js';

/** keccak256("Transfer(address,address,uint256)"), shared by ERC-20 and ERC-721. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** keccak256("TransferSingle(address,address,address,uint256,uint256)") (ERC-1155). */
export const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
/** keccak256("TransferBatch(address,address,address,uint256[],uint256[])") (ERC-1155). */
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

export type TransferCategory = 'external' | 'internal' | 'token' | 'erc721' | 'erc1155';

interface TransferBase {
  /** Lower-case addresses. */
  from: Hex;
  to: Hex;
  txHash: Hex;
  txIndex: number;
}

/** ETH moved by a transaction itself (`external`) or by a call inside it (`internal`). */
export interface EthTransfer extends TransferBase {
  category: 'external' | 'internal';
  /** Wei. */
  rawValue: bigint;
  /** `call_0_1` style path of the frame for internal transfers; null for external ones. */
  typeTraceAddress: string | null;
}

export interface TokenTransfer extends TransferBase {
  category: 'token';
  contract: Hex;
  /** Smallest units. */
  rawValue: bigint;
  log: RpcLog;
}

export interface Erc721Transfer extends TransferBase {
  category: 'erc721';
  contract: Hex;
  tokenId: bigint;
  log: RpcLog;
}

export interface Erc1155Item {
  tokenId: bigint;
  value: bigint;
}

export interface Erc1155Transfer extends TransferBase {
  category: 'erc1155';
  contract: Hex;
  operator: Hex;
  /** One item for TransferSingle, one per id for TransferBatch (in log order). */
  items: Erc1155Item[];
  log: RpcLog;
}

export type Transfer = EthTransfer | TokenTransfer | Erc721Transfer | Erc1155Transfer;
export type LogTransfer = TokenTransfer | Erc721Transfer | Erc1155Transfer;

/** Frame types whose value really moves: DELEGATECALL and CALLCODE keep it in the caller, STATICCALL has none. */
const VALUE_MOVING_FRAMES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

/**
 * Every transfer of the block in order: per transaction, its external transfer, then its internal
 * transfers in call order, then its token logs in log order. Failed transactions and reverted
 * frames move nothing and yield nothing.
 */
export function extractTransfers(block: BlockData): Transfer[] {
  const out: Transfer[] = [];
  for (let i = 0; i < block.transactions.length; i++) {
    const tx = block.transactions[i]!;
    const receipt = block.receipts[i]!;
    const txHash = tx.hash.toLowerCase() as Hex;
    const succeeded = BigInt(receipt.status) === 1n;
    const value = BigInt(tx.value);
    if (succeeded && value > 0n) {
      const to = (tx.to ?? receipt.contractAddress)?.toLowerCase() as Hex | undefined;
      if (to) out.push({ category: 'external', from: lower(tx.from), to, rawValue: value, txHash, txIndex: i, typeTraceAddress: null });
    }
    const frame = block.callFrames?.[i];
    if (succeeded && frame && !frame.error) collectInternal(frame.calls ?? [], [], txHash, i, out);
    for (const log of receipt.logs) {
      const transfer = logToTransfer(log, txHash, i);
      if (transfer) out.push(transfer);
    }
  }
  return out;
}

function collectInternal(calls: CallFrame[], parentPath: number[], txHash: Hex, txIndex: number, out: Transfer[]): void {
  for (let k = 0; k < calls.length; k++) {
    const frame = calls[k]!;
    // A reverted frame's value transfer and everything below it were undone.
    if (frame.error) continue;
    const path = [...parentPath, k];
    const value = frame.value ? BigInt(frame.value) : 0n;
    if (value > 0n && frame.to && VALUE_MOVING_FRAMES.has(frame.type.toUpperCase())) {
      out.push({
        category: 'internal',
        from: lower(frame.from),
        to: lower(frame.to),
        rawValue: value,
        txHash,
        txIndex,
        typeTraceAddress: `${frame.type.toLowerCase()}_${path.join('_')}`,
      });
    }
    if (frame.calls?.length) collectInternal(frame.calls, path, txHash, txIndex, out);
  }
}

/** Decodes a Transfer / TransferSingle / TransferBatch log; undefined for any other or malformed log. */
export function logToTransfer(log: RpcLog, txHash: Hex, txIndex: number): LogTransfer | undefined {
  const topic0 = log.topics[0]?.toLowerCase();
  const contract = lower(log.address);
  if (topic0 === TRANSFER_TOPIC) {
    // ERC-20 and ERC-721 share the signature; ERC-721 indexes the token id (4 topics, no data).
    if (log.topics.length === 3 && dataWords(log.data) === 1) {
      return { category: 'token', contract, from: topicAddress(log.topics[1]!), to: topicAddress(log.topics[2]!), rawValue: BigInt(log.data), txHash, txIndex, log };
    }
    if (log.topics.length === 4 && dataWords(log.data) === 0) {
      return { category: 'erc721', contract, from: topicAddress(log.topics[1]!), to: topicAddress(log.topics[2]!), tokenId: BigInt(log.topics[3]!), txHash, txIndex, log };
    }
    return undefined;
  }
  if (topic0 === TRANSFER_SINGLE_TOPIC && log.topics.length === 4 && dataWords(log.data) === 2) {
    const words = splitWords(log.data)!;
    return { ...erc1155Base(log, contract, txHash, txIndex), items: [{ tokenId: words[0]!, value: words[1]! }] };
  }
  if (topic0 === TRANSFER_BATCH_TOPIC && log.topics.length === 4) {
    const items = decodeBatch(log.data);
    if (items) return { ...erc1155Base(log, contract, txHash, txIndex), items };
  }
  return undefined;
}

function erc1155Base(log: RpcLog, contract: Hex, txHash: Hex, txIndex: number) {
  return {
    category: 'erc1155' as const,
    contract,
    operator: topicAddress(log.topics[1]!),
    from: topicAddress(log.topics[2]!),
    to: topicAddress(log.topics[3]!),
    txHash,
    txIndex,
    log,
  };
}

/** ABI-decodes `(uint256[] ids, uint256[] values)`; undefined when the data is malformed. */
function decodeBatch(data: Hex): Erc1155Item[] | undefined {
  const words = splitWords(data);
  if (!words) return undefined;
  const array = (offset: bigint): bigint[] | undefined => {
    if (offset % 32n !== 0n) return undefined;
    const at = Number(offset / 32n);
    const length = words[at];
    if (length === undefined || BigInt(at) + 1n + length > BigInt(words.length)) return undefined;
    return words.slice(at + 1, at + 1 + Number(length));
  };
  if (words.length < 2) return undefined;
  const ids = array(words[0]!);
  const values = array(words[1]!);
  if (!ids || !values || ids.length !== values.length) return undefined;
  return ids.map((tokenId, i) => ({ tokenId, value: values[i]! }));
}

function dataWords(data: Hex): number {
  const hexLength = data.length - 2;
  return hexLength % 64 === 0 ? hexLength / 64 : -1;
}

function splitWords(data: Hex): bigint[] | undefined {
  const count = dataWords(data);
  if (count < 0) return undefined;
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) out.push(BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}`));
  return out;
}

function topicAddress(topic: Hex): Hex {
  return `0x${topic.slice(-40).toLowerCase()}`;
}

function lower(address: Hex): Hex {
  return address.toLowerCase() as Hex;
}

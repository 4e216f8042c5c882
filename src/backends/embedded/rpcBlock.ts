// Converts a block to the JSON-RPC block object: header fields of the active hardfork, `size`,
// `totalDifficulty` (0 on a proof-of-stake dev chain) and transactions as hashes or objects.
import type { Block } from '@ethereumjs/block';
import type { ChainReceipt } from '../../engine/chain/types.js';
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { transactionToRpc } from './rpcTransaction.js';

/**
 * The header fields of the block object, as eth_subscribe `newHeads` sends them (geth sends the
 * header alone: no transactions, uncles, withdrawals or size).
 */
export function blockHeaderToRpc(block: Block): Record<string, unknown> {
  const h = block.header;
  const out: Record<string, unknown> = {
    hash: bytesToHex(block.hash()),
    parentHash: bytesToHex(h.parentHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    miner: h.coinbase.toString(),
    stateRoot: bytesToHex(h.stateRoot),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    difficulty: quantityToHex(h.difficulty),
    number: quantityToHex(h.number),
    gasLimit: quantityToHex(h.gasLimit),
    gasUsed: quantityToHex(h.gasUsed),
    timestamp: quantityToHex(h.timestamp),
    extraData: bytesToHex(h.extraData),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = quantityToHex(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = quantityToHex(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = quantityToHex(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash);
  out.totalDifficulty = '0x0';
  return out;
}

/** `receipts` are needed for full transactions (their effectiveGasPrice). */
export function blockToRpc(block: Block, full: boolean, receipts: readonly ChainReceipt[] = []): Record<string, unknown> {
  const out = blockHeaderToRpc(block);
  out.size = quantityToHex(block.serialize().length);
  out.uncles = [];
  out.transactions = block.transactions.map((tx, index) =>
    full
      ? transactionToRpc(tx, { block, index, effectiveGasPrice: receipts[index]?.effectiveGasPrice ?? 0n })
      : bytesToHex(tx.hash()),
  );
  if (block.withdrawals !== undefined) out.withdrawals = [];
  return out;
}

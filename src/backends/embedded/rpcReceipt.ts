// Converts a ChainReceipt to the JSON-RPC receipt object (geth/anvil shape; no blob fields).
import type { Block } from '@ethereumjs/block';
import type { ChainReceipt } from '../../engine/chain/types.js';
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { logEntryToRpc } from './rpcLog.js';

export function receiptToRpc(receipt: ChainReceipt, block: Block): Record<string, unknown> {
  return {
    type: quantityToHex(receipt.type),
    status: quantityToHex(receipt.status),
    cumulativeGasUsed: quantityToHex(receipt.cumulativeGasUsed),
    logs: receipt.logs.map((log) =>
      logEntryToRpc({
        ...log,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        blockTimestamp: block.header.timestamp,
        transactionHash: receipt.transactionHash,
        transactionIndex: receipt.transactionIndex,
      }),
    ),
    logsBloom: bytesToHex(receipt.logsBloom),
    transactionHash: bytesToHex(receipt.transactionHash),
    transactionIndex: quantityToHex(receipt.transactionIndex),
    blockHash: bytesToHex(receipt.blockHash),
    blockNumber: quantityToHex(receipt.blockNumber),
    gasUsed: quantityToHex(receipt.gasUsed),
    effectiveGasPrice: quantityToHex(receipt.effectiveGasPrice),
    from: bytesToHex(receipt.from),
    to: receipt.to ? bytesToHex(receipt.to) : null,
    contractAddress: receipt.contractAddress ? bytesToHex(receipt.contractAddress) : null,
    blockTimestamp: quantityToHex(block.header.timestamp),
  };
}

// Looks a transaction up by hash (canonical or pooled) and formats it; shared by the eth_getTransaction* handlers.
import type { Block } from '@ethereumjs/block';
import type { DevChain } from '../../engine/chain/devChain.js';
import { transactionToRpc } from './rpcTransaction.js';

/** The RPC object of the transaction at `index` in `block`, or null. */
export async function blockTransactionToRpc(chain: DevChain, block: Block, index: number): Promise<Record<string, unknown> | null> {
  const tx = block.transactions[index];
  if (!tx) return null;
  const receipts = await chain.getReceipts(block.hash());
  return transactionToRpc(tx, { block, index, effectiveGasPrice: receipts[index]?.effectiveGasPrice ?? 0n });
}

/** The RPC object of a canonical or pooled transaction, or null when unknown (geth/anvil). */
export async function transactionByHashToRpc(chain: DevChain, hash: Uint8Array): Promise<Record<string, unknown> | null> {
  const found = await chain.getTransaction(hash);
  if (found) return blockTransactionToRpc(chain, found.block, found.index);
  const pooled = chain.pendingTransaction(hash);
  return pooled ? transactionToRpc(pooled) : null;
}

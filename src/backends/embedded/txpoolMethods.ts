// txpool_status, txpool_content and txpool_inspect (geth's shapes) over the chain's pool: every
// pooled transaction is "pending" (the dev chain queues none for a nonce gap).
import { quantityToHex } from '../../rpc/hex.js';
import type { txpoolSchema } from '../../rpc/schema/txpool.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { HandlersFor } from './methodTable.js';
import { transactionToRpc } from './rpcTransaction.js';
import { senderOf } from '../../engine/chain/txSender.js';

export function createTxpoolHandlers({ chain }: ChainMethodDeps): HandlersFor<typeof txpoolSchema> {
  /** sender → nonce (decimal text, geth's key) → value. */
  function bySender<T>(render: (tx: ReturnType<typeof chain.pendingTransactions>[number]['tx']) => T): Record<string, Record<string, T>> {
    const out: Record<string, Record<string, T>> = {};
    for (const { tx } of chain.pendingTransactions()) {
      const sender = senderOf(tx).toString();
      (out[sender] ??= {})[tx.nonce.toString()] = render(tx);
    }
    return out;
  }
  return {
    txpool_status: () => ({ pending: quantityToHex(chain.pendingTransactions().length), queued: '0x0' }),
    txpool_content: () => ({ pending: bySender((tx) => transactionToRpc(tx)), queued: {} }),
    txpool_inspect: () => ({
      pending: bySender((tx) => {
        const to = tx.to ? tx.to.toString() : 'contract creation';
        const price = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
        return `${to}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`;
      }),
      queued: {},
    }),
  };
}

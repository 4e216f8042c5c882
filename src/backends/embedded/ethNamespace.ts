// The eth_* namespace of the embedded dev chain: schema plus one handler per method.
import { ethSchema } from '../../rpc/schema/eth.js';
import { filterSchema } from '../../rpc/schema/filter.js';
import { signingSchema } from '../../rpc/schema/signing.js';
import { subscriptionSchema } from '../../rpc/schema/subscription.js';
import { rawDataSchema, txpoolSchema } from '../../rpc/schema/txpool.js';
import { createChainFilters } from './chainFilters.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import { eth_blobBaseFee } from './eth_blobBaseFee.js';
import { eth_createAccessList } from './eth_createAccessList.js';
import { createFilterHandlers } from './filterMethods.js';
import { createRawDataHandlers } from './rawDataMethods.js';
import { createSigningHandlers } from './signingMethods.js';
import { createSubscriptionHandlers } from './subscriptionMethods.js';
import { createTxpoolHandlers } from './txpoolMethods.js';
import { eth_accounts } from './eth_accounts.js';
import { eth_blockNumber } from './eth_blockNumber.js';
import { eth_call } from './eth_call.js';
import { eth_chainId } from './eth_chainId.js';
import { eth_coinbase } from './eth_coinbase.js';
import { eth_estimateGas } from './eth_estimateGas.js';
import { eth_feeHistory } from './eth_feeHistory.js';
import { eth_gasPrice } from './eth_gasPrice.js';
import { eth_getBalance } from './eth_getBalance.js';
import { eth_getBlockByHash } from './eth_getBlockByHash.js';
import { eth_getBlockByNumber } from './eth_getBlockByNumber.js';
import { eth_getBlockReceipts } from './eth_getBlockReceipts.js';
import { eth_getBlockTransactionCountByHash } from './eth_getBlockTransactionCountByHash.js';
import { eth_getBlockTransactionCountByNumber } from './eth_getBlockTransactionCountByNumber.js';
import { eth_getCode } from './eth_getCode.js';
import { eth_getLogs } from './eth_getLogs.js';
import { eth_getProof } from './eth_getProof.js';
import { eth_getStorageAt } from './eth_getStorageAt.js';
import { eth_getTransactionByBlockHashAndIndex } from './eth_getTransactionByBlockHashAndIndex.js';
import { eth_getTransactionByBlockNumberAndIndex } from './eth_getTransactionByBlockNumberAndIndex.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import { eth_getTransactionCount } from './eth_getTransactionCount.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { eth_maxPriorityFeePerGas } from './eth_maxPriorityFeePerGas.js';
import { eth_sendRawTransaction } from './eth_sendRawTransaction.js';
import { eth_sendTransaction } from './eth_sendTransaction.js';
import { eth_syncing } from './eth_syncing.js';
import { type Namespace, defineNamespace } from './methodTable.js';
import { chainReadGate } from './chainReadGate.js';

const chainSchema = { ...ethSchema, ...filterSchema, ...subscriptionSchema, ...signingSchema, ...txpoolSchema, ...rawDataSchema };

/**
 * eth_* methods served by the embedded chain, with its polled filters and subscriptions, signing (eth_sign,
 * personal_sign, eth_signTypedData_v4, eth_signTransaction), txpool_* and debug_getRaw*.
 */
export function createEthNamespace(deps: ChainMethodDeps): Namespace<typeof chainSchema> {
  const filters = deps.filters ?? createChainFilters(deps.chain);
  return {
    ...defineNamespace(chainSchema, {
      ...createFilterHandlers(deps, filters),
      ...createSubscriptionHandlers(filters),
      ...createSigningHandlers(deps),
      ...createTxpoolHandlers(deps),
      ...createRawDataHandlers(deps),
      eth_createAccessList: eth_createAccessList(deps),
      eth_blobBaseFee: eth_blobBaseFee(deps),
      eth_chainId: eth_chainId(deps),
      eth_blockNumber: eth_blockNumber(deps),
      eth_accounts: eth_accounts(deps),
      eth_coinbase: eth_coinbase(deps),
      eth_syncing: eth_syncing(),
      eth_gasPrice: eth_gasPrice(deps),
      eth_maxPriorityFeePerGas: eth_maxPriorityFeePerGas(deps),
      eth_getBalance: eth_getBalance(deps),
      eth_getCode: eth_getCode(deps),
      eth_getTransactionCount: eth_getTransactionCount(deps),
      eth_getStorageAt: eth_getStorageAt(deps),
      eth_getProof: eth_getProof(deps),
      eth_call: eth_call(deps),
      eth_estimateGas: eth_estimateGas(deps),
      eth_feeHistory: eth_feeHistory(deps),
      eth_sendRawTransaction: eth_sendRawTransaction(deps),
      eth_sendTransaction: eth_sendTransaction(deps),
      eth_getTransactionByHash: eth_getTransactionByHash(deps),
      eth_getTransactionReceipt: eth_getTransactionReceipt(deps),
      eth_getTransactionByBlockNumberAndIndex: eth_getTransactionByBlockNumberAndIndex(deps),
      eth_getTransactionByBlockHashAndIndex: eth_getTransactionByBlockHashAndIndex(deps),
      eth_getBlockByNumber: eth_getBlockByNumber(deps),
      eth_getBlockByHash: eth_getBlockByHash(deps),
      eth_getBlockTransactionCountByNumber: eth_getBlockTransactionCountByNumber(deps),
      eth_getBlockTransactionCountByHash: eth_getBlockTransactionCountByHash(deps),
      eth_getBlockReceipts: eth_getBlockReceipts(deps),
      eth_getLogs: eth_getLogs(deps),
    }),
    gate: chainReadGate(deps.chain),
  };
}

// eth_getTransactionByHash: a mined or pooled transaction, or null when unknown.
import { hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { transactionByHashToRpc } from './transactionLookup.js';

export function eth_getTransactionByHash({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getTransactionByHash']> {
  return ([hash]) => transactionByHashToRpc(chain, hexToBytes(hash));
}

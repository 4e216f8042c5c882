// eth_sendTransaction: fills nonce, gas and fees like anvil, signs with a dev account's key and
// submits the transaction.
import { bytesToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { transactionRequestFromRpc } from './rpcRequest.js';

export function eth_sendTransaction({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_sendTransaction']> {
  return async ([request]) => bytesToHex(await chain.sendTransaction(transactionRequestFromRpc(request)));
}

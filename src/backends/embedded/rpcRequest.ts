// Converts decoded RPC request objects (transaction requests, state overrides) into the chain's
// bigint/bytes request types.
import type { AccountOverride, StateOverrides } from '../../engine/chain/stateOverrides.js';
import type { TransactionRequest } from '../../engine/chain/transactionRequest.js';
import { hexToBytes } from '../../rpc/hex.js';
import type { TransactionRequestObject } from '../../rpc/schema/eth.js';

export function transactionRequestFromRpc(request: TransactionRequestObject): TransactionRequest {
  return {
    from: request.from ? hexToBytes(request.from) : undefined,
    to: request.to ? hexToBytes(request.to) : undefined,
    gas: request.gas,
    gasPrice: request.gasPrice,
    maxFeePerGas: request.maxFeePerGas,
    maxPriorityFeePerGas: request.maxPriorityFeePerGas,
    value: request.value,
    data: request.input ?? request.data,
    nonce: request.nonce,
    accessList: request.accessList?.map((e) => ({ address: hexToBytes(e.address), storageKeys: e.storageKeys.map(hexToBytes) })),
    authorizationList: request.authorizationList?.map((a) => ({ ...a, address: hexToBytes(a.address) })),
    type: request.type === undefined ? undefined : Number(request.type),
    chainId: request.chainId,
  };
}

export function stateOverridesFromRpc(overrides: Map<string, AccountOverride> | undefined): StateOverrides | undefined {
  return overrides && overrides.size > 0 ? overrides : undefined;
}

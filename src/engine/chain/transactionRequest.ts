// Unsigned transaction requests (eth_sendTransaction, eth_call, eth_estimateGas) as bigint/bytes
// values, and their conversion into ethereumjs transactions of the right EIP-2718 type.
import type { CallRequest } from '../execute/callTransaction.js';
import type { Common } from '@ethereumjs/common';
import { type TypedTransaction, createTx } from '@ethereumjs/tx';
import { Address, bigIntToUnpaddedBytes } from '@ethereumjs/util';
import type { CallFields } from '../interpreter/callFields.js';
import { InvalidParamsError } from '../../rpc/errors.js';

export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** A signed EIP-7702 authorization tuple. */
export interface AuthorizationEntry {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** A transaction to fill and sign (eth_sendTransaction) or to run as a call: a call request plus the fields only transactions have. */
export interface TransactionRequest extends CallRequest {
  authorizationList?: AuthorizationEntry[];
  /** Explicit EIP-2718 type (0, 1, 2 or 4). */
  type?: number;
  chainId?: bigint;
}

/** The type a request becomes: explicit `type`, else 7702 with authorizations, legacy/2930 with `gasPrice`, else 1559. */
export function requestTxType(request: TransactionRequest): 0 | 1 | 2 | 4 {
  if (request.type !== undefined) {
    if (request.type === 0 || request.type === 1 || request.type === 2 || request.type === 4) return request.type;
    throw new InvalidParamsError(`unsupported transaction type ${request.type}`);
  }
  if (request.authorizationList) return 4;
  if (request.gasPrice !== undefined && request.maxFeePerGas === undefined && request.maxPriorityFeePerGas === undefined) {
    return request.accessList ? 1 : 0;
  }
  return 2;
}

/** Every field a transaction needs, after defaults are filled. */
export interface FilledTransactionFields {
  type: 0 | 1 | 2 | 4;
  nonce: bigint;
  gasLimit: bigint;
  /** Legacy and 2930. */
  gasPrice: bigint;
  /** 1559 and 7702. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  chainId: bigint;
}

/** The request as the fields the interpreter reads (the transaction {@link requestToTransaction} builds, without building it). */
export function requestCallFields(request: TransactionRequest, fields: FilledTransactionFields): CallFields {
  const priced = fields.type === 0 || fields.type === 1;
  return {
    type: fields.type,
    gasLimit: fields.gasLimit,
    to: request.to ? new Address(request.to) : undefined,
    value: request.value ?? 0n,
    data: request.data ?? new Uint8Array(),
    gasPrice: priced ? fields.gasPrice : 0n,
    maxFeePerGas: priced ? 0n : fields.maxFeePerGas,
    maxPriorityFeePerGas: priced ? 0n : fields.maxPriorityFeePerGas,
    accessList: fields.type === 0 ? [] : (request.accessList ?? []).map((e) => [e.address, e.storageKeys] as const),
  };
}

/** Builds an unsigned ethereumjs transaction from a request and its filled fields. */
export function requestToTransaction(
  request: TransactionRequest,
  fields: FilledTransactionFields,
  common: Common,
  options: { freeze?: boolean } = {},
): TypedTransaction {
  if (fields.type === 4 && request.to === undefined) throw new InvalidParamsError('a 7702 transaction cannot create a contract (missing to)');
  const base = {
    type: fields.type,
    nonce: fields.nonce,
    gasLimit: fields.gasLimit,
    to: request.to,
    value: request.value ?? 0n,
    data: request.data ?? new Uint8Array(),
    chainId: fields.chainId,
    accessList: (request.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]]),
  };
  const fees =
    fields.type === 0 || fields.type === 1
      ? { gasPrice: fields.gasPrice }
      : { maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas };
  const authorizationList =
    fields.type === 4
      ? (request.authorizationList ?? []).map((a) => [
          bigIntToUnpaddedBytes(a.chainId),
          a.address,
          bigIntToUnpaddedBytes(a.nonce),
          bigIntToUnpaddedBytes(a.yParity),
          bigIntToUnpaddedBytes(a.r),
          bigIntToUnpaddedBytes(a.s),
        ])
      : undefined;
  try {
    return createTx({ ...base, ...fees, ...(authorizationList ? { authorizationList } : {}) } as Parameters<typeof createTx>[0], {
      common,
      freeze: options.freeze ?? true,
    });
  } catch (error) {
    throw new InvalidParamsError(`invalid transaction request: ${(error as Error).message.split(' (tx type=')[0]}`);
  }
}

/**
 * Makes an unsigned transaction report `from` as its sender, so runTx can execute a call or gas
 * estimate without a signature (as geth does for eth_call). `tx` must be created unfrozen.
 */
export function impersonate(tx: TypedTransaction, from: Address): TypedTransaction {
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from });
  return tx;
}

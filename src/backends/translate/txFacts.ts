// Transaction-level facts of a record (RecordedTx) from the node's own transaction and receipt
// objects: sender, gas limit, intrinsic gas (worked out from the transaction's fields, as every
// client charges it), receipt gas used and the effective gas price. The root frame's execution gas
// before the refund comes from the trace where the trace has it.
import type { RecordedTx } from '../../engine/record/types.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { hexToBigInt, hexToBytes } from '../../rpc/hex.js';

/** The fields of an `eth_getTransactionByHash` / block transaction object that translation reads. */
export interface UpstreamTx {
  hash?: string;
  from: string;
  to?: string | null;
  value?: string;
  gas: string;
  gasPrice?: string;
  input?: string;
  data?: string;
  accessList?: { address: string; storageKeys: string[] }[];
  authorizationList?: unknown[];
  blockHash?: string | null;
  blockNumber?: string | null;
  transactionIndex?: string | null;
}

/** A call object as eth_call/trace_call take it. */
export interface CallObject {
  from?: string;
  to?: string | null;
  gas?: string;
  gasPrice?: string;
  value?: string;
  input?: string;
  data?: string;
  accessList?: { address: string; storageKeys: string[] }[];
}

export interface UpstreamReceipt {
  gasUsed: string;
  effectiveGasPrice?: string;
  logs?: { logIndex?: string }[];
}

function fail(field: string, value: unknown): never {
  throw new UpstreamTraceMalformedError('transaction', `${field} is not valid: ${JSON.stringify(value)?.slice(0, 80)}`);
}

export function quantity(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) fail(field, value);
  return hexToBigInt(value);
}

export function bytes(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string') fail(field, value);
  try {
    return hexToBytes(value);
  } catch {
    fail(field, value);
  }
}

export function address(value: unknown, field: string): Uint8Array {
  const out = bytes(value, field);
  if (out.length !== 20) fail(field, value);
  return out;
}

/**
 * Intrinsic gas since Shanghai/Prague: 21000 (+32000 and 2 per init-code word for a creation), 4 per
 * zero and 16 per other byte of data, 2400 per access-list address and 1900 per key, 25000 per
 * EIP-7702 authorization (EIP-2028, EIP-2930, EIP-3860, EIP-7702).
 */
export function intrinsicGas(data: Uint8Array, create: boolean, accessList: CallObject['accessList'] = [], authorizations = 0): bigint {
  let gas = 21000n;
  if (create) gas += 32000n + 2n * BigInt(Math.ceil(data.length / 32));
  for (const byte of data) gas += byte === 0 ? 4n : 16n;
  for (const entry of accessList) gas += 2400n + 1900n * BigInt(entry.storageKeys.length);
  return gas + 25000n * BigInt(authorizations);
}

/**
 * EIP-7623 (Prague): the gas a transaction pays at least, 21000 (+32000 for a creation) plus 10 per
 * data token (a zero byte is one token, any other four).
 */
export function floorDataGas(data: Uint8Array, create: boolean): bigint {
  let tokens = 0n;
  for (const byte of data) tokens += byte === 0 ? 1n : 4n;
  return 21000n + (create ? 32000n : 0n) + 10n * tokens;
}

/**
 * RecordedTx of a mined transaction, without the trace-derived fields (`output`, `error`,
 * `executionGasUsed`, `createdAddress`), which the trace parsers fill in.
 */
export function txFactsOf(tx: UpstreamTx | CallObject & { from: string; gas: string }, receiptGasUsed: bigint, gasPrice: bigint): RecordedTx {
  const data = bytes(tx.input ?? tx.data ?? '0x', 'input');
  const create = tx.to === undefined || tx.to === null;
  const authorizations = 'authorizationList' in tx && Array.isArray(tx.authorizationList) ? tx.authorizationList.length : 0;
  return {
    from: address(tx.from, 'from'),
    to: create ? undefined : address(tx.to, 'to'),
    value: tx.value === undefined ? 0n : quantity(tx.value, 'value'),
    gasLimit: quantity(tx.gas, 'gas'),
    intrinsicGas: intrinsicGas(data, create, tx.accessList ?? [], authorizations),
    gasUsed: receiptGasUsed,
    executionGasUsed: 0n,
    gasPrice,
    output: new Uint8Array(0),
    error: undefined,
    createdAddress: undefined,
  };
}

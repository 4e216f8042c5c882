// What the core reads of a transaction, as a plain object: a call (eth_call, eth_estimateGas, a
// traced call) needs no transaction object, whose constructor validates, copies its Common and
// freezes fields the core never looks at again (a twentieth of a traced call's CPU). The
// intrinsic gas and EIP-7623 floor are worked out here with ethereumjs's parameters, for the
// forks the core runs (Cancun, Prague: none of the later intrinsic-gas EIPs).
import type { Common } from '@ethereumjs/common';
import { Capability, type TypedTransaction, paramsTx } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';

export interface CallFields {
  /** 0 legacy, 1 access list (EIP-2930), 2 fee market (EIP-1559); the core takes no other. */
  type: number;
  gasLimit: bigint;
  /** undefined: a contract creation. */
  to: Address | undefined;
  value: bigint;
  data: Uint8Array;
  /** Types 0 and 1: the gas price. */
  gasPrice: bigint;
  /** Type 2: the fee cap and tip. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  accessList: readonly (readonly [Uint8Array, readonly Uint8Array[]])[];
}

/** The fields of a transaction object (a mined or signed transaction the core runs). */
export function callFieldsOf(tx: TypedTransaction): CallFields {
  const fees = tx as TypedTransaction & { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
  const feeMarket = tx.supports(Capability.EIP1559FeeMarket);
  return {
    type: tx.type,
    gasLimit: tx.gasLimit,
    to: tx.to,
    value: tx.value,
    data: tx.data,
    gasPrice: feeMarket ? 0n : (fees.gasPrice ?? 0n),
    maxFeePerGas: feeMarket ? fees.maxFeePerGas! : 0n,
    maxPriorityFeePerGas: feeMarket ? fees.maxPriorityFeePerGas! : 0n,
    accessList: tx.supports(Capability.EIP2930AccessLists) ? (tx as TypedTransaction & { accessList: [Uint8Array, Uint8Array[]][] }).accessList : [],
  };
}

/** The transaction gas parameters of a Common's fork (a VM's Common lacks the transaction package's). */
interface TxGasParams {
  base: bigint;
  dataZero: bigint;
  dataNonZero: bigint;
  creation: bigint;
  /** EIP-3860's price per init code word; 0 before it. */
  initCodeWord: bigint;
  accessListAddress: bigint;
  accessListStorageKey: bigint;
  /** EIP-7623's price per calldata token; undefined before it. */
  floorPerToken: bigint | undefined;
}

const paramsByCommon = new WeakMap<Common, TxGasParams>();

function txGasParams(common: Common): TxGasParams {
  let params = paramsByCommon.get(common);
  if (params === undefined) {
    const withTx = common.copy();
    withTx.updateParams(paramsTx);
    params = {
      base: withTx.param('txGas'),
      dataZero: withTx.param('txDataZeroGas'),
      dataNonZero: withTx.param('txDataNonZeroGas'),
      creation: withTx.param('txCreationGas'),
      initCodeWord: withTx.isActivatedEIP(3860) ? withTx.param('initCodeWordGas') : 0n,
      accessListAddress: withTx.param('accessListAddressGas'),
      accessListStorageKey: withTx.param('accessListStorageKeyGas'),
      floorPerToken: withTx.isActivatedEIP(7623) ? withTx.param('totalCostFloorPerToken') : undefined,
    };
    paramsByCommon.set(common, params);
  }
  return params;
}

/** Intrinsic gas: the base cost, calldata, contract creation (with EIP-3860's init code words) and the access list. */
export function intrinsicGas(fields: CallFields, common: Common): bigint {
  const p = txGasParams(common);
  let zeros = 0;
  for (const byte of fields.data) if (byte === 0) zeros++;
  let gas = p.base + BigInt(zeros) * p.dataZero + BigInt(fields.data.length - zeros) * p.dataNonZero;
  if (fields.to === undefined) gas += p.creation + p.initCodeWord * BigInt(Math.ceil(fields.data.length / 32));
  if (fields.type >= 1) {
    let slots = 0;
    for (const [, keys] of fields.accessList) slots += keys.length;
    gas += BigInt(fields.accessList.length) * p.accessListAddress + BigInt(slots) * p.accessListStorageKey;
  }
  return gas;
}

/** EIP-7623's floor on the gas a transaction uses (0 before Prague): the base cost plus a price per calldata token. */
export function calldataFloorGas(fields: CallFields, common: Common): bigint {
  const p = txGasParams(common);
  if (p.floorPerToken === undefined) return 0n;
  let tokens = 0;
  for (const byte of fields.data) tokens += byte === 0 ? 1 : 4;
  return p.base + p.floorPerToken * BigInt(tokens);
}

const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * The fields pass the checks a transaction constructor makes of them (256-bit values, a fee cap
 * times the gas limit within 256 bits, a tip within the fee cap). A call that fails one runs on
 * ethereumjs, whose constructor then gives the request its error.
 */
export function fieldsInRange(fields: CallFields): boolean {
  const feeCap = fields.type === 2 ? fields.maxFeePerGas : fields.gasPrice;
  if (fields.gasLimit > MAX_UINT256 || fields.value > MAX_UINT256 || feeCap > MAX_UINT256 || fields.maxPriorityFeePerGas > MAX_UINT256) return false;
  if (fields.gasLimit * feeCap > MAX_UINT256) return false;
  return fields.type !== 2 || fields.maxPriorityFeePerGas <= fields.maxFeePerGas;
}

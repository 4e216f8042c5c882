// Turns an eth_call-style call object into a transaction runTx can execute for a given sender
// without a signature (debug_traceCall, trace_call, trace_callMany and the state_diff fixtures).
import type { Common } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, paramsTx, type AccessListBytes, type TypedTransaction } from '@ethereumjs/tx';
import { Address, createZeroAddress } from '@ethereumjs/util';
import type { CallFields } from '../interpreter/callFields.js';

/** A call object with decoded fields (all optional, as in eth_call). */
export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[];
}

export interface CallTransactionOptions {
  common: Common;
  /** Gas limit used when the call names none (the gas cap). */
  defaultGas: bigint;
  /** Nonce to put in the transaction (runTx is told to skip the nonce check anyway). */
  nonce: bigint;
  /** Base fee of the block the call runs in: a call naming a tip but no fee cap gets this plus the tip (default 0). */
  baseFee?: bigint;
}

/**
 * The gas a call runs with: what it names, at most the gas cap, and the cap when it names none
 * (geth's rule for eth_call and debug_traceCall alike; anvil has no cap).
 */
export function callGasLimit(requested: bigint | undefined, gasCap: bigint): bigint {
  return requested !== undefined && requested < gasCap ? requested : gasCap;
}

/**
 * The transaction a call becomes, as the fields the core reads: fee market (EIP-1559) when a fee
 * cap or tip is named (a tip alone gets `baseFee` plus the tip as its cap), access list (EIP-2930)
 * when an access list is, else legacy; the gas limit `defaultGas` when the call names none.
 * {@link callToTransaction} builds the same transaction.
 */
export function callRequestFields(call: CallRequest, defaultGas: bigint, common: Common, baseFee = 0n): CallFields {
  const accessList = (call.accessList ?? []).map((item) => [item.address, item.storageKeys] as const);
  const gasLimit = call.gas ?? defaultGas;
  const to = call.to ? new Address(call.to) : undefined;
  const value = call.value ?? 0n;
  const data = call.data ?? new Uint8Array(0);
  // Every field written out: on Node 20, each key an object literal adds after a spread
  // (`{ ...base, type }`) is a runtime call, about 0.5 µs each (3 µs for this function).
  if (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined) {
    const maxFeePerGas = call.maxFeePerGas ?? baseFee + (call.maxPriorityFeePerGas ?? 0n);
    return { type: 2, gasLimit, to, value, data, gasPrice: 0n, maxFeePerGas, maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? maxFeePerGas, accessList };
  }
  const withList = call.accessList !== undefined && common.isActivatedEIP(2930);
  return { type: withList ? 1 : 0, gasLimit, to, value, data, gasPrice: call.gasPrice ?? 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList: withList ? accessList : [] };
}

/**
 * Builds an unsigned transaction whose sender is `call.from` (the zero address when absent).
 * The sender is pinned on the instance because an unsigned transaction has none to recover.
 */
export function callToTransaction(call: CallRequest, options: CallTransactionOptions): TypedTransaction {
  const sender = call.from ? new Address(call.from) : createZeroAddress();
  const fields = callRequestFields(call, options.defaultGas, options.common, options.baseFee);
  const base = { nonce: call.nonce ?? options.nonce, gasLimit: fields.gasLimit, to: fields.to, value: fields.value, data: fields.data };
  const accessList = fields.accessList as AccessListBytes;
  const opts = { common: options.common, freeze: false };
  let tx: TypedTransaction;
  if (fields.type === 2) {
    tx = createFeeMarket1559Tx({ ...base, maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas, accessList }, opts);
  } else if (fields.type === 1) {
    tx = createAccessList2930Tx({ ...base, gasPrice: fields.gasPrice, accessList }, opts);
  } else {
    tx = createLegacyTx({ ...base, gasPrice: fields.gasPrice }, opts);
  }
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender, configurable: true });
  return tx;
}

/** True when the call pays for gas (a price was named), so the block's base fee applies. */
export function callPaysForGas(call: CallRequest): boolean {
  return (call.gasPrice ?? 0n) > 0n || (call.maxFeePerGas ?? 0n) > 0n || (call.maxPriorityFeePerGas ?? 0n) > 0n;
}

const CALL_TX_COMMON = Symbol('callTxCommon');

/**
 * EIP-7825's cap lifted for calls (geth's SkipTransactionChecks): 2^64 - 1, as a string because
 * Common copies its parameters through JSON and reads them with BigInt().
 */
const UNCAPPED_TX_GAS = { 7825: { maxTransactionGasLimit: (2n ** 64n - 1n).toString() } };

/**
 * A Common with `common`'s rules for building call transactions cheaply. Each transaction
 * constructor copies its Common and merges the transaction parameters into the copy (JSON copies
 * plus a rebuild of the whole parameter cache: about a tenth of a traced ERC-20 call). This one
 * holds them already and its copies skip the merge. The rules are unchanged but one: on Osaka and
 * later a call may name more gas than EIP-7825's transaction cap (2^24), as geth and anvil run
 * eth_call, eth_estimateGas's probes and traced calls; a sent transaction stays bound by it. It is
 * memoised on `common` (one per pooled VM).
 */
export function callTxCommon(common: Common): Common {
  const holder = common as Common & { [CALL_TX_COMMON]?: Common };
  const existing = holder[CALL_TX_COMMON];
  if (existing) return existing;
  const prepared = common.copy();
  prepared.updateParams(paramsTx);
  if (prepared.isActivatedEIP(7825)) prepared.updateParams(UNCAPPED_TX_GAS);
  const copyOf = prepared.copy.bind(prepared);
  // Own properties travel with Object.assign-based copies, so copies of copies behave the same.
  prepared.copy = () => Object.assign(copyOf(), { updateParams: () => undefined });
  holder[CALL_TX_COMMON] = prepared;
  return prepared;
}

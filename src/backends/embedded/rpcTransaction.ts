// Converts an ethereumjs transaction (mined or pooled) to the JSON-RPC transaction object geth and
// anvil return: per-type fee fields, `accessList`, `authorizationList`, `yParity` and `v`.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt } from '@ethereumjs/util';
import { type Hex, bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { senderOf } from '../../engine/chain/txSender.js';

/** Where a mined transaction sits; undefined for a pooled one. */
export interface TransactionPlace {
  block: Block;
  index: number;
  /** Price per gas it paid (the receipt's effectiveGasPrice). */
  effectiveGasPrice: bigint;
}

type Fields = Record<string, unknown>;

function accessListToRpc(list: [Uint8Array, Uint8Array[]][]): { address: Hex; storageKeys: Hex[] }[] {
  return list.map(([address, keys]) => ({ address: bytesToHex(address), storageKeys: keys.map(bytesToHex) }));
}

function authorizationListToRpc(list: Uint8Array[][]): Fields[] {
  return list.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: quantityToHex(bytesToBigInt(chainId!)),
    address: bytesToHex(address!),
    nonce: quantityToHex(bytesToBigInt(nonce!)),
    yParity: quantityToHex(bytesToBigInt(yParity!)),
    r: quantityToHex(bytesToBigInt(r!)),
    s: quantityToHex(bytesToBigInt(s!)),
  }));
}

/** The RPC object of `tx`; `place` adds block position fields (null for pooled transactions). */
export function transactionToRpc(tx: TypedTransaction, place?: TransactionPlace): Fields {
  const t = tx as TypedTransaction & {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    chainId?: bigint;
    accessList?: [Uint8Array, Uint8Array[]][];
    authorizationList?: Uint8Array[][];
  };
  const out: Fields = { type: quantityToHex(tx.type) };
  const v = tx.v ?? 0n;
  if (tx.type === 0) {
    if (v >= 35n) out.chainId = quantityToHex((v - 35n) / 2n);
    out.nonce = quantityToHex(tx.nonce);
    out.gasPrice = quantityToHex(t.gasPrice!);
    out.gas = quantityToHex(tx.gasLimit);
  } else {
    out.chainId = quantityToHex(t.chainId!);
    out.nonce = quantityToHex(tx.nonce);
    out.gas = quantityToHex(tx.gasLimit);
    if (tx.type === 1) out.gasPrice = quantityToHex(t.gasPrice!);
    else {
      out.maxFeePerGas = quantityToHex(t.maxFeePerGas!);
      out.maxPriorityFeePerGas = quantityToHex(t.maxPriorityFeePerGas!);
    }
  }
  out.to = tx.to ? tx.to.toString() : null;
  out.value = quantityToHex(tx.value);
  if (tx.type !== 0) out.accessList = accessListToRpc(t.accessList ?? []);
  if (tx.type === 4) out.authorizationList = authorizationListToRpc(t.authorizationList ?? []);
  out.input = bytesToHex(tx.data);
  out.r = quantityToHex(tx.r ?? 0n);
  out.s = quantityToHex(tx.s ?? 0n);
  if (tx.type !== 0) out.yParity = quantityToHex(v);
  out.v = quantityToHex(v);
  out.hash = bytesToHex(tx.hash());
  out.blockHash = place ? bytesToHex(place.block.hash()) : null;
  out.blockNumber = place ? quantityToHex(place.block.header.number) : null;
  out.transactionIndex = place ? quantityToHex(place.index) : null;
  out.from = senderOf(tx).toString();
  if (tx.type >= 2) out.gasPrice = quantityToHex(place ? place.effectiveGasPrice : t.maxFeePerGas!);
  if (place) out.blockTimestamp = quantityToHex(place.block.header.timestamp);
  return out;
}

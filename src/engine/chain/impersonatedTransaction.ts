// Transactions sent from an impersonated address (anvil_impersonateAccount): no key signs them, so
// they carry anvil's zero signature (v = r = s = 0), report the impersonated sender, and get
// anvil's hash, keccak256(encoding ‖ sender), which keeps two senders' identical requests apart.
// Stored blocks keep only the zero signature: the sender comes back from the block's receipts.
import { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { type TypedTransaction, createTx, createTxFromBlockBodyData } from '@ethereumjs/tx';
import { Address, concatBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** anvil's hash of an impersonated transaction: keccak256(network encoding ‖ sender address). */
export function impersonatedHash(tx: TypedTransaction, sender: Uint8Array): Uint8Array {
  const serialized = tx.serialize();
  // alloy's Encodable for a typed transaction wraps the EIP-2718 bytes in an RLP string.
  const encoded = tx.type === 0 ? serialized : RLP.encode(serialized);
  return keccak_256(concatBytes(encoded, sender));
}

/**
 * True when `tx` carries the zero signature of an impersonated transaction (ethereumjs decodes
 * zero, i.e. empty, signature values as undefined).
 */
export function hasZeroSignature(tx: TypedTransaction): boolean {
  return (tx.r ?? 0n) === 0n && (tx.s ?? 0n) === 0n;
}

function markImpersonated(tx: TypedTransaction, sender: Uint8Array): TypedTransaction {
  const from = new Address(sender);
  const hash = impersonatedHash(tx, sender);
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from });
  Object.defineProperty(tx, 'hash', { value: () => hash });
  return tx;
}

/** `unsigned` with the zero signature, sent by `sender`. */
export function toImpersonatedTransaction(unsigned: TypedTransaction, sender: Uint8Array, common: Common): TypedTransaction {
  const withZeroSignature = createTx({ ...unsigned.toJSON(), v: 0n, r: 0n, s: 0n } as Parameters<typeof createTx>[0], { common, freeze: false });
  return markImpersonated(withZeroSignature, sender);
}

/**
 * `block` with each zero-signature transaction re-created to report its sender (from the block's
 * receipts, `senders[i]`); the block itself when it has none.
 */
export function restoreImpersonatedSenders(block: Block, senders: readonly (Uint8Array | undefined)[], common: Common): Block {
  if (!block.transactions.some(hasZeroSignature)) return block;
  const transactions = block.transactions.map((tx, i) => {
    const sender = senders[i];
    if (!hasZeroSignature(tx) || !sender) return tx;
    return markImpersonated(createTxFromBlockBodyData(tx.type === 0 ? (tx.raw() as Uint8Array[]) : tx.serialize(), { common: tx.common ?? common, freeze: false }), sender);
  });
  return new Block(block.header, transactions, block.uncleHeaders, block.withdrawals);
}

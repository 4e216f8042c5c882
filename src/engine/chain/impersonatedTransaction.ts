// Transactions sent from an impersonated address (anvil_impersonateAccount): no key signs them, so
// they carry anvil's zero signature (v = r = s = 0), report the impersonated sender, and get
// anvil's hash, keccak256(encoding ‖ sender), which keeps two senders' identical requests apart.
// Stored blocks keep only the zero signature: the sender comes back from the block's receipts.
import { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { type TypedTransaction, createTx, createTxFromBlockBodyData } from '@ethereumjs/tx';
import { Account, Address, KECCAK256_NULL, concatBytes, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
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

/** Transactions marked impersonated (by sending, or when a stored block is read back). */
const impersonatedTransactions = new WeakSet<TypedTransaction>();

/** Whether `tx` was sent from an impersonated address (its sender comes from no signature). */
export function isImpersonatedTransaction(tx: TypedTransaction): boolean {
  return impersonatedTransactions.has(tx);
}

function markImpersonated(tx: TypedTransaction, sender: Uint8Array): TypedTransaction {
  impersonatedTransactions.add(tx);
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

/** EIP-7702 delegated code (0xef0100 ‖ address): such senders pass EIP-3607 anyway. */
function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/**
 * Lets `vm` run impersonated transactions whose sender has code, as anvil does (it skips EIP-3607
 * for them; ethereumjs always applies it). For the length of such a transaction the sender's code
 * hash reads empty: masked when the VM announces the transaction, restored (with the nonce and
 * balance the transaction left) when it is done, so the state root is the one anvil computes. A
 * transaction that fails before running is reverted by the VM with the mask in it. The code was
 * read first, so a call back into the sender still runs it; EXTCODEHASH of the sender reads empty
 * meanwhile (as in eth_call from a contract). Installed on every VM the chain mines or replays on.
 */
export function allowImpersonatedContractSenders(vm: VM): VM {
  let masked: { sender: Address; codeHash: Uint8Array } | undefined;
  vm.events.on('beforeTx', (tx: TypedTransaction, resolve?: (result?: unknown) => void) => {
    masked = undefined;
    if (!isImpersonatedTransaction(tx)) return resolve?.();
    void (async () => {
      const sender = tx.getSenderAddress();
      const state = vm.stateManager;
      const account = await state.getAccount(sender);
      if (account && !equalsBytes(account.codeHash, KECCAK256_NULL) && !isDelegation(await state.getCode(sender))) {
        await state.putAccount(sender, new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL));
        masked = { sender, codeHash: account.codeHash };
      }
    })()
      .catch(() => undefined) // the VM then refuses the sender itself (EIP-3607)
      .finally(() => resolve?.());
  });
  vm.events.on('afterTx', (_event: unknown, resolve?: (result?: unknown) => void) => {
    const restore = masked;
    masked = undefined;
    if (!restore) return resolve?.();
    void (async () => {
      const account = await vm.stateManager.getAccount(restore.sender);
      if (account) await vm.stateManager.putAccount(restore.sender, new Account(account.nonce, account.balance, account.storageRoot, restore.codeHash));
    })()
      .catch(() => undefined)
      .finally(() => resolve?.());
  });
  return vm;
}

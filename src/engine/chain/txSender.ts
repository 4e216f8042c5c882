// A transaction's sender, recovered once per transaction object. ethereumjs keeps the recovered
// public key on a frozen transaction but hashes it into an address on every `getSenderAddress()`
// (a keccak each time); the miner, the recorder and the RPC encoders each ask for it, so a mined
// transaction paid that hash four times.
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';

const senders = new WeakMap<TypedTransaction, Address>();

/** `tx.getSenderAddress()`, computed once per transaction object (throws as it does). */
export function senderOf(tx: TypedTransaction): Address {
  let sender = senders.get(tx);
  if (sender === undefined) {
    sender = tx.getSenderAddress();
    senders.set(tx, sender);
  }
  return sender;
}

// Decoding and admission checks for signed transactions, with geth's error texts. A refused
// transaction throws before anything is executed, so it changes nothing.
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Capability, type TypedTransaction, createTxFromRLP } from '@ethereumjs/tx';
import { type Address, KECCAK256_NULL, bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util';
import { InvalidParamsError, ServerError } from '../../rpc/errors.js';
import { senderOf } from './txSender.js';

const DELEGATION_PREFIX = new Uint8Array([0xef, 0x01, 0x00]);
const SUPPORTED_TYPES = new Set([0, 1, 2, 4]);

/** The chain id a raw transaction commits to, or undefined for a pre-EIP-155 legacy tx. */
function rawChainId(raw: Uint8Array): bigint | undefined {
  if (raw[0]! >= 0xc0) {
    const fields = RLP.decode(raw) as Uint8Array[];
    const v = bytesToBigInt(fields[6] ?? new Uint8Array());
    return v >= 35n ? (v - 35n) / 2n : undefined;
  }
  const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
  return bytesToBigInt(fields[0] ?? new Uint8Array());
}

/** Decodes an EIP-2718 transaction; throws InvalidParamsError or ServerError (wrong chain, bad signature). */
export function decodeRawTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  if (raw.length === 0) throw new InvalidParamsError('invalid transaction: empty bytes');
  if (raw[0]! < 0x7f && !SUPPORTED_TYPES.has(raw[0]!)) throw new ServerError(`transaction type not supported: ${raw[0]}`);
  let chainId: bigint | undefined;
  try {
    chainId = rawChainId(raw);
  } catch (error) {
    throw new InvalidParamsError(`invalid transaction: ${(error as Error).message}`);
  }
  if (chainId !== undefined && chainId !== common.chainId()) {
    throw new ServerError(`invalid chain id for signer: have ${chainId} want ${common.chainId()}`);
  }
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common });
  } catch (error) {
    const message = (error as Error).message.split(' (tx type=')[0]!;
    if (/signature|s-value|yParity|v value/i.test(message)) throw new ServerError(`invalid transaction signature: ${message}`);
    if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/i.test(message)) {
      throw new ServerError('max priority fee per gas higher than max fee per gas');
    }
    throw new InvalidParamsError(`invalid transaction: ${message}`);
  }
  if (!tx.isSigned()) throw new ServerError('invalid transaction signature: transaction is not signed');
  return tx;
}

/** Recovers the sender; a signature that recovers no key is refused. */
export function recoverSender(tx: TypedTransaction): Address {
  try {
    return senderOf(tx);
  } catch (error) {
    throw new ServerError(`invalid sender: ${(error as Error).message.split(' (tx type=')[0]}`);
  }
}

export interface AdmissionContext {
  /** Working state the transaction will run on. */
  state: MerkleStateManager;
  /** Base fee of the block the transaction would go into. */
  baseFee: bigint;
  blockGasLimit: bigint;
  /** Nonce the sender's next transaction must carry (account nonce plus queued transactions). */
  expectedNonce: bigint;
  /** An impersonated transaction: its sender may have code (anvil skips EIP-3607 for them). */
  allowContractSender?: boolean;
}

/**
 * Checks a decoded, signed transaction against the working state like geth's txpool: gas limits,
 * fee cap, nonce, balance, sender code. Returns the sender.
 */
export async function checkTransactionAdmission(tx: TypedTransaction, ctx: AdmissionContext): Promise<Address> {
  const sender = recoverSender(tx);
  if (tx.gasLimit > ctx.blockGasLimit) {
    throw new ServerError(`exceeds block gas limit: have ${tx.gasLimit}, want at most ${ctx.blockGasLimit}`);
  }
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) throw new ServerError(`intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`);
  const floor = tx.getMinimumGasLimit();
  if (tx.gasLimit < floor) throw new ServerError(`insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`);
  const feeCap = tx.supports(Capability.EIP1559FeeMarket)
    ? (tx as TypedTransaction & { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as TypedTransaction & { gasPrice: bigint }).gasPrice;
  if (feeCap < ctx.baseFee) {
    throw new ServerError(`max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${feeCap}, baseFee: ${ctx.baseFee}`);
  }
  if (tx.nonce < ctx.expectedNonce) throw new ServerError(`nonce too low: next nonce ${ctx.expectedNonce}, tx nonce ${tx.nonce}`);
  if (tx.nonce > ctx.expectedNonce) throw new ServerError(`nonce too high: next nonce ${ctx.expectedNonce}, tx nonce ${tx.nonce}`);
  const account = await ctx.state.getAccount(sender);
  const balance = account?.balance ?? 0n;
  const cost = tx.gasLimit * feeCap + tx.value;
  if (balance < cost) {
    throw new ServerError(`insufficient funds for gas * price + value: address ${sender} have ${balance} want ${cost}`);
  }
  if (account && !ctx.allowContractSender && !equalsBytes(account.codeHash, KECCAK256_NULL)) {
    const code = await ctx.state.getCode(sender);
    if (!equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) {
      throw new ServerError(`sender not an eoa: address ${sender}, codehash: ${bytesToHex(account.codeHash)}`);
    }
  }
  return sender;
}

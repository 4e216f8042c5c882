// eth_estimateGas: the smallest gas limit at which the request succeeds, found by binary search
// like geth/anvil (first run at the cap, then an optimistic guess from the used gas, then bisect
// to the exact boundary, which is what anvil returns). On the interpreter the first run also works
// out the least limit that takes the same path; when a run there succeeds and one a unit below
// fails, that is the boundary, found in 3 runs instead of about 15.
import { paramsTx } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { type CallEnv, type CallGuard, type CallOutcome, type CallSession, type CallTarget, callOutcomeToError, withCallSession } from './callExecution.js';
import { ServerError } from '../../rpc/errors.js';
import type { StateOverrides } from './stateOverrides.js';
import type { TransactionRequest } from './transactionRequest.js';

const CALL_STIPEND = 2300n;
const TX_GAS = 21_000n;
/** EIP-7825's transaction gas limit cap (2^24), as ethereumjs's transactions enforce it. */
const MAX_TX_GAS = BigInt(paramsTx[7825]!.maxTransactionGasLimit!);

/**
 * Estimates the gas `request` needs on `target`; throws the call's error if it fails at the cap.
 * With `guard`, the whole search runs within its one deadline.
 */
export async function estimateGas(env: CallEnv, request: TransactionRequest, target: CallTarget, overrides?: StateOverrides, guard?: CallGuard): Promise<bigint> {
  return withCallSession(env, request, target, overrides, (session) => searchGas(env, request, target, session), guard);
}

async function searchGas(env: CallEnv, request: TransactionRequest, target: CallTarget, session: CallSession): Promise<bigint> {
  let hi = request.gas !== undefined && request.gas >= TX_GAS ? request.gas : target.block.header.gasLimit;
  if (hi > env.gasCap) hi = env.gasCap;
  // Osaka and later: no transaction may name more than EIP-7825's cap, so neither may an estimate (geth).
  if (hi > MAX_TX_GAS && env.common.isActivatedEIP(7825)) hi = MAX_TX_GAS;
  if (session.feeCap > 0n) {
    const balance = (await session.stateManager.getAccount(session.from))?.balance ?? 0n;
    const available = balance - (request.value ?? 0n);
    if (available < 0n) throw new ServerError('insufficient funds for transfer');
    const allowance = available / session.feeCap;
    if (allowance < hi) hi = allowance;
  }
  // A plain transfer to an account without code: the base cost when it is enough (geth's shortcut,
  // tried rather than assumed: a precompile has no code and still charges for its work, e.g.
  // ecrecover's 3,000 on empty input); else the search below.
  if (request.to && (request.data?.length ?? 0) === 0 && !request.authorizationList && !request.accessList?.length && hi >= TX_GAS) {
    const code = await session.stateManager.getCode(new Address(request.to));
    if (code.length === 0 && (await succeeds(TX_GAS))) return TX_GAS;
  }
  const first = await session.run(hi, { trackGasNeed: true });
  if (first.error !== undefined) {
    if (first.error === 'out of gas') throw new ServerError(`gas required exceeds allowance (${hi})`);
    throw callOutcomeToError(first)!;
  }
  return leastGasLimit(first, hi, succeeds);

  async function succeeds(gasLimit: bigint): Promise<boolean> {
    try {
      return (await session.run(gasLimit)).error === undefined;
    } catch (error) {
      // Below the intrinsic cost runTx refuses the transaction: that limit is simply too low.
      if (error instanceof ServerError && /intrinsic gas too low|floor/i.test(error.message)) return false;
      throw error;
    }
  }
}

/**
 * The boundary in (first.gasUsed - 1, hi] below which the call fails and from which it succeeds,
 * given the successful run at `hi`. With `first.gasNeeded` (the least limit taking the first run's
 * path) it is tried first: a success there and a failure one unit below is the boundary the
 * bisection would find, if success does not come back lower down (the bisection assumes the same).
 * Otherwise, or when that check fails (a path that depends on the gas it is given: GAS, or a child
 * that fails with less), the bisection goes on with what the two runs showed.
 */
export async function leastGasLimit(first: Pick<CallOutcome, 'gasUsed' | 'gasRefund' | 'gasNeeded'>, hi: bigint, succeeds: (gasLimit: bigint) => Promise<boolean>): Promise<bigint> {
  let lo = first.gasUsed - 1n;
  const guess = first.gasNeeded;
  if (guess !== undefined && guess > lo && guess < hi) {
    if (await succeeds(guess)) {
      if (guess - 1n <= lo || !(await succeeds(guess - 1n))) return guess;
      hi = guess - 1n;
    } else lo = guess;
  }
  const optimistic = ((first.gasUsed + first.gasRefund + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi && optimistic > lo) {
    if (await succeeds(optimistic)) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    if (await succeeds(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

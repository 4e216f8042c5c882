// eth_createAccessList: runs a call with access reporting, then again with the list it found, until
// the list stops changing (geth's loop), and answers the list with the gas the call uses with it.
// Like geth, the sender, the recipient and the precompiles are left out of the list.
import { hexToBytes } from '@ethereumjs/util';
import { ServerError } from '../../rpc/errors.js';
import { type CallEnv, type CallGuard, type CallTarget, callOutcomeToError, withCallSession } from './callExecution.js';
import type { AccessListEntry, TransactionRequest } from './transactionRequest.js';

export interface CreatedAccessList {
  accessList: AccessListEntry[];
  gasUsed: bigint;
  /** The call's failure (geth answers it beside the list instead of failing). */
  error?: string;
}

/** Rounds geth allows before giving up on a list that keeps changing. */
const MAX_ROUNDS = 8;

function isPrecompile(address: string): boolean {
  return /^0x0{36}0*[0-9a-f]{1,4}$/.test(address) && BigInt(address) >= 1n && BigInt(address) <= 0x11n;
}

function keyOf(list: AccessListEntry[]): string {
  return list.map((e) => `${Buffer.from(e.address).toString('hex')}:${e.storageKeys.map((k) => Buffer.from(k).toString('hex')).sort().join(',')}`).sort().join(';');
}

export async function createAccessList(env: CallEnv, request: TransactionRequest, target: CallTarget, guard?: CallGuard): Promise<CreatedAccessList> {
  const gasLimit = request.gas !== undefined && request.gas < env.gasCap ? request.gas : env.gasCap;
  const excluded = new Set([request.from, request.to].filter((a): a is Uint8Array => a !== undefined).map((a) => `0x${Buffer.from(a).toString('hex')}`));
  let list: AccessListEntry[] = request.accessList ?? [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const outcome = await withCallSession(env, { ...request, accessList: list }, target, undefined, (session) => session.run(gasLimit, { reportAccessList: true }), guard);
    const found = (outcome.accessList ?? [])
      .filter((e) => !excluded.has(e.address.toLowerCase()) && !isPrecompile(e.address.toLowerCase()))
      .map((e) => ({ address: hexToBytes(e.address as `0x${string}`), storageKeys: e.storageKeys.map((k) => hexToBytes(`0x${k.slice(2).padStart(64, '0')}`)) }));
    if (keyOf(found) === keyOf(list) || round === MAX_ROUNDS - 1) {
      const error = callOutcomeToError(outcome);
      return { accessList: found, gasUsed: outcome.gasUsed, ...(error ? { error: error.message } : {}) };
    }
    list = found;
  }
  throw new ServerError('eth_createAccessList: the access list did not settle');
}

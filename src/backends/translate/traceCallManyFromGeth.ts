// trace_callMany from a geth-family node: each call is traced with debug_traceCall on the block's
// state overridden by every earlier call's changes (its prestateTracer `diffMode` post state, as
// geth's `stateOverrides`), so each sees the previous ones' effects as the embedded engine's
// trace_callMany does; one Parity result per call, rendered by src/engine/render.
import type { TouchedAccount } from '../../engine/record/types.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { DEFAULT_CALL_GAS, gethRecordOfCall } from './gethSources.js';
import { traceCallFromGeth, traceCallResults } from './parityFromGeth.js';
import { acceptsTraceTypes, translatableTraceTypes } from './traceTypes.js';
import type { Translation } from './translation.js';
import type { CallObject } from './txFacts.js';

/** geth's account override (eth_call / debug_traceCall `stateOverrides`). */
export interface AccountOverride {
  balance?: string;
  nonce?: string;
  code?: string;
  /** Replaces the whole storage. */
  state?: Record<string, string>;
  /** Changes these slots only. */
  stateDiff?: Record<string, string>;
}

const word = (value: bigint): string => `0x${value.toString(16).padStart(64, '0')}`;

/** `overrides` with the post state of a call's touched accounts laid over it. */
export function overridesAfter(overrides: Record<string, AccountOverride>, accounts: Map<string, TouchedAccount>): Record<string, AccountOverride> {
  const out = { ...overrides };
  for (const [address, account] of accounts) {
    if (!account.post) {
      // Destroyed: nothing of it is left.
      out[address] = { balance: '0x0', nonce: '0x0', code: '0x', state: {} };
      continue;
    }
    const previous = out[address] ?? {};
    const next: AccountOverride = { ...previous, balance: quantityToHex(account.post.balance), nonce: quantityToHex(account.post.nonce), code: bytesToHex(account.post.code) };
    const slots: Record<string, string> = {};
    for (const [slot, value] of account.storage) if (value.post !== undefined) slots[slot] = word(value.post);
    if (previous.state) next.state = { ...previous.state, ...slots };
    else next.stateDiff = { ...previous.stateDiff, ...slots };
    out[address] = next;
  }
  return out;
}

export const traceCallManyFromGeth: Translation = {
  method: 'trace_callMany',
  from: 'geth',
  requires: traceCallFromGeth.requires,
  optional: traceCallFromGeth.optional,
  accepts: (params) => Array.isArray(params[0]) && params[0].every((item) => Array.isArray(item) && acceptsTraceTypes(item[1])),
  async run(params, upstream) {
    const calls = params[0];
    if (!Array.isArray(calls) || calls.length === 0) throw new InvalidParamsError('trace_callMany: calls must be a non-empty list of [call, traceTypes]');
    const block = params[1] ?? 'latest';
    let overrides: Record<string, AccountOverride> = {};
    const out: unknown[] = [];
    for (const [i, item] of calls.entries()) {
      if (!Array.isArray(item) || typeof item[0] !== 'object' || item[0] === null) throw new InvalidParamsError(`trace_callMany: call ${i} must be [call, traceTypes]`);
      const types = translatableTraceTypes('trace_callMany', item[1]);
      const last = i === calls.length - 1;
      const call = { ...(item[0] as CallObject), gas: (item[0] as CallObject).gas ?? DEFAULT_CALL_GAS };
      const translated = await gethRecordOfCall(upstream, call, block, { state: types.includes('stateDiff') || !last, refund: types.includes('trace') }, Object.keys(overrides).length > 0 ? overrides : undefined);
      out.push(traceCallResults('trace_callMany', translated, types));
      if (!last) overrides = overridesAfter(overrides, translated.record.accounts!);
    }
    return out;
  },
};

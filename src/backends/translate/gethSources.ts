// Records from a geth-family node's tracers: callTracer for the frames, prestateTracer (default
// mode) to learn whether storage was touched at all; when it was and the root succeeded, the
// root's gas before the refund from the engine re-running a mined transaction on that prestate
// (gasByReexecution.ts, verified against the receipt), else the JavaScript refund tracer; and prestateTracer `diffMode` for the touched state when asked. One mined
// transaction, one block (debug_traceBlockByHash, one call per tracer for the whole block) or one
// call (debug_traceCall).
import type { TouchedAccount } from '../../engine/record/types.js';
import { UpstreamError, UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { bytesToHex } from '../../rpc/hex.js';
import { quantity, type CallObject } from './txFacts.js';
import { recordFromCallTracer } from './parseCallTracer.js';
import { accountsFromPrestateDiff, prestateTouchedNoStorage } from './parsePrestateDiff.js';
import { executionGasByReexecution } from './gasByReexecution.js';
import { REFUND_TRACER, refundFromTracerResult } from './refundTracer.js';
import type { TranslatedRecord } from './translatedRecord.js';
import { type MinedBlock, type MinedTxFacts, type Upstream, callFacts, fetchMinedBlock, fetchMinedTx } from './upstreamFacts.js';

export interface GethRecordNeeds {
  /** Touched accounts with pre/post state (stateDiff). */
  state: boolean;
  /**
   * The root's execution gas before the refund (Parity `trace`): asks prestateTracer whether
   * storage was touched, and then the JavaScript refund tracer. Without it the refund is a gap.
   */
  refund: boolean;
}

const CALL_TRACER = { tracer: 'callTracer' };
const PRESTATE = { tracer: 'prestateTracer' };
const PRESTATE_DIFF = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } };

function rootFailed(callTrace: unknown): boolean {
  return typeof callTrace === 'object' && callTrace !== null && (callTrace as { error?: unknown }).error !== undefined;
}

/**
 * The JavaScript refund tracer's answer; undefined when the node refuses it (any error answer of
 * its own: unknown tracer, JavaScript disabled or failing). Transport faults (UpstreamError: no
 * answer, timeout, a bad answer, the caller gone) fail the request as any other call would.
 */
async function refundByJs(upstream: Upstream, method: string, params: unknown[], stateOverrides?: object): Promise<unknown> {
  try {
    return await upstream(method, [...params, stateOverrides ? { tracer: REFUND_TRACER, stateOverrides } : { tracer: REFUND_TRACER }]);
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    return undefined;
  }
}

function withState(translated: TranslatedRecord, accounts: Map<string, TouchedAccount> | undefined, mined = false): TranslatedRecord {
  if (!accounts) return translated;
  // A mined transaction always changes its sender (nonce, fees): a diff without it is not this transaction's.
  if (mined && !accounts.has(bytesToHex(translated.record.tx.from))) throw new UpstreamTraceMalformedError('prestateTracer', 'the diff does not list the sender');
  translated.record.accounts = accounts;
  return translated;
}

/** A mined transaction's record. */
export async function gethRecordOfTx(upstream: Upstream, hash: string, needs: GethRecordNeeds): Promise<{ translated: TranslatedRecord; facts: MinedTxFacts }> {
  // Asked together; an unknown transaction is reported as the lookup's not-found, whatever the tracers say.
  const traces = Promise.all([
    upstream('debug_traceTransaction', [hash, CALL_TRACER]),
    needs.refund ? upstream('debug_traceTransaction', [hash, PRESTATE]) : undefined,
    needs.state ? upstream('debug_traceTransaction', [hash, PRESTATE_DIFF]) : undefined,
  ]);
  traces.catch(() => undefined);
  const facts = await fetchMinedTx(upstream, hash);
  // The block's header, for a re-execution on the prestate (asked while the tracers run).
  const header = needs.refund ? upstream('eth_getBlockByHash', [facts.location.blockHash, false]).catch(() => undefined) : undefined;
  const [callTrace, prestate, diff] = await traces;
  let refundCounter: bigint | undefined = needs.refund ? 0n : undefined;
  let executionGasBeforeRefund: bigint | undefined;
  if (needs.refund && !rootFailed(callTrace) && !prestateTouchedNoStorage(prestate)) {
    executionGasBeforeRefund = await executionGasByReexecution({ txJson: facts.txJson, header: await header, prestate, receiptGasUsed: facts.tx.gasUsed, rootFailed: false });
    if (executionGasBeforeRefund === undefined) {
      const js = await refundByJs(upstream, 'debug_traceTransaction', [hash]);
      refundCounter = js === undefined ? undefined : refundFromTracerResult(js);
    }
  }
  const translated = recordFromCallTracer({ trace: callTrace, tx: facts.tx, withLog: false, refundCounter, executionGasBeforeRefund, floorGas: facts.floorGas });
  return { translated: withState(translated, diff === undefined ? undefined : accountsFromPrestateDiff(diff), true), facts };
}

/** Per-transaction results of a debug_traceBlock* answer, checked against the block's transactions. */
function blockResults(answer: unknown, block: MinedBlock, what: string): unknown[] {
  if (!Array.isArray(answer) || answer.length !== block.txs.length) {
    throw new UpstreamTraceMalformedError(what, "the results do not match the block's transactions");
  }
  return answer.map((item, i) => {
    if (typeof item !== 'object' || item === null) throw new UpstreamTraceMalformedError(what, `result ${i} is not an object`);
    const { txHash, result, error } = item as { txHash?: unknown; result?: unknown; error?: unknown };
    if (txHash !== undefined && txHash !== block.txs[i]!.location.transactionHash) throw new UpstreamTraceMalformedError(what, `result ${i} is for another transaction`);
    if (error !== undefined || result === undefined) throw new UpstreamTraceMalformedError(what, `transaction ${i} has no result`);
    return result;
  });
}

/** Every transaction's record of a block, in order; undefined for an unknown block. */
export async function gethRecordsOfBlock(upstream: Upstream, blockParam: unknown, needs: GethRecordNeeds): Promise<{ block: MinedBlock; records: TranslatedRecord[] } | undefined> {
  const block = await fetchMinedBlock(upstream, blockParam);
  if (!block) return undefined;
  if (block.txs.length === 0) return { block, records: [] };
  const [calls, prestates, diffs] = await Promise.all([
    upstream('debug_traceBlockByHash', [block.hash, CALL_TRACER]).then((a) => blockResults(a, block, 'debug_traceBlockByHash callTracer')),
    needs.refund ? upstream('debug_traceBlockByHash', [block.hash, PRESTATE]).then((a) => blockResults(a, block, 'debug_traceBlockByHash prestateTracer')) : undefined,
    needs.state ? upstream('debug_traceBlockByHash', [block.hash, PRESTATE_DIFF]).then((a) => blockResults(a, block, 'debug_traceBlockByHash prestateTracer')) : undefined,
  ]);
  const needRefund = calls.map((c, i) => (prestates ? !rootFailed(c) && !prestateTouchedNoStorage(prestates[i]) : false));
  // Each transaction's own prestate is exactly the state it ran on, so each re-executes alone.
  const gas: (bigint | undefined)[] = [];
  for (let i = 0; i < block.txs.length; i++) {
    const facts = block.txs[i]!;
    gas.push(needRefund[i] ? await executionGasByReexecution({ txJson: facts.txJson, header: block.json, prestate: prestates![i], receiptGasUsed: facts.tx.gasUsed, rootFailed: false }) : undefined);
  }
  let refunds: unknown[] | undefined;
  if (needRefund.some((need, i) => need && gas[i] === undefined)) {
    const js = await refundByJs(upstream, 'debug_traceBlockByHash', [block.hash]);
    refunds = js === undefined ? undefined : blockResults(js, block, 'debug_traceBlockByHash refund tracer');
  }
  const records = block.txs.map((facts, i) => {
    const refundCounter = !needs.refund ? undefined : !needRefund[i] ? 0n : refunds ? refundFromTracerResult(refunds[i]) : undefined;
    const translated = recordFromCallTracer({ trace: calls[i], tx: facts.tx, withLog: false, refundCounter, executionGasBeforeRefund: gas[i], floorGas: facts.floorGas });
    return withState(translated, diffs ? accountsFromPrestateDiff(diffs[i]) : undefined, true);
  });
  return { block, records };
}

/**
 * The gas a call names, else the gas cap the embedded engine uses when none is named (50,000,000,
 * docs/trace-conventions.md "Calls"), so both run the call with the same limit.
 */
export const DEFAULT_CALL_GAS = '0x2faf080';

/**
 * A call's record (debug_traceCall at `block`), on the block's state changed by `stateOverrides`
 * (geth's override set, passed to every tracer call as its `stateOverrides`).
 */
export async function gethRecordOfCall(upstream: Upstream, call: CallObject, block: unknown, needs: GethRecordNeeds, stateOverrides?: object): Promise<TranslatedRecord> {
  const sent = { ...call, gas: call.gas ?? DEFAULT_CALL_GAS };
  const config = (tracer: object): object => (stateOverrides ? { ...tracer, stateOverrides } : tracer);
  const [callTrace, prestate, diff] = await Promise.all([
    upstream('debug_traceCall', [sent, block, config(CALL_TRACER)]),
    needs.refund ? upstream('debug_traceCall', [sent, block, config(PRESTATE)]) : undefined,
    needs.state ? upstream('debug_traceCall', [sent, block, config(PRESTATE_DIFF)]) : undefined,
  ]);
  if (typeof callTrace !== 'object' || callTrace === null) throw new UpstreamTraceMalformedError('callTracer', 'the result is not an object');
  // A call has no receipt: the root's `gasUsed` is what geth's receipt would say.
  const { tx, floorGas } = callFacts(sent, quantity((callTrace as { gasUsed?: unknown }).gasUsed, 'gasUsed'));
  let refundCounter: bigint | undefined = needs.refund ? 0n : undefined;
  if (needs.refund && !rootFailed(callTrace) && !prestateTouchedNoStorage(prestate)) {
    const js = await refundByJs(upstream, 'debug_traceCall', [sent, block], stateOverrides);
    refundCounter = js === undefined ? undefined : refundFromTracerResult(js);
  }
  const translated = recordFromCallTracer({ trace: callTrace, tx, withLog: false, refundCounter, floorGas });
  return withState(translated, diff === undefined ? undefined : accountsFromPrestateDiff(diff));
}

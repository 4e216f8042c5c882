// The gas refund of a transaction from a geth-family node, which no native tracer reports (the
// callTracer's root `gasUsed` is the receipt's, after the refund): a tiny JavaScript tracer reads
// the refund counter at every step, and the counter at the root's last step is the transaction's
// when that step is the root's own STOP/RETURN/SELFDESTRUCT (nothing runs after it). geth and
// anvil run JavaScript tracers; a node that does not leaves the refund a gap.
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';

/** The tracer source sent as `tracer` (geth's JavaScript tracer API: step(log), fault(), result()). */
export const REFUND_TRACER = [
  '{r: 0, d: 0, o: "",',
  ' step: function(log) { this.r = log.getRefund(); this.d = log.getDepth(); this.o = log.op.toString(); },',
  ' fault: function() {},',
  ' result: function() { return {refund: this.r, depth: this.d, op: this.o}; }}',
].join('');

const FINAL_OPS = new Set(['STOP', 'RETURN', 'SELFDESTRUCT']);

/** The refund counter at the end of the transaction, or undefined when the last step does not show it. */
export function refundFromTracerResult(result: unknown): bigint | undefined {
  if (typeof result !== 'object' || result === null) throw new UpstreamTraceMalformedError('refund tracer', 'the result is not an object');
  const { refund, depth, op } = result as { refund?: unknown; depth?: unknown; op?: unknown };
  if (typeof refund !== 'number' || !Number.isSafeInteger(refund) || refund < 0) throw new UpstreamTraceMalformedError('refund tracer', '`refund` is not a count');
  // No step at all: no code ran, so no SSTORE and no refund.
  if (depth === 0 && op === '') return 0n;
  if (depth !== 1 || typeof op !== 'string' || !FINAL_OPS.has(op)) return undefined;
  return BigInt(refund);
}

/**
 * Execution gas before the refund (Parity's root `gasUsed`) from the receipt's gas used, intrinsic
 * gas and the refund counter: receipt = total − min(counter, ⌊total / 5⌋) (EIP-3529), total =
 * intrinsic + execution. Undefined when no total fits.
 */
export function executionGasBeforeRefund(receiptGasUsed: bigint, intrinsicGas: bigint, counter: bigint): bigint | undefined {
  const uncapped = receiptGasUsed + counter;
  if (counter <= uncapped / 5n) return uncapped - intrinsicGas;
  // Capped: receipt = total − ⌊total / 5⌋, which two totals can give; only a single fit is an answer.
  const fits: bigint[] = [];
  for (let total = (receiptGasUsed * 5n) / 4n - 2n; total <= (receiptGasUsed * 5n) / 4n + 2n; total++) {
    if (total - total / 5n === receiptGasUsed && total / 5n <= counter) fits.push(total);
  }
  return fits.length === 1 ? fits[0]! - intrinsicGas : undefined;
}

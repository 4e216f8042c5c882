// geth's `4byteTracer`: counts `selector-calldatasize` pairs over every call frame with at least
// four bytes of input, skipping contract creations and calls into precompiles.
// Reference: eth/tracers/native/4byte.go.
import { bytesToHex } from '../../rpc/hex.js';
import type { ExecutionRecord } from '../record/types.js';

/** Renders `{ "0xa9059cbb-64": 1, ... }` for one transaction. */
export function renderFourByteTracer(record: ExecutionRecord): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const frame of record.frames) {
    if (frame.input.length < 4 || frame.precompile) continue;
    if (frame.kind === 'CREATE' || frame.kind === 'CREATE2' || frame.kind === 'SELFDESTRUCT') continue;
    const key = `${bytesToHex(frame.input.subarray(0, 4))}-${frame.input.length - 4}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

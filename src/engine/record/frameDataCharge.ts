// The bound on frames' call and return data (RecordNeeds.frames), shared by both recorders (the
// ethereumjs one in frameTracker.ts and the interpreter's in interpreter/fastRecorder.ts): traces
// charge each frame's data to the job's budget and stop past it; the miner and the follower keep no
// more input past their byte limit and mark the record incomplete.
import { stepCapError } from './stepBudget.js';
import type { FrameBounds } from './types.js';

const EMPTY = new Uint8Array(0);
/** A rendered frame's own fields (addresses, gas, value, type) besides its data, in bytes of JSON. */
const FRAME_JSON_BYTES = 160;

export interface FrameDataCharge {
  /** Charges a frame's input (`newFrame`) or output; returns the data to keep, or throws the cap's error. */
  charged(data: Uint8Array, newFrame: boolean): Uint8Array;
  /** Some frame's input was left out (bounds of kind `drop`). */
  dropped(): boolean;
}

export function createFrameDataCharge(bounds: FrameBounds | undefined): FrameDataCharge {
  let keptBytes = 0;
  let dropped = false;
  return {
    charged(data, newFrame) {
      if (!bounds) return data;
      if (bounds.kind === 'refuse') {
        // Spent already by the steps: their recorder refuses at its next step or at the end, with
        // its own advice (whichever recorder and whenever it charges a step, ethereumjs or the core).
        if (bounds.budget.charge(0, 0)) return data;
        // Each byte renders as two hex digits.
        const passed = bounds.budget.charge(0, (newFrame ? FRAME_JSON_BYTES : 0) + 2 * data.length);
        if (passed) throw stepCapError(bounds.budget, passed, bounds.advice);
        return data;
      }
      if (data.length === 0) return data;
      keptBytes += data.length;
      if (keptBytes > bounds.maxBytes) dropped = true;
      return dropped ? EMPTY : data;
    },
    dropped: () => dropped,
  };
}

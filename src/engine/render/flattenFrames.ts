// Walks the frame arena depth-first (parent before children, siblings in execution order) and
// assigns Parity `traceAddress`/`subtraces`, skipping hidden frames with their subtrees. Shared by
// the Parity `trace` renderer and geth's `flatCallTracer`.
import type { ExecutionRecord } from '../record/types.js';

export interface FlatFrame {
  frame: number;
  traceAddress: number[];
  /** Visible children. */
  subtraces: number;
}

/** Frames in output order; `visible` decides per frame (a hidden frame hides its subtree). */
export function flattenFrames(record: ExecutionRecord, visible: (frame: number) => boolean): FlatFrame[] {
  const out: FlatFrame[] = [];
  const walk = (index: number, traceAddress: number[]): void => {
    const entry: FlatFrame = { frame: index, traceAddress, subtraces: 0 };
    out.push(entry);
    let child = 0;
    for (const c of record.frames[index]!.children) {
      if (!visible(c)) continue;
      walk(c, [...traceAddress, child++]);
    }
    entry.subtraces = child;
  };
  if (record.frames.length > 0) walk(0, []);
  return out;
}

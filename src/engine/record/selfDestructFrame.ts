// The frame a SELFDESTRUCT adds under the frame that ran it (both recorders: ethereumjs's events
// and the interpreter's hooks): the balance moved to the beneficiary, no gas, no data.
import type { RecordedFrame } from './types.js';

const EMPTY = new Uint8Array(0);

export function selfDestructFrame(parent: number, parentDepth: number, from: Uint8Array, to: Uint8Array, balance: bigint): RecordedFrame {
  return {
    parent,
    children: [],
    depth: parentDepth + 1,
    kind: 'SELFDESTRUCT',
    from,
    to,
    contextAddress: undefined,
    value: balance,
    gas: 0n,
    gasUsed: 0n,
    input: EMPTY,
    output: EMPTY,
    error: undefined,
    precompile: false,
    started: false,
    logs: [],
  };
}

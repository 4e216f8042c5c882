// The follower's block tracer on the embedded chain: the tracing engine's callTracer frames of each
// transaction of a mined block, as the plain call-frame data the extractors read. They come from
// the records the miner kept when it kept them all (no re-execution), else from a replay.
import type { Block } from '@ethereumjs/block';
import type { Tracer } from '../../engine/trace/createTracer.js';
import { renderCallTracer } from '../../engine/render/callTracer.js';
import { needsOfGethTracer } from '../../engine/render/gethTracers.js';
import type { CallFrame } from '../extract/blockData.js';
import type { BlockTracer } from './chainBlockSource.js';

export function createEngineBlockTracer(tracer: Pick<Tracer, 'recordBlock'>): BlockTracer {
  const needs = needsOfGethTracer({ tracer: 'callTracer', config: {} });
  return async (block: Block) =>
    // CallFrame is the wire (JSON) shape of a callTracer frame, which is what the renderer returns.
    (await tracer.recordBlock(block, needs)).map((t) => renderCallTracer(t.record, {}, t.context) as unknown as CallFrame);
}

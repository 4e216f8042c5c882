// The follower's block tracer on the embedded chain: the tracing engine's callTracer frames of each
// transaction of a mined block, as the plain call-frame data the extractors read. They come from
// the records the miner kept when it kept them all (no re-execution), else from a replay.
import type { Block } from '@ethereumjs/block';
import type { Tracer } from '../../engine/trace/createTracer.js';
import { renderCallTracer } from '../../engine/render/callTracer.js';
import { MINED_RECORD_NEEDS } from '../../engine/chain/minedRecordStore.js';
import { needsOfGethTracer } from '../../engine/render/gethTracers.js';
import type { CallFrame } from '../extract/blockData.js';
import type { BlockTracer } from './chainBlockSource.js';

/**
 * `timeoutMs` bounds a replay of a block the miner kept no records for. The block is already mined,
 * so its replay takes about as long as mining it did: give it the longest trace timeout, not a
 * client's default, or a heavy block would time out on every try and hold the follower on it.
 */
export function createEngineBlockTracer(tracer: Pick<Tracer, 'recordBlock'>, timeoutMs?: number): BlockTracer {
  // As the miner's records: past 1 MiB of call data in one transaction, frames keep no more input
  // (the follower renders on the main thread and must go on; those frames show empty input).
  const needs = { ...needsOfGethTracer({ tracer: 'callTracer', config: {} }), frames: MINED_RECORD_NEEDS.frames };
  return async (block: Block) =>
    // CallFrame is the wire (JSON) shape of a callTracer frame, which is what the renderer returns.
    (await tracer.recordBlock(block, needs, timeoutMs)).map((t) => renderCallTracer(t.record, {}, t.context) as unknown as CallFrame);
}

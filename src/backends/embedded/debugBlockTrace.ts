// Shared by debug_traceBlockByNumber/Hash: replays a block once and renders the requested tracer
// for each transaction as `[{txHash, result}]` (geth's shape). Cached by block hash until a reorg.
import type { Block } from '@ethereumjs/block';
import type { Tracer } from '../../engine/trace/createTracer.js';
import type { JobScope } from '../../engine/trace/traceJob.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { TraceOptions } from '../../rpc/schema/debug.js';
import { requestKey, toEngineRequest, traceOptionsOrDefault } from './gethTraceOptions.js';

export async function traceBlockWithGethTracer(tracer: Tracer, block: Block, options: TraceOptions | undefined, scope?: JobScope): Promise<unknown> {
  const { request, timeoutMs } = traceOptionsOrDefault(options);
  return tracer.cached(`debug_traceBlock:${bytesToHex(block.hash())}:${requestKey(request)}`, () =>
    tracer.traceBlock(block, { format: 'geth', request: toEngineRequest(request) }, timeoutMs, scope),
  );
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTracer, type Tracer } from '../../engine/trace/createTracer.js';
import { ExecutionTimeoutError } from '../../engine/execute/executionGuard.js';
import { openEmbeddedChain, type EmbeddedChain } from './testing/embeddedChain.js';
import { createEngineBlockTracer } from './engineBlockTracer.js';

// A contract that loops until its gas runs out: JUMPDEST, PUSH1 0, JUMP.
const LOOP_CODE = '0x5b600056';
const LOOP = '0x00000000000000000000000000000000000100ff';

describe('the follower block tracer on the embedded chain', () => {
  let chain: EmbeddedChain;
  let tracer: Tracer;
  beforeAll(async () => {
    // No records kept at mining: the follower has to replay the block.
    chain = await openEmbeddedChain({ minedRecordBytes: 0 });
    // Requests get 1 ms by default; the longest a trace may run is 20 s.
    tracer = createTracer({ chain: chain.chain, timeoutMs: 1, maxTimeoutMs: 20_000 });
  });
  afterAll(async () => {
    tracer?.close();
    await chain?.dispose();
  });

  it('behavior: a block whose replay outlasts the default trace timeout is traced within the longest one, not retried forever', async () => {
    await chain.request('anvil_setCode', [LOOP, LOOP_CODE]);
    const [from] = (await chain.request('eth_accounts', [])) as string[];
    const hash = (await chain.request('eth_sendTransaction', [{ from, to: LOOP, gas: '0x2dc6c0' }])) as string;
    const receipt = (await chain.request('eth_getTransactionReceipt', [hash])) as { blockHash: string; status: string };
    expect(receipt.status).toBe('0x0');
    const block = (await chain.chain.getBlockByHash(Buffer.from(receipt.blockHash.slice(2), 'hex')))!;
    // A request's default (1 ms) cannot replay 3M gas of loop: the follower would fail this block on every try.
    await expect(createEngineBlockTracer(tracer, 1)(block)).rejects.toBeInstanceOf(ExecutionTimeoutError);
    const frames = await createEngineBlockTracer(tracer, 20_000)(block);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: 'CALL', to: LOOP, error: 'out of gas', gasUsed: '0x2dc6c0' });
  });
});

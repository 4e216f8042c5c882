// Replays of mined transactions (trace_transaction's and debug_traceTransaction's path when the
// miner kept no record) with TRACEHOOK_FAST_EVM on and off: generated programs, called by signed
// transactions mined three to a block (so the traced one runs on the state its block's earlier
// transactions left), rendered by every frame and state renderer, by the struct logger and by
// vmTrace, give the same JSON text from the interpreter's built-in recorder as from ethereumjs's,
// and the interpreter really answers when it is on. Whole blocks stay on ethereumjs and answer the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempChain, openTempChain, signWithDevKey } from '../chain/testing/tempChain.js';
import { fastCallStats } from '../interpreter/fastCall.js';
import { FRAME_AND_STATE_RENDERS, STEP_RENDERS } from '../interpreter/testing/frameAndStateRenders.js';
import { CONTRACTS, Rng, generateProgram } from '../interpreter/testing/programs.js';
import { addressBytes } from '../interpreter/words.js';
import { type Tracer, createTracer } from '../trace/createTracer.js';
import type { TraceRender } from '../trace/traceRender.js';
import type { Block } from '@ethereumjs/block';

const RENDERS = [...FRAME_AND_STATE_RENDERS, ...STEP_RENDERS];
const BLOCKS = 12;
const TXS_PER_BLOCK = 3;

describe('mined transactions replayed on the interpreter and on ethereumjs', () => {
  let temp: TempChain;
  let tracer: Tracer;
  const blocks: Block[] = [];
  beforeAll(async () => {
    temp = await openTempChain();
    // No kept records: every trace below is a replay.
    tracer = createTracer({ chain: temp.chain, useMinedRecords: false });
    const { chain } = temp;
    await chain.setAutomine(false);
    const rng = new Rng(77);
    const nonces = [0n, 0n, 0n];
    for (let b = 0; b < BLOCKS; b++) {
      for (const c of CONTRACTS) {
        await chain.setCode(addressBytes(c), generateProgram(rng, 4 + rng.int(40)));
        await chain.setStorageAt(addressBytes(c), new Uint8Array(32), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 + rng.int(5) : 0)));
      }
      for (let t = 0; t < TXS_PER_BLOCK; t++) {
        const to = addressBytes(CONTRACTS[rng.int(CONTRACTS.length)]!);
        const data = Uint8Array.from({ length: rng.int(40) }, () => rng.int(256));
        // Legacy and EIP-1559 transactions, some paying a tip to the coinbase.
        const fees = t === 1 ? { gasPrice: 2_000_000_000n } : { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: BigInt(rng.int(2)) * 1_000_000_000n, type: 2 };
        const tx = signWithDevKey(chain, t, { nonce: nonces[t]!++, to, data, value: BigInt(rng.int(3)), gasLimit: 300_000n, chainId: chain.common.chainId(), ...fees });
        await chain.sendRawTransaction(tx.serialize());
      }
      blocks.push(await chain.mine());
    }
  }, 120_000);
  afterAll(async () => {
    delete process.env.TRACEHOOK_FAST_EVM;
    await temp.dispose();
  });

  async function replayed(block: Block, index: number, render: TraceRender): Promise<string> {
    const tx = block.transactions[index]!;
    const context = { logIndexOffset: 0, blockHash: block.hash(), blockNumber: block.header.number, txHash: tx.hash(), txIndex: index };
    try {
      return (await tracer.traceTransaction({ tx, block, index, context }, render)).text;
    } catch (error) {
      return `error ${(error as Error).message}`;
    }
  }

  it(`behavior: ${BLOCKS * TXS_PER_BLOCK} mined transactions of generated programs render the same frame, state, struct-log and vmTrace traces from both engines`, async () => {
    const before = { ...fastCallStats };
    let traced = 0;
    for (const block of blocks) {
      expect(block.transactions).toHaveLength(TXS_PER_BLOCK);
      for (let index = 0; index < TXS_PER_BLOCK; index++) {
        for (const [name, render] of RENDERS) {
          process.env.TRACEHOOK_FAST_EVM = '1';
          const fast = await replayed(block, index, render);
          process.env.TRACEHOOK_FAST_EVM = '0';
          const slow = await replayed(block, index, render);
          expect({ block: Number(block.header.number), index, render: name, text: fast }).toEqual({ block: Number(block.header.number), index, render: name, text: slow });
          traced++;
        }
      }
    }
    expect(traced).toBe(BLOCKS * TXS_PER_BLOCK * RENDERS.length);
    // Most replays were answered by the interpreter (BLOCKHASH and the KZG/BLS precompiles go to ethereumjs).
    expect(fastCallStats.answered - before.answered).toBeGreaterThan(traced * 0.6);
  }, 180_000);

  it('behavior: whole blocks replay on ethereumjs (only the last transaction, whose state nothing reads, may run on the interpreter) and answer the same', async () => {
    const before = fastCallStats.answered;
    process.env.TRACEHOOK_FAST_EVM = '1';
    const block = blocks[2]!;
    const fast = [JSON.stringify(await tracer.traceBlock(block, RENDERS[4]![1])), JSON.stringify(await tracer.traceBlock(block, STEP_RENDERS[4]![1]))];
    expect(fastCallStats.answered - before).toBeLessThanOrEqual(2);
    process.env.TRACEHOOK_FAST_EVM = '0';
    const slow = [JSON.stringify(await tracer.traceBlock(block, RENDERS[4]![1])), JSON.stringify(await tracer.traceBlock(block, STEP_RENDERS[4]![1]))];
    expect(fast).toEqual(slow);
  }, 60_000);
});

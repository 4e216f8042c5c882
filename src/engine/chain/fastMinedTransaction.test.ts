// The miner on the interpreter against the miner on ethereumjs: the same generated programs, called
// and created by signed transactions (legacy and EIP-1559, with and without a tip, value transfers
// to new accounts) and mined four to a block on two chains, one with TRACEHOOK_FAST_EVM on and one
// off, give the same blocks (state, receipt and transaction roots, logs bloom, gas used: the
// hashes), the same receipts, and the same traces from the kept records and from replays.
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '@ethereumjs/util';
import { openTempChain, signWithDevKey, type TempChain } from './testing/tempChain.js';
import { fastMinedStats } from './fastMinedTransaction.js';
import { FRAME_AND_STATE_RENDERS } from '../interpreter/testing/frameAndStateRenders.js';
import { CONTRACTS, Rng, generateProgram } from '../interpreter/testing/programs.js';
import { addressBytes } from '../interpreter/words.js';
import { createTracer } from '../trace/createTracer.js';
import type { Hex } from '../../rpc/hex.js';

const BLOCKS = 16;
const TXS_PER_BLOCK = 4;

/** Everything a mined block is compared by, as JSON-friendly text. */
async function drive(temp: TempChain, fastEvm: '0' | '1'): Promise<{ blocks: unknown[]; txs: number }> {
  process.env.TRACEHOOK_FAST_EVM = fastEvm;
  const { chain } = temp;
  const tracer = createTracer({ chain });
  await chain.setAutomine(false);
  const rng = new Rng(4242);
  const nonces = [0n, 0n, 0n, 0n];
  const blocks: unknown[] = [];
  let txs = 0;
  for (let b = 0; b < BLOCKS; b++) {
    for (const c of CONTRACTS) {
      if (rng.chance(0.5)) await chain.setCode(addressBytes(c), generateProgram(rng, 4 + rng.int(40)));
    }
    for (let t = 0; t < TXS_PER_BLOCK; t++) {
      const kind = rng.int(10);
      const fees = rng.chance(0.3) ? { gasPrice: 2_000_000_000n } : { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: BigInt(rng.int(2)) * 1_000_000_000n, type: 2 };
      // Mostly calls of the programs; some creates of generated init code; some plain transfers to new accounts.
      const body =
        kind < 7
          ? { to: addressBytes(CONTRACTS[rng.int(CONTRACTS.length)]!), data: Uint8Array.from({ length: rng.int(40) }, () => rng.int(256)), value: BigInt(rng.int(3)) }
          : kind < 9
            ? { data: generateProgram(rng, 4 + rng.int(30)), value: BigInt(rng.int(2)) }
            : { to: addressBytes((0xeen << 152n) | BigInt(b * 16 + t)), value: BigInt(1 + rng.int(1000)) };
      const tx = signWithDevKey(chain, t, { nonce: nonces[t]!++, gasLimit: 400_000n, chainId: chain.common.chainId(), ...fees, ...body });
      await chain.sendRawTransaction(tx.serialize());
      txs++;
    }
    const block = await chain.mine();
    expect(block.transactions).toHaveLength(TXS_PER_BLOCK);
    const receipts = await chain.getReceipts(block.hash());
    const traces: Record<string, string> = {};
    for (const tx of block.transactions) {
      for (const [name, render] of FRAME_AND_STATE_RENDERS) {
        traces[`${bytesToHex(tx.hash())} ${name}`] = (await tracer.traceMinedTransaction(bytesToHex(tx.hash()) as Hex, name, render)).text;
      }
    }
    const h = block.header;
    blocks.push({
      number: Number(h.number),
      hash: bytesToHex(block.hash()),
      stateRoot: bytesToHex(h.stateRoot),
      receiptTrie: bytesToHex(h.receiptTrie),
      logsBloom: bytesToHex(h.logsBloom),
      gasUsed: h.gasUsed,
      receipts: JSON.stringify(receipts, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? bytesToHex(v) : v)),
      traces,
    });
  }
  tracer.close();
  return { blocks, txs };
}

const CALL_TRACER = { format: 'geth', request: { tracer: 'callTracer', config: {} } } as const;

describe('mining on the interpreter', () => {
  const temps: TempChain[] = [];
  afterEach(async () => {
    delete process.env.TRACEHOOK_FAST_EVM;
    await Promise.all(temps.splice(0).map((t) => t.dispose()));
  });

  it.each(['prague', 'osaka'])(`behavior: on %s, ${BLOCKS * TXS_PER_BLOCK} transactions of generated programs mine to the same blocks, receipts and traces as on ethereumjs`, async (hardfork) => {
    temps.push(await openTempChain({ hardfork }), await openTempChain({ hardfork }));
    const before = { ...fastMinedStats };
    const fast = await drive(temps[0]!, '1');
    const mined = fastMinedStats.mined - before.mined;
    const handedOver = fastMinedStats.handedOver - before.handedOver;
    const slow = await drive(temps[1]!, '0');
    for (let i = 0; i < BLOCKS; i++) expect(fast.blocks[i]).toEqual(slow.blocks[i]);
    // Most were mined by the interpreter (BLOCKHASH and some precompiles go to ethereumjs).
    expect(mined + handedOver).toBe(fast.txs);
    expect(mined).toBeGreaterThan(fast.txs * 0.6);
  }, 180_000);

  it('error: a create returning code that starts with 0xEF, without the gas for its deposit, is geth\'s invalid code on both engines', async () => {
    // PUSH1 0xef PUSH0 MSTORE8 PUSH1 32 PUSH0 RETURN: 32 bytes of code starting 0xEF, a 6,400-gas
    // deposit. geth refuses the prefix before it charges the deposit; ethereumjs charges first.
    const init = Uint8Array.from([0x60, 0xef, 0x5f, 0x53, 0x60, 0x20, 0x5f, 0xf3]);
    const texts: string[] = [];
    for (const fastEvm of ['1', '0'] as const) {
      process.env.TRACEHOOK_FAST_EVM = fastEvm;
      const temp = await openTempChain();
      temps.push(temp);
      const { chain } = temp;
      const tracer = createTracer({ chain });
      const replayer = createTracer({ chain, useMinedRecords: false });
      const tx = signWithDevKey(chain, 0, { nonce: 0n, gasLimit: 55_000n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 0n, type: 2, data: init, chainId: chain.common.chainId() });
      await chain.sendRawTransaction(tx.serialize());
      const hash = bytesToHex(tx.hash()) as Hex;
      for (const t of [tracer, replayer]) {
        const trace = JSON.parse((await t.traceMinedTransaction(hash, 'callTracer', CALL_TRACER)).text) as { error?: string; gasUsed: string };
        expect(trace).toMatchObject({ error: 'invalid code: must not begin with 0xef', gasUsed: '0xd6d8' });
        texts.push(JSON.stringify(trace));
      }
      tracer.close();
      replayer.close();
    }
    expect(new Set(texts).size).toBe(1);
  });
});

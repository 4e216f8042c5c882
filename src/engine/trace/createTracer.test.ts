// Traces of mined transactions rendered from the records the miner kept, against the same traces
// from a forced replay of the block: equal for every frame shape of the TraceProbe corpus, for
// blocks of several transactions (log offsets), and after evm_revert re-mines the chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../chain/devChain.js';
import { type TempChain, openTempChain } from '../chain/testing/tempChain.js';
import { type Tracer, createTracer } from './createTracer.js';
import { buildTraceScenarios, type SignedScenario } from './testing/traceScenarios.js';
import { needsOfRender, type TraceRender } from './traceRender.js';
import { runTraceJob, type TraceJob } from './traceJob.js';

const KEPT_RENDERS: [string, TraceRender][] = [
  ['callTracer withLog', { format: 'geth', request: { tracer: 'callTracer', config: { withLog: true } } }],
  ['callTracer onlyTopCall', { format: 'geth', request: { tracer: 'callTracer', config: { onlyTopCall: true } } }],
  ['flatCallTracer', { format: 'geth', request: { tracer: 'flatCallTracer', config: {} } }],
  ['4byteTracer', { format: 'geth', request: { tracer: '4byteTracer', config: {} } }],
  ['trace_transaction', { format: 'parityTrace' }],
  ['trace_replayTransaction ["trace"]', { format: 'parityResults', types: ['trace'] }],
];
const PRESTATE: TraceRender = { format: 'geth', request: { tracer: 'prestateTracer', config: {} } };
const STRUCT_LOGS: TraceRender = { format: 'geth', request: { tracer: 'structLogger', config: { limit: 5 } } };

async function scenarios(chain: DevChain): Promise<SignedScenario[]> {
  const deployer = privateKeyToAccount(bytesToHex(chain.accounts[0]!.privateKey) as Hex);
  return (await buildTraceScenarios(deployer, Number(chain.chainId))).scenarios;
}

/** Tracers over `chain`: one that uses kept records and one that always replays. */
function tracers(chain: DevChain): { kept: Tracer; replay: Tracer } {
  return { kept: createTracer({ chain }), replay: createTracer({ chain, useMinedRecords: false }) };
}

const parse = (raw: { text: string }): unknown => JSON.parse(raw.text);

/** A tracer using kept records over `chain`, and how often it has looked a transaction or block up. */
function tracerCountingBlockReads(chain: DevChain): { tracer: Tracer; blockReads: () => number } {
  let reads = 0;
  const counting = new Proxy(chain, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'getTransaction' || key === 'getBlockByHash' || key === 'getReceipts') return (...args: unknown[]) => (reads++, value.apply(target, args));
      return value.bind(target);
    },
  });
  return { tracer: createTracer({ chain: counting }), blockReads: () => reads };
}

/** Every rendering of the transactions and of their blocks agrees between the two tracers. */
async function expectSameTraces(chain: DevChain, kept: Tracer, replay: Tracer, txHashes: Uint8Array[]): Promise<void> {
  const byHash = tracerCountingBlockReads(chain);
  for (const txHash of txHashes) {
    const mined = await kept.requireTransaction(bytesToHex(txHash) as Hex);
    const stored = chain.minedRecord!(txHash);
    expect(stored?.blockHash, mined.tx.hash().toString()).toEqual(mined.block.hash());
    const needs = needsOfRender(KEPT_RENDERS[0]![1]);
    // The kept path hands out the stored record itself; the replay records a new, equal one.
    expect(await kept.recordTransaction(mined, needs)).toBe(stored!.record);
    expect(stored!.record).toEqual(await replay.recordTransaction(mined, needs));
    // The record store knows the transaction's place, so the kept path needs no block read.
    expect(stored).toMatchObject({ blockNumber: mined.block.header.number, index: mined.index, logIndexOffset: mined.context.logIndexOffset });
    for (const [name, render] of KEPT_RENDERS) {
      const replayed = parse(await replay.traceTransaction(mined, render));
      expect(parse(await kept.traceTransaction(mined, render)), name).toEqual(replayed);
      expect(parse(await byHash.tracer.traceMinedTransaction(bytesToHex(txHash) as Hex, name, render)), name).toEqual(replayed);
    }
  }
  expect(byHash.blockReads(), 'block store reads of traces by hash from kept records').toBe(0);
  byHash.tracer.close();
  const blockHashes = new Set(txHashes.map((h) => bytesToHex(chain.minedRecord!(h)!.blockHash)));
  for (const hash of blockHashes) {
    const block = (await chain.getBlockByHash(hexToBytes(hash)))!;
    for (const [name, render] of KEPT_RENDERS) {
      expect(parse(await kept.traceBlock(block, render)), name).toEqual(parse(await replay.traceBlock(block, render)));
    }
    // recordBlock is the webhook follower's per-block callTracer source: kept records, no replay.
    const traces = await kept.recordBlock(block, needsOfRender(KEPT_RENDERS[0]![1]));
    traces.forEach((t) => expect(t.record).toBe(chain.minedRecord!(t.tx.hash())!.record));
    expect(traces).toEqual(await replay.recordBlock(block, needsOfRender(KEPT_RENDERS[0]![1])));
  }
}

describe('traces from the records kept by the miner', () => {
  describe('automine: one block per transaction', () => {
    let temp: TempChain;
    let kept: Tracer;
    let replay: Tracer;
    const txHashes: Uint8Array[] = [];

    beforeAll(async () => {
      temp = await openTempChain({ clock: Date.now });
      ({ kept, replay } = tracers(temp.chain));
      for (const s of await scenarios(temp.chain)) txHashes.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
    }, 60_000);
    afterAll(async () => {
      kept?.close();
      replay?.close();
      await temp?.dispose();
    });

    it('behavior: nested calls, reverts with reasons, out of gas, CREATE/CREATE2, selfdestruct, delegatecall, logs: every rendering equals a replay', async () => {
      expect(txHashes).toHaveLength(18);
      await expectSameTraces(temp.chain, kept, replay, txHashes);
    }, 60_000);

    it('behavior: state and step renderers replay (the kept record has neither), and give what a replay gives', async () => {
      const jobs: TraceJob[] = [];
      // Jobs go where a worker pool would take them: here, to the replaying tracer.
      const spy = createTracer({ chain: temp.chain, runJob: (job) => (jobs.push(job), runTraceJob(replay, job)) });
      try {
        const mined = await spy.requireTransaction(bytesToHex(txHashes[4]!) as Hex);
        for (const [, render] of KEPT_RENDERS) await spy.traceTransaction(mined, render);
        expect(jobs).toEqual([]);
        for (const render of [PRESTATE, STRUCT_LOGS]) {
          expect(parse(await spy.traceTransaction(mined, render))).toEqual(parse(await replay.traceTransaction(mined, render)));
        }
        expect(jobs.map((j) => j.kind === 'transaction' && j.render)).toEqual([PRESTATE, STRUCT_LOGS]);
      } finally {
        spy.close();
      }
    });
  });

  describe('interval mining: several transactions per block', () => {
    it('behavior: a block of several transactions (log offsets) traces as a replay does', async () => {
      const temp = await openTempChain({ clock: Date.now, blockTimeSec: 3600 });
      const { kept, replay } = tracers(temp.chain);
      try {
        const txHashes: Uint8Array[] = [];
        for (const s of await scenarios(temp.chain)) txHashes.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
        await temp.chain.mine();
        const blocks = new Set(txHashes.map((h) => bytesToHex(temp.chain.minedRecord!(h)!.blockHash)));
        expect(blocks.size).toBe(1);
        const offsets = await Promise.all(txHashes.map(async (h) => (await kept.requireTransaction(bytesToHex(h) as Hex)).context.logIndexOffset));
        expect(offsets.some((o) => o > 0)).toBe(true);
        await expectSameTraces(temp.chain, kept, replay, txHashes);
      } finally {
        kept.close();
        replay.close();
        await temp.dispose();
      }
    }, 60_000);
  });

  describe('evm_revert', () => {
    it('behavior: a revert drops the removed blocks\' records; the re-mined chain keeps new ones that trace as a replay does', async () => {
      const temp = await openTempChain({ clock: Date.now });
      const { kept, replay } = tracers(temp.chain);
      try {
        const all = await scenarios(temp.chain);
        const first: Uint8Array[] = [];
        for (const s of all.slice(0, 2)) first.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
        const snapshot = await temp.chain.snapshot();
        const reverted: Uint8Array[] = [];
        for (const s of all.slice(2, 8)) reverted.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
        const oldBlocks = reverted.map((h) => temp.chain.minedRecord!(h)!.blockHash);
        expect(await temp.chain.revert(snapshot)).toBe(true);
        for (const h of reverted) expect(temp.chain.minedRecord!(h)).toBeUndefined();
        for (const h of first) expect(temp.chain.minedRecord!(h)).toBeDefined();
        // Same transactions, later timestamps: new blocks at the same heights.
        await temp.chain.setNextBlockTimestamp((await temp.chain.getBlockByNumber(temp.chain.headNumber()))!.header.timestamp + 100n);
        for (const s of all.slice(2, 8)) await temp.chain.sendRawTransaction(hexToBytes(s.raw));
        reverted.forEach((h, i) => expect(temp.chain.minedRecord!(h)!.blockHash).not.toEqual(oldBlocks[i]));
        await expectSameTraces(temp.chain, kept, replay, [...first, ...reverted]);
      } finally {
        kept.close();
        replay.close();
        await temp.dispose();
      }
    }, 60_000);
  });
});

describe('trace_transaction pre-rendered as blocks are mined', () => {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const keyOf = (hash: Uint8Array) => `trace_transaction:${bytesToHex(hash)}`;

  it('behavior: each new block\'s trace_transaction is in the cache before anyone asks, equal to a replay\'s; without the option nothing is', async () => {
    const temp = await openTempChain({ clock: Date.now });
    const eager = createTracer({ chain: temp.chain, prerenderMinedTraces: true });
    const lazy = createTracer({ chain: temp.chain });
    const replay = createTracer({ chain: temp.chain, useMinedRecords: false });
    try {
      const txHashes: Uint8Array[] = [];
      for (const s of (await scenarios(temp.chain)).slice(0, 6)) txHashes.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
      await temp.chain.settled?.();
      await turn();
      for (const hash of txHashes) {
        const entry = eager.cache.get(keyOf(hash)) as { text: string } | undefined;
        expect(entry, bytesToHex(hash)).toBeDefined();
        const mined = await replay.requireTransaction(bytesToHex(hash) as Hex);
        expect(parse(entry!)).toEqual(parse(await replay.traceTransaction(mined, { format: 'parityTrace' })));
      }
      expect(lazy.cache.stats().entries).toBe(0);
    } finally {
      eager.close();
      lazy.close();
      replay.close();
      await temp.dispose();
    }
  }, 60_000);

  it('behavior: a block of many transactions is rendered a slice per turn; a revert drops what waits and what was rendered of the removed blocks', async () => {
    const temp = await openTempChain({ clock: Date.now, blockTimeSec: 3600 });
    // A clock that moves 1 ms per reading: each turn renders one transaction (slices of 2 ms).
    let clock = 0;
    const eager = createTracer({ chain: temp.chain, prerenderMinedTraces: true, now: () => ++clock });
    try {
      const all = await scenarios(temp.chain);
      const snapshot = await temp.chain.snapshot();
      const txHashes: Uint8Array[] = [];
      for (const s of all) txHashes.push(await temp.chain.sendRawTransaction(hexToBytes(s.raw)));
      await temp.chain.mine();
      await temp.chain.settled?.();
      await turn();
      const afterOne = eager.cache.stats().entries;
      expect(afterOne).toBeGreaterThan(0);
      expect(afterOne).toBeLessThan(txHashes.length);
      await turn();
      expect(eager.cache.stats().entries).toBeGreaterThan(afterOne);
      // The block leaves the chain with renders still waiting: none of them lands later.
      expect(await temp.chain.revert(snapshot)).toBe(true);
      expect(eager.cache.stats().entries).toBe(0);
      for (let i = 0; i < txHashes.length + 2; i++) await turn();
      expect(eager.cache.stats().entries).toBe(0);
      for (const hash of txHashes) expect(eager.cache.get(keyOf(hash))).toBeUndefined();
    } finally {
      eager.close();
      await temp.dispose();
    }
  }, 60_000);
});

describe('traced calls on a pooled VM', () => {
  const CALL_TRACER: TraceRender = { format: 'geth', request: { tracer: 'callTracer', config: {} } };

  it('behavior: a call the interpreter answers takes no checkpoint; one run on ethereumjs takes one and reverts it; both leave the VM as found', async () => {
    const temp = await openTempChain();
    const tracer = createTracer({ chain: temp.chain });
    const saved = process.env.TRACEHOOK_FAST_EVM;
    try {
      const block = (await temp.chain.getBlockByNumber(temp.chain.headNumber()))!;
      const root = temp.chain.stateRootAt(block);
      const sender = temp.chain.accounts[0]!.address;
      const recipient = new Uint8Array(20).fill(0x42);
      const counts = { checkpoints: 0, reverts: 0 };
      // Every borrow of this root takes the one pooled VM; count the outermost checkpoints and
      // reverts of its state manager (runTx takes its own inside).
      const stateOf = () =>
        temp.chain.withVm(root, async (vm) => {
          const sm = vm.stateManager as unknown as { checkpoint(): Promise<void>; revert(): Promise<void>; _checkpointCount: number; counted?: boolean };
          if (!sm.counted) {
            const { checkpoint, revert } = { checkpoint: sm.checkpoint.bind(sm), revert: sm.revert.bind(sm) };
            sm.checkpoint = () => (sm._checkpointCount === 0 && counts.checkpoints++, checkpoint());
            sm.revert = () => (sm._checkpointCount === 1 && counts.reverts++, revert());
            sm.counted = true;
          }
          const [from, to] = [await vm.stateManager.getAccount(sender), await vm.stateManager.getAccount(new Address(recipient))];
          return JSON.stringify([from?.balance.toString(), from?.nonce.toString(), to?.balance.toString()]);
        });
      const before = await stateOf();
      const call = { from: sender.bytes, to: recipient, value: 1n, gas: 30_000n };
      const trace = async () => parse((await tracer.traceCalls({ block }, [{ call, render: CALL_TRACER }]))[0]!);

      const fast = await trace();
      expect(counts).toEqual({ checkpoints: 0, reverts: 0 });
      expect(await stateOf()).toBe(before);

      process.env.TRACEHOOK_FAST_EVM = '0';
      const slow = await trace();
      expect(counts).toEqual({ checkpoints: 1, reverts: 1 });
      expect(await stateOf()).toBe(before);
      expect(slow).toEqual(fast);
    } finally {
      if (saved === undefined) delete process.env.TRACEHOOK_FAST_EVM;
      else process.env.TRACEHOOK_FAST_EVM = saved;
      tracer.close();
      await temp.dispose();
    }
  });
});

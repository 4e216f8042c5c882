// The store of mined transactions' records on a real chain: filled only by committed blocks (a
// reset build leaves nothing), skipped transactions leave no record, removed blocks are dropped,
// the byte budget evicts the oldest blocks, and 0 disables recording while traces still replay.
import { afterEach, describe, expect, it } from 'vitest';
import { createTx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { Hex } from 'viem';
import { createTracer } from '../trace/createTracer.js';
import type { TraceRender } from '../trace/traceRender.js';
import { createBlockMiner } from './blockMiner.js';
import { resolveChainConfig } from './chainConfig.js';
import { openChainCore } from './chainCore.js';
import { createMinedRecordStore, estimateRecordBytes, MINED_RECORD_NEEDS } from './minedRecordStore.js';
import { type TempChain, makeTempDir, openTempChain, signWithDevKey } from './testing/tempChain.js';
import type { DevChain } from './devChain.js';

const FEES = { type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n };
const CALL_TRACER: TraceRender = { format: 'geth', request: { tracer: 'callTracer', config: { withLog: true } } };
/** Deploys JUMPDEST PUSH1 0 JUMP, which loops until its gas runs out. */
const DEPLOY_LOOP = hexToBytes('0x635b6000566000526004601cf3');

const temps: TempChain[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) await t.dispose();
});
async function open(options: Parameters<typeof openTempChain>[0] = {}): Promise<TempChain> {
  const t = await openTempChain(options);
  temps.push(t);
  return t;
}

function transfer(chain: DevChain, from: number, nonce: bigint, extra: { gasLimit?: bigint; to?: Uint8Array } = {}): Uint8Array {
  return signWithDevKey(chain, from, { ...FEES, nonce, gasLimit: extra.gasLimit ?? 21_000n, to: extra.to ?? chain.accounts[9]!.address.bytes, value: 1n }).serialize();
}

/** callTracer JSON of `txHash` by a tracer that uses kept records and by one that always replays. */
async function callTraces(chain: DevChain, txHash: Uint8Array): Promise<{ kept: unknown; replayed: unknown }> {
  const kept = createTracer({ chain });
  const replay = createTracer({ chain, useMinedRecords: false });
  try {
    const hash = bytesToHex(txHash) as Hex;
    return {
      kept: JSON.parse((await kept.traceTransaction(await kept.requireTransaction(hash), CALL_TRACER)).text),
      replayed: JSON.parse((await replay.traceTransaction(await replay.requireTransaction(hash), CALL_TRACER)).text),
    };
  } finally {
    kept.close();
    replay.close();
  }
}

describe('mined record store', () => {
  it('default: a mined transaction has a frames-and-logs record of its block', async () => {
    const { chain } = await open();
    const hash = await chain.sendRawTransaction(transfer(chain, 0, 0n));
    const found = chain.minedRecord!(hash)!;
    expect(found.blockHash).toEqual((await chain.getBlockByNumber(1n))!.hash());
    expect(found.record).toMatchObject({ accounts: undefined, steps: undefined, frames: [{ kind: 'CALL', value: 1n }] });
    expect(chain.minedRecords!.stats()).toMatchObject({ blocks: 1, transactions: 1, bytes: estimateRecordBytes(found.record), maxBytes: 64 * 1024 * 1024 });
  });

  it('behavior: a build that is reset leaves no record; only a committed block fills the store', async () => {
    const dataDir = makeTempDir();
    const core = await openChainCore(resolveChainConfig({ dataDir, clock: () => 1_700_000_000_000 }));
    try {
      const store = createMinedRecordStore({ maxBytes: 1 << 20 });
      core.onHead((event) => store.onHead(event));
      const miner = await createBlockMiner(core, { records: store });
      const signed = createTx({ ...FEES, nonce: 0n, gasLimit: 21_000n, to: core.accounts[9]!.address, value: 1n }, { common: core.common }).sign(core.accounts[0]!.privateKey);
      const dropped = await miner.build([signed], 1_700_000_001n);
      expect(dropped.records).toHaveLength(1);
      await miner.reset();
      expect(store.get(signed.hash())).toBeUndefined();
      const built = await miner.build([signed], 1_700_000_002n);
      await core.commitBlock(built.block, built.receipts, built.preStateRoot);
      expect(store.get(signed.hash())?.blockHash).toEqual(built.block.hash());
      expect(store.get(signed.hash())?.record).toBe(built.records![0]);
    } finally {
      await core.close();
    }
  });

  it('behavior: a transaction the builder skips leaves no record, and the transactions after it record as a replay does', async () => {
    const { chain } = await open({ blockTimeSec: 3600, gasLimit: 1_000_000n });
    const deploy = signWithDevKey(chain, 3, { ...FEES, nonce: 0n, gasLimit: 100_000n, data: DEPLOY_LOOP });
    await chain.sendRawTransaction(deploy.serialize());
    await chain.mine();
    const loop = (await chain.getReceipts((await chain.getBlockByNumber(1n))!.hash()))[0]!.contractAddress!;
    // The loop burns all its gas, so the second transaction does not fit the 1M-gas block and waits.
    const burner = await chain.sendRawTransaction(transfer(chain, 0, 0n, { gasLimit: 600_000n, to: loop }));
    const waiting = await chain.sendRawTransaction(transfer(chain, 1, 0n, { gasLimit: 600_000n, to: loop }));
    const after = await chain.sendRawTransaction(transfer(chain, 2, 0n));
    await chain.mine();
    expect(chain.pendingTransaction(waiting)).toBeDefined();
    expect(chain.minedRecord!(waiting)).toBeUndefined();
    expect((await chain.getTransaction(after))!.index).toBe(1);
    for (const hash of [burner, after]) {
      const { kept, replayed } = await callTraces(chain, hash);
      expect(kept).toEqual(replayed);
    }
    await chain.mine();
    const { kept, replayed } = await callTraces(chain, waiting);
    expect(chain.minedRecord!(waiting)).toBeDefined();
    expect(kept).toMatchObject({ error: 'out of gas' });
    expect(kept).toEqual(replayed);
  });

  it('behavior: blocks that leave the chain take their records with them', async () => {
    const { chain } = await open();
    const kept = await chain.sendRawTransaction(transfer(chain, 0, 0n));
    const snapshot = await chain.snapshot();
    const gone = [await chain.sendRawTransaction(transfer(chain, 0, 1n)), await chain.sendRawTransaction(transfer(chain, 0, 2n))];
    await chain.revert(snapshot);
    expect(gone.map((h) => chain.minedRecord!(h))).toEqual([undefined, undefined]);
    expect(chain.minedRecord!(kept)).toBeDefined();
    expect(chain.minedRecords!.stats()).toMatchObject({ blocks: 1, transactions: 1 });
  });

  it('behavior: past the byte budget the oldest blocks are evicted, and their traces replay', async () => {
    const probe = await open();
    const size = estimateRecordBytes(probe.chain.minedRecord!(await probe.chain.sendRawTransaction(transfer(probe.chain, 0, 0n)))!.record);
    const { chain } = await open({ minedRecordBytes: 3 * size });
    const hashes: Uint8Array[] = [];
    for (let nonce = 0n; nonce < 6n; nonce++) hashes.push(await chain.sendRawTransaction(transfer(chain, 0, nonce)));
    expect(chain.minedRecords!.stats()).toMatchObject({ blocks: 3, transactions: 3, bytes: 3 * size, evictedBlocks: 3 });
    expect(hashes.map((h) => chain.minedRecord!(h) !== undefined)).toEqual([false, false, false, true, true, true]);
    const { kept, replayed } = await callTraces(chain, hashes[0]!);
    expect(kept).toEqual(replayed);
    expect(kept).toMatchObject({ type: 'CALL', value: '0x1' });
  });

  it('behavior: a block larger than the whole budget is not kept, and evicts nothing', async () => {
    const store = createMinedRecordStore({ maxBytes: 10 });
    const { chain } = await open();
    const hash = await chain.sendRawTransaction(transfer(chain, 0, 0n));
    const block = (await chain.getBlockByNumber(1n))!;
    store.stage(block, [chain.minedRecord!(hash)!.record], [{ logs: [] }]);
    store.onHead({ block, removed: [] });
    expect(store.get(hash)).toBeUndefined();
    expect(store.stats()).toMatchObject({ blocks: 0, bytes: 0, evictedBlocks: 0 });
  });

  it('args: minedRecordBytes 0 records nothing and traces still replay', async () => {
    const on = await open();
    const off = await open({ minedRecordBytes: 0 });
    expect(off.chain.minedRecords).toBeUndefined();
    expect(off.chain.minedRecord).toBeUndefined();
    const hash = await off.chain.sendRawTransaction(transfer(off.chain, 0, 0n));
    await on.chain.sendRawTransaction(transfer(on.chain, 0, 0n));
    const { kept, replayed } = await callTraces(off.chain, hash);
    expect(kept).toEqual(replayed);
    // Same fixed clock, same transactions: the same chain, so the same trace as the recording chain's.
    expect(kept).toEqual((await callTraces(on.chain, hash)).kept);
    expect(MINED_RECORD_NEEDS).toMatchObject({ state: false, steps: undefined });
  });
});

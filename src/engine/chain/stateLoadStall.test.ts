// anvil_loadState of a large state never holds the event loop long: the document (hex, gzip, JSON,
// validation) is read by a worker thread and handed back in chunks, and the load's trie nodes and
// state keys reach SQLite a few ms at a time, the final commit included. Measured in main-thread
// CPU time per gap of a 1 ms timer (loopStallMeter.ts), which a shared machine's load does not
// inflate; wall-time figures are printed beside it.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../rpc/errors.js';
import { describeGaps, startLoopStallMeter } from '../../testing/loopStallMeter.js';
import { parseStateDumpOffThread } from './stateDumpParsing.js';
import { type TempChain, openTempChain } from './testing/tempChain.js';

const ACCOUNTS = 3_000;
const address = (i: number) => `0x${(0x200000 + i).toString(16).padStart(40, '0')}`;

describe('anvil_loadState stalls', () => {
  let temp: TempChain;
  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now, checkpointInWorker: true });
  });
  afterAll(async () => temp?.dispose());

  it(`behavior: a load of ${ACCOUNTS} accounts with storage, from anvil's gzipped hex, holds the loop under 50 ms of main-thread CPU at a time, and every account is there`, async () => {
    const accounts: Record<string, unknown> = {};
    for (let i = 0; i < ACCOUNTS; i++) accounts[address(i)] = { nonce: 3, balance: `0x${(i + 1).toString(16)}`, code: '0x6001', storage: { '0x01': '0x02', [`0x${(i + 5).toString(16)}`]: '0xff' } };
    const hex = `0x${gzipSync(Buffer.from(JSON.stringify({ accounts }))).toString('hex')}`;
    await new Promise((r) => setTimeout(r, 20));
    const meter = startLoopStallMeter();
    await temp.chain.loadState(await parseStateDumpOffThread(hex));
    const gaps = meter.stop();
    const figures = describeGaps(gaps);
    console.info(`anvil_loadState of ${ACCOUNTS} accounts: ${figures}`);
    // Reading the document on the main thread alone took ~20 ms of CPU at this size, 100 ms at
    // 20,000 accounts, and the final commit's state keys as much again.
    expect(gaps.cpu.at(-1)!, figures).toBeLessThan(50);
    expect(gaps.wall.length, figures).toBeGreaterThan(20);
    // Every loaded account, with its storage, is in the state and in the key index a dump reads.
    const dump = await temp.chain.dumpState();
    const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    for (const i of [0, 1_234, ACCOUNTS - 1]) {
      expect(dump.accounts[address(i)]).toEqual({ nonce: 3, balance: `0x${(i + 1).toString(16)}`, code: '0x6001', storage: { [slot(1)]: slot(2), [slot(i + 5)]: slot(0xff) } });
    }
  }, 120_000);

  it('error: a large corrupt document read by the worker is a -32602 naming the problem, and so is hex that is not hex', async () => {
    const big = JSON.stringify({ accounts: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [address(i), { balance: i === 1_500 ? 'lots' : '0x1' }])) });
    const badField = parseStateDumpOffThread(`0x${gzipSync(Buffer.from(big)).toString('hex')}`);
    await expect(badField).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(badField).rejects.toThrow(`invalid state at accounts.${address(1_500)}.balance`);
    const notJson = parseStateDumpOffThread(`0x${gzipSync(Buffer.from(`${big.slice(0, -10)}`)).toString('hex')}`);
    await expect(notJson).rejects.toThrow('anvil_loadState: the state is not valid JSON');
    await expect(parseStateDumpOffThread(`0x1f8b${'zz'.repeat(10_000)}`)).rejects.toThrow('expected the state as 0x-prefixed even-length hex data');
  });
});

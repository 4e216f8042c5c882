// Persistence of the embedded chain across a crash: a child process builds a chain and is killed with SIGKILL; the
// reopened chain must answer exactly like a reference run, and a kill in the middle of a burst
// must leave every persisted block with its receipts, index entries and state; transactions
// acknowledged once journaled, before their blocks were written, must all be in the reopened chain.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type DevChain, createDevChain } from '../../engine/chain/devChain.js';
import { SCENARIO_CLOCK_MS, burstTransaction, runPersistenceScenario } from '../../engine/chain/testing/persistenceScenario.js';
import { makeTempDir, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { createChainMethodTable, rpcResult } from './testing/chainRpc.js';
import { Address } from '@ethereumjs/util';

const WRITER = fileURLToPath(new URL('../../engine/chain/testing/chainWriter.ts', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts the writer and resolves once it printed a line matching `until`; then SIGKILLs it. */
async function runWriterUntilKilled(dataDir: string, mode: 'scenario' | 'burst' | 'journaled', until: (line: string) => boolean, onLine?: (line: string) => void): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        onLine?.(line);
        if (until(line)) {
          child.kill('SIGKILL');
          resolve();
        }
      }
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited early (${code}): ${stderr}`));
    });
  });
  await exited;
  return lines;
}

/** Every block above the scenario's holds one burst transaction, complete, in nonce order (returns the head). */
async function expectCompleteBurst(chain: DevChain): Promise<bigint> {
  const scenarioBlocks = 5n;
  const head = chain.headNumber();
  const burster = chain.accounts[7]!.address;
  let logs = 0;
  for (let n = 1n; n <= head; n++) {
    const block = (await chain.getBlockByNumber(n))!;
    expect(block.transactions).toHaveLength(1);
    const receipts = await chain.getReceipts(block.hash());
    expect(receipts).toHaveLength(1);
    logs += receipts[0]!.logs.length;
    const located = await chain.getTransaction(block.transactions[0]!.hash());
    expect(located?.block.header.number).toBe(n);
    const state = await chain.stateAt(block);
    expect((await state.getAccount(burster))?.nonce ?? 0n).toBe(n > scenarioBlocks ? n - scenarioBlocks : 0n);
  }
  // Burst nonces 0 … head - scenarioBlocks - 1; every nonce ≡ 2 (mod 3) is a call, which logs once.
  const burstCalls = (head - scenarioBlocks) / 3n;
  expect(BigInt((await chain.getLogs({ fromBlock: 0n, toBlock: head })).length)).toBe(3n + burstCalls);
  expect(BigInt(logs)).toBe(3n + burstCalls);
  return head;
}

async function reopen(dataDir: string): Promise<DevChain> {
  const chain = await createDevChain({ dataDir, clock: () => SCENARIO_CLOCK_MS });
  cleanups.push(() => chain.close());
  return chain;
}

describe('persistence', () => {
  it('behavior: after SIGKILL the reopened chain answers every query like an uninterrupted reference run', async () => {
    const dataDir = makeTempDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    await runWriterUntilKilled(dataDir, 'scenario', (line) => line === 'ready');
    const reference = await openTempChain({ clock: () => SCENARIO_CLOCK_MS });
    cleanups.push(() => reference.dispose());
    const counter = new Address(await runPersistenceScenario(reference.chain)).toString();
    const reopened = await reopen(dataDir);

    const ours = createChainMethodTable(reopened);
    const theirs = createChainMethodTable(reference.chain);
    const queries: [string, unknown[]][] = [['eth_blockNumber', []], ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]], ['eth_getProof', [counter, ['0x0'], 'latest']]];
    for (let n = 0; n <= Number(reference.chain.headNumber()); n++) {
      const block = `0x${n.toString(16)}`;
      queries.push(['eth_getBlockByNumber', [block, true]], ['eth_getBlockReceipts', [block]], ['eth_getStorageAt', [counter, '0x0', block]]);
      for (const account of reference.chain.accounts.slice(0, 8)) queries.push(['eth_getBalance', [account.address.toString(), block]]);
    }
    for (const [method, params] of queries) {
      expect(await rpcResult(ours, method, params), `${method} ${JSON.stringify(params)}`).toEqual(await rpcResult(theirs, method, params));
    }
    expect(await rpcResult(ours, 'eth_getBalance', [reopened.accounts[6]!.address.toString(), 'latest'])).toBe('0x309');
    expect(await rpcResult(ours, 'eth_call', [{ to: counter, data: '0x06661abd' }, 'latest'])).toBe(`0x${'3'.padStart(64, '0')}`);
  });

  it('behavior: a SIGKILL in the middle of a burst leaves every persisted block complete and the chain writable', async () => {
    const dataDir = makeTempDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const lines = await runWriterUntilKilled(dataDir, 'burst', (line) => line === 'mined 40');
    expect(lines).toContain('ready');
    const chain = await reopen(dataDir);
    const scenarioBlocks = 5n;
    const head = await expectCompleteBurst(chain);
    expect(head).toBeGreaterThanOrEqual(scenarioBlocks + 40n);
    const counter = (await chain.getReceipts((await chain.getBlockByNumber(1n))!.hash()))[0]!.contractAddress!;
    await chain.sendRawTransaction(burstTransaction(chain, head - scenarioBlocks, counter));
    expect(chain.headNumber()).toBe(head + 1n);
  });

  it('behavior: transactions acknowledged before their blocks were written survive a SIGKILL (the journal mines them again on reopen)', async () => {
    const dataDir = makeTempDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // A connection of this process holds SQLite's write lock from the moment the scenario is in:
    // the writer thread cannot write the burst's blocks, while the sends keep being answered.
    let blocker: Database.Database | undefined;
    cleanups.push(() => {
      blocker?.close();
    });
    let writtenAtKill = -1n;
    const lines = await runWriterUntilKilled(
      dataDir,
      'journaled',
      (line) => line === 'acknowledged 40',
      (line) => {
        if (line === 'ready') {
          blocker = new Database(join(dataDir, 'chain.sqlite'));
          blocker.exec('BEGIN IMMEDIATE');
        }
        if (line === 'acknowledged 40') writtenAtKill = BigInt((blocker!.prepare('SELECT MAX(number) AS n FROM canonical').get() as { n: number }).n);
      },
    );
    expect(lines).toContain('acknowledged 40');
    blocker!.exec('ROLLBACK');
    blocker!.close();
    blocker = undefined;
    const scenarioBlocks = 5n;
    // Most of the 40 were acknowledged and never written.
    expect(writtenAtKill).toBeLessThan(scenarioBlocks + 20n);
    const chain = await reopen(dataDir);
    const head = await expectCompleteBurst(chain);
    expect(head).toBeGreaterThanOrEqual(scenarioBlocks + 40n);
    // The journal was emptied once its transactions were written: a second reopen mines nothing.
    await chain.close();
    const again = await reopen(dataDir);
    expect(again.headNumber()).toBe(head);
  });
});

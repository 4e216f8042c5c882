// The embedded chain's read gate: eth_sendRawTransaction is answered before its block is written;
// every other method waits for the blocks acknowledged so far, so a client reads what it sent.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { signWithDevKey } from '../../engine/chain/testing/tempChain.js';
import { useTempChains } from '../../engine/chain/testing/useTempChains.js';
import { bytesToHex } from '../../rpc/hex.js';
import { createChainMethodTable, rpcResult } from './testing/chainRpc.js';

const open = useTempChains();
const blockers: Database.Database[] = [];
afterEach(() => {
  for (const db of blockers.splice(0)) db.close();
});

describe('chain read gate', () => {
  it('behavior: reads after an acknowledged send wait until its block is written, then see it', async () => {
    const { chain, dataDir } = await open();
    const table = createChainMethodTable(chain);
    // Another connection holds SQLite's write lock: the block cannot be written until it lets go.
    const blocker = new Database(join(dataDir, 'chain.sqlite'));
    blockers.push(blocker);
    blocker.exec('BEGIN IMMEDIATE');
    const raw = signWithDevKey(chain, 1, { type: 2, nonce: 0n, gasLimit: 21_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, to: chain.accounts[2]!.address, value: 1n }).serialize();
    const hash = await rpcResult<string>(table, 'eth_sendRawTransaction', [bytesToHex(raw)]);
    const answered: string[] = [];
    const receipt = rpcResult<{ blockNumber: string } | null>(table, 'eth_getTransactionReceipt', [hash]).then((r) => (answered.push('receipt'), r));
    const blockNumber = rpcResult<string>(table, 'eth_blockNumber').then((n) => (answered.push('blockNumber'), n));
    const chainId = rpcResult<string>(table, 'eth_chainId').then((n) => (answered.push('chainId'), n));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toEqual([]);
    blocker.exec('ROLLBACK');
    expect((await receipt)?.blockNumber).toBe('0x1');
    expect(await blockNumber).toBe('0x1');
    expect(await chainId).toBe('0x7a69');
    // Nothing out: reads answer at once again.
    expect(chain.settled!()).toBeUndefined();
  });
});

// viem against the embedded chain's handlers (custom transport into callMethod): sends ETH,
// deploys and calls Counter, reads logs, receipts, blocks and fee data, signs via eth_sendTransaction.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Abi, type Hex, createPublicClient, createWalletClient, custom, parseEther, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { MethodTable } from './methodTable.js';
import { createChainMethodTable, rpc } from './testing/chainRpc.js';

const counter = JSON.parse(readFileSync(new URL('../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };

function transportFor(table: MethodTable) {
  return custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      const response = await rpc(table, method, (params as unknown[] | undefined) ?? []);
      if ('error' in response) throw Object.assign(new Error(response.error.message), response.error);
      return response.result;
    },
  });
}

describe('viem client', () => {
  let temp: TempChain;
  let table: MethodTable;
  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now });
    table = createChainMethodTable(temp.chain);
  });
  afterAll(() => temp.dispose());

  it('behavior: sends ETH, deploys Counter, calls it and reads logs and receipts', async () => {
    const account = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
    const transport = transportFor(table);
    const publicClient = createPublicClient({ chain: foundry, transport, pollingInterval: 10 });
    const wallet = createWalletClient({ account, chain: foundry, transport });
    const recipient = temp.chain.accounts[1]!.address.toString() as Hex;

    expect(await publicClient.getChainId()).toBe(31337);
    const before = await publicClient.getBalance({ address: recipient });
    const sendHash = await wallet.sendTransaction({ to: recipient, value: parseEther('1') });
    const sendReceipt = await publicClient.waitForTransactionReceipt({ hash: sendHash });
    expect(sendReceipt.status).toBe('success');
    expect(sendReceipt.gasUsed).toBe(21000n);
    expect(await publicClient.getBalance({ address: recipient })).toBe(before + parseEther('1'));

    const deployHash = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    const deployReceipt = await publicClient.waitForTransactionReceipt({ hash: deployHash });
    const address = deployReceipt.contractAddress!;
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    expect((await publicClient.getCode({ address }))!.length).toBeGreaterThan(2);

    const incHash = await wallet.writeContract({ address, abi: counter.abi, functionName: 'increment' });
    const incReceipt = await publicClient.waitForTransactionReceipt({ hash: incHash });
    const events = parseEventLogs({ abi: counter.abi, logs: incReceipt.logs });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventName: 'Incremented', args: { by: account.address, newCount: 1n } });
    expect(await publicClient.readContract({ address, abi: counter.abi, functionName: 'count' })).toBe(1n);

    const logs = await publicClient.getContractEvents({ address, abi: counter.abi, eventName: 'Incremented', fromBlock: 0n });
    expect(logs.map((l) => l.transactionHash)).toEqual([incHash]);

    await expect(publicClient.simulateContract({ address, abi: counter.abi, functionName: 'fail', args: ['boom'], account })).rejects.toThrow(/boom/);

    const tx = await publicClient.getTransaction({ hash: incHash });
    expect(tx).toMatchObject({ from: account.address.toLowerCase(), to: address, type: 'eip1559', blockNumber: incReceipt.blockNumber });
    const block = await publicClient.getBlock({ blockNumber: incReceipt.blockNumber, includeTransactions: true });
    expect(block.transactions[0]).toMatchObject({ hash: incHash });
    const fees = await publicClient.estimateFeesPerGas();
    expect(fees.maxPriorityFeePerGas).toBe(1_000_000_000n);
    const history = await publicClient.getFeeHistory({ blockCount: 3, rewardPercentiles: [25, 75] });
    expect(history.reward).toHaveLength(3);
  });

  it('behavior: a JSON-RPC account signs through eth_sendTransaction with filled fields', async () => {
    const transport = transportFor(table);
    const publicClient = createPublicClient({ chain: foundry, transport, pollingInterval: 10 });
    const from = temp.chain.accounts[2]!.address.toString() as Hex;
    const wallet = createWalletClient({ account: from, chain: foundry, transport });
    const hash = await wallet.sendTransaction({ to: temp.chain.accounts[3]!.address.toString() as Hex, value: 5n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt).toMatchObject({ status: 'success', from: from.toLowerCase(), gasUsed: 21000n });
    const tx = await publicClient.getTransaction({ hash });
    expect(tx.type).toBe('eip1559');
    expect(tx.maxPriorityFeePerGas).toBe(1_000_000_000n);
  });
});

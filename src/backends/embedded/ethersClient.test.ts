// ethers v6 against the embedded chain's handlers (a JsonRpcApiProvider whose transport calls
// callMethod): transfers, deploys and calls Counter, reads events, fee data and reverts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractFactory, JsonRpcApiProvider, type JsonRpcPayload, type JsonRpcResult, Network, NonceManager, Wallet, isError, parseEther } from 'ethers';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { MethodTable } from './methodTable.js';
import { createChainMethodTable, rpc } from './testing/chainRpc.js';

const counter = JSON.parse(readFileSync(new URL('../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: object[]; bytecode: string };

class TableProvider extends JsonRpcApiProvider {
  constructor(private readonly table: MethodTable) {
    super(Network.from(31337), { staticNetwork: Network.from(31337), batchMaxCount: 1, pollingInterval: 10 });
  }
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<(JsonRpcResult | { id: number; error: { code: number; message: string; data?: unknown } })[]> {
    const list = Array.isArray(payload) ? payload : [payload];
    return Promise.all(
      list.map(async (p) => {
        const response = await rpc(this.table, p.method, p.params as unknown[]);
        return 'error' in response ? { id: p.id, error: response.error } : { id: p.id, result: response.result };
      }),
    ) as Promise<JsonRpcResult[]>;
  }
}

describe('ethers client', () => {
  let temp: TempChain;
  let provider: TableProvider;
  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now });
    provider = new TableProvider(createChainMethodTable(temp.chain));
  });
  afterAll(async () => {
    provider.destroy();
    await temp.dispose();
  });

  it('behavior: sends ETH, deploys Counter, calls it, reads events and reverts', async () => {
    // ethers reuses an identical request's answer for 250 ms, so on a chain this fast two quick
    // sends would read the same pending nonce; the NonceManager counts locally instead.
    const key = new Wallet(bytesToHex(temp.chain.accounts[0]!.privateKey), provider);
    const wallet = new NonceManager(key);
    const to = temp.chain.accounts[1]!.address.toString();
    const sent = await wallet.sendTransaction({ to, value: parseEther('2') });
    const sentReceipt = (await sent.wait())!;
    expect(sentReceipt.status).toBe(1);
    // Explicit blocks: the same request twice within 250 ms would get ethers' cached answer.
    const before = await provider.getBalance(to, sentReceipt.blockNumber - 1);
    expect(await provider.getBalance(to, sentReceipt.blockNumber)).toBe(before + parseEther('2'));

    const contract = await new ContractFactory(counter.abi, counter.bytecode, wallet).deploy();
    await contract.waitForDeployment();
    const address = await contract.getAddress();
    const tx = await (contract as unknown as { increment(): Promise<{ wait(): Promise<{ logs: unknown[]; blockNumber: number }> }> }).increment();
    const receipt = await tx.wait();
    const events = await contract.queryFilter('Incremented', receipt.blockNumber, receipt.blockNumber);
    expect(events).toHaveLength(1);
    expect((events[0] as unknown as { args: unknown[] }).args.map(String)).toEqual([key.address, '1']);
    expect(await (contract as unknown as { count(): Promise<bigint> }).count()).toBe(1n);
    expect(address).toBe((await provider.getTransactionReceipt(contract.deploymentTransaction()!.hash))!.contractAddress);

    try {
      await (contract as unknown as { fail(reason: string): Promise<void> }).fail('boom');
      expect.unreachable('fail() should revert');
    } catch (error) {
      expect(isError(error, 'CALL_EXCEPTION')).toBe(true);
      expect((error as { reason?: string }).reason).toBe('boom');
    }
    const fee = await provider.getFeeData();
    expect(fee.maxPriorityFeePerGas).toBe(1_000_000_000n);
    const block = await provider.getBlock('latest', true);
    expect(block!.number).toBe(receipt.blockNumber);
  });
});

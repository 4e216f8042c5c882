// Real clients against the service over HTTP (gateway, keys, trace workers): ethers 6 contract.on
// and viem watchContractEvent receive events through polled filters, signMessage / signTypedData
// recover to the signer, viem's test actions (impersonateAccount, increaseTime, mine,
// setAutomine) and foundry's cast (rpc, send --unlocked from an impersonated address, logs) work.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Contract, JsonRpcProvider, type Log as EthersLog, verifyMessage, verifyTypedData } from 'ethers';
import { type Abi, type Hex, createPublicClient, createTestClient, createWalletClient, http, parseEther, recoverMessageAddress, recoverTypedDataAddress } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PooledService, startPooledService } from './testing/pooledService.js';

const run = promisify(execFile);
const CAST = join(process.cwd(), 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
const counter = JSON.parse(readFileSync(new URL('../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const DEV0: Hex = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WHALE: Hex = '0x4444444444444444444444444444444444444444';
const DOMAIN = { name: 'Tracehook', version: '1', chainId: 31337 };
const TYPES = { Mail: [{ name: 'contents', type: 'string' }, { name: 'to', type: 'address' }] };
const MESSAGE = { contents: 'hello', to: WHALE };

async function until<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('clients over HTTP: filters, signing, test actions, cast', () => {
  let service: PooledService;
  let url: string;
  let address: Hex;
  beforeAll(async () => {
    service = await startPooledService({ workers: 1, gasCap: 50_000_000n, callTimeoutMs: 5_000 });
    url = service.rpcUrl('enterprise');
    const wallet = createWalletClient({ chain: foundry, transport: http(url), account: DEV0 });
    const publicClient = createPublicClient({ chain: foundry, transport: http(url) });
    const hash = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    address = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
  }, 30_000);
  afterAll(() => service?.close());

  it('behavior: ethers 6 contract.on receives events by polling a filter, and its signer\'s signatures verify', async () => {
    const provider = new JsonRpcProvider(url, 31337, { staticNetwork: true, pollingInterval: 50 });
    const methods = new Set<string>();
    provider.on('debug', (info: { action: string; payload?: { method: string } | { method: string }[] }) => {
      if (info.action === 'sendRpcPayload') for (const p of [info.payload ?? []].flat()) methods.add(p.method);
    });
    const signer = await provider.getSigner(DEV0);
    const contract = new Contract(address, counter.abi as never, signer);
    const seen: { by: string; count: bigint; log: EthersLog }[] = [];
    await contract.on('Incremented', (by: string, count: bigint, event: { log: EthersLog }) => void seen.push({ by, count, log: event.log }));
    await new Promise((r) => setTimeout(r, 200));
    const tx = (await contract.getFunction('increment')()) as { hash: string; wait(): Promise<unknown> };
    await tx.wait();
    const first = await until(() => seen[0]);
    expect({ by: first.by, count: first.count, hash: first.log.transactionHash }).toEqual({ by: DEV0, count: 1n, hash: tx.hash });
    await contract.removeAllListeners();
    expect([...methods].filter((m) => m.includes('Filter')).sort()).toEqual(['eth_getFilterChanges', 'eth_newFilter']);

    const signature = await signer.signMessage('hello tracehook');
    expect(verifyMessage('hello tracehook', signature)).toBe(DEV0);
    const typed = await signer.signTypedData(DOMAIN, TYPES, MESSAGE);
    expect(verifyTypedData(DOMAIN, TYPES, MESSAGE, typed)).toBe(DEV0);
    provider.destroy();
  });

  it('behavior: viem watchContractEvent (HTTP polling), signMessage/signTypedData, and the test actions impersonateAccount, increaseTime, mine, setAutomine', async () => {
    const methods = new Set<string>();
    const transport = http(url, {
      async onFetchRequest(request) {
        const body = (await request.clone().json()) as { method: string } | { method: string }[];
        for (const p of [body].flat()) methods.add(p.method);
      },
    });
    const publicClient = createPublicClient({ chain: foundry, transport, pollingInterval: 50 });
    const wallet = createWalletClient({ chain: foundry, transport, account: DEV0 });
    const testClient = createTestClient({ chain: foundry, transport, mode: 'anvil' });
    const logs: unknown[] = [];
    const unwatch = publicClient.watchContractEvent({ address, abi: counter.abi, eventName: 'Incremented', poll: true, onLogs: (l) => logs.push(...l) });
    await new Promise((r) => setTimeout(r, 200));

    await testClient.impersonateAccount({ address: WHALE });
    await testClient.setBalance({ address: WHALE, value: parseEther('5') });
    const hash = await wallet.writeContract({ address, abi: counter.abi, functionName: 'increment', account: WHALE });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.from).toBe(WHALE.toLowerCase());
    const event = (await until(() => logs[0])) as { args: { by: string }; transactionHash: Hex };
    expect({ by: event.args.by, hash: event.transactionHash }).toEqual({ by: WHALE, hash });
    unwatch();
    expect(methods).toContain('eth_newFilter');
    expect(methods).toContain('eth_getFilterChanges');
    await testClient.stopImpersonatingAccount({ address: WHALE });

    const before = await publicClient.getBlock();
    await testClient.increaseTime({ seconds: 86_400 });
    await testClient.mine({ blocks: 3 });
    const after = await publicClient.getBlock();
    expect(after.number - before.number).toBe(3n);
    expect(after.timestamp - before.timestamp).toBeGreaterThanOrEqual(86_400n);

    await testClient.setAutomine(false);
    const pending = await wallet.sendTransaction({ to: WHALE, value: 1n });
    expect(await publicClient.getTransactionReceipt({ hash: pending }).catch(() => undefined)).toBeUndefined();
    await testClient.mine({ blocks: 1 });
    expect((await publicClient.getTransactionReceipt({ hash: pending })).status).toBe('success');
    await testClient.setAutomine(true);

    const signature = await wallet.signMessage({ message: 'hello viem' });
    expect(await recoverMessageAddress({ message: 'hello viem', signature })).toBe(DEV0);
    const typed = await wallet.signTypedData({ domain: DOMAIN, types: TYPES, primaryType: 'Mail', message: MESSAGE });
    expect(await recoverTypedDataAddress({ domain: DOMAIN, types: TYPES, primaryType: 'Mail', message: MESSAGE, signature: typed })).toBe(DEV0);
  });

  it('behavior: cast rpc impersonates, cast send --unlocked sends from the impersonated address, cast logs finds the event', async () => {
    const sender = '0x5555555555555555555555555555555555555555';
    await run(CAST, ['rpc', '--rpc-url', url, 'anvil_impersonateAccount', sender]);
    await run(CAST, ['rpc', '--rpc-url', url, 'anvil_setBalance', sender, '0xde0b6b3a7640000']);
    const sent = await run(CAST, ['send', '--rpc-url', url, '--unlocked', '--from', sender, address, 'increment()', '--json']);
    const receipt = JSON.parse(sent.stdout) as { status: string; from: string; transactionHash: string };
    expect({ status: receipt.status, from: receipt.from }).toEqual({ status: '0x1', from: sender });
    const logs = await run(CAST, ['logs', '--rpc-url', url, '--from-block', '0', '--address', address, 'Incremented(address,uint256)', '--json']);
    const found = (JSON.parse(logs.stdout) as { transactionHash: string }[]).map((l) => l.transactionHash);
    expect(found).toContain(receipt.transactionHash);
    const traced = await run(CAST, ['rpc', '--rpc-url', url, 'trace_transaction', receipt.transactionHash]);
    expect((JSON.parse(traced.stdout) as { action: { from: string } }[])[0]!.action.from).toBe(sender);
  });

  it('behavior: viem testClient.reset goes back to genesis', async () => {
    const transport = http(url);
    const publicClient = createPublicClient({ chain: foundry, transport });
    await createTestClient({ chain: foundry, transport, mode: 'anvil' }).reset();
    expect(await publicClient.getBlockNumber()).toBe(0n);
    expect(await publicClient.getCode({ address })).toBeUndefined();
  });
});

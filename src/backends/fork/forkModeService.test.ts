// Fork mode through the service (`tracehook start --fork-url … --fork-block …`, a trace worker on):
// the same signed transaction sent to Tracehook and to anvil --fork-url over the same remote block
// gives the same callTracer and trace_transaction output; remote accounts answer eth_getBalance,
// eth_getStorageAt and eth_call; an ADDRESS_ACTIVITY webhook is delivered for the local block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { type TracehookProcess, spawnTracehook } from '../../testing/spawnTracehook.js';

const COUNTER = '0x6000546001018060005560005260206000f3';
const COUNTER_ADDRESS = '0x00000000000000000000000000000000000c0de1';
/** Calls COUNTER and returns what it returned. */
const CALLER = `0x60206000600060006000${'73' + COUNTER_ADDRESS.slice(2)}5af15060206000f3`;
const CALLER_ADDRESS = '0x00000000000000000000000000000000000ca11e';
const HOLDER = '0x00000000000000000000000000000000000b0b01';
/** A remote account nothing reads before the remote goes away. */
const UNREAD = '0x00000000000000000000000000000000000b0b02';
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function receipt(url: string, hash: string): Promise<{ blockNumber: string; status: string }> {
  for (let i = 0; i < 200; i++) {
    const found = (await rpc(url, 'eth_getTransactionReceipt', [hash])) as { blockNumber: string; status: string } | null;
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no receipt for ${hash}`);
}

describe('fork mode through the service (remote and reference: anvil)', () => {
  let remote: AnvilProcess;
  let reference: AnvilProcess;
  let service: TracehookProcess;
  let listener: Server;
  let forkBlock: bigint;
  const received: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-fork-e2e-'));

  beforeAll(async () => {
    remote = await startAnvil(['--chain-id', '4242']);
    await rpc(remote.url, 'anvil_setCode', [COUNTER_ADDRESS, COUNTER]);
    await rpc(remote.url, 'anvil_setCode', [CALLER_ADDRESS, CALLER]);
    await rpc(remote.url, 'anvil_setStorageAt', [COUNTER_ADDRESS, '0x' + '0'.repeat(64), '0x' + '0'.repeat(62) + '29']);
    await rpc(remote.url, 'anvil_setStorageAt', [COUNTER_ADDRESS, '0x' + '0'.repeat(63) + '7', '0x' + '0'.repeat(60) + 'beef']);
    await rpc(remote.url, 'anvil_setBalance', [HOLDER, '0x1234']);
    await rpc(remote.url, 'anvil_setBalance', [UNREAD, '0x5678']);
    await rpc(remote.url, 'evm_mine', []);
    await rpc(remote.url, 'evm_mine', []);
    forkBlock = BigInt((await rpc(remote.url, 'eth_blockNumber', [])) as string);
    reference = await startAnvil(['--fork-url', remote.url, '--fork-block-number', forkBlock.toString()]);
    service = await spawnTracehook({ dataDir: dir, args: ['--fork-url', remote.url, '--fork-block', forkBlock.toString(), '--trace-workers', '1'] });
    listener = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  }, 90_000);

  afterAll(async () => {
    listener?.close();
    await service?.kill('SIGTERM');
    await reference?.stop();
    await remote?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers remote state, traces a local transaction as anvil --fork-url does, and delivers its webhook', async () => {
    const url = service.rpcUrl;
    expect(await rpc(url, 'eth_chainId', [])).toBe('0x1092');
    expect(await rpc(url, 'eth_blockNumber', [])).toBe(`0x${forkBlock.toString(16)}`);
    expect(await rpc(url, 'eth_getBalance', [HOLDER, 'latest'])).toBe('0x1234');
    expect(await rpc(url, 'eth_getStorageAt', [COUNTER_ADDRESS, '0x7', 'latest'])).toBe('0x' + '0'.repeat(60) + 'beef');
    expect(await rpc(url, 'eth_call', [{ to: CALLER_ADDRESS }, 'latest'])).toBe('0x' + '0'.repeat(62) + '2a');

    const created = await fetch(`${service.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': service.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`, addresses: [CALLER_ADDRESS] }),
    });
    expect(created.status).toBe(200);

    const account = privateKeyToAccount(DEV_KEY);
    const raw = await account.signTransaction({ chainId: 4242, type: 'eip1559', to: CALLER_ADDRESS, value: 5n, gas: 200_000n, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, nonce: 0 });
    const hash = (await rpc(url, 'eth_sendRawTransaction', [raw])) as string;
    expect(await rpc(reference.url, 'eth_sendRawTransaction', [raw])).toBe(hash);
    const [local, ref] = [await receipt(url, hash), await receipt(reference.url, hash)];
    expect(local).toMatchObject({ status: '0x1', blockNumber: `0x${(forkBlock + 1n).toString(16)}` });
    expect(local.blockNumber).toBe(ref.blockNumber);

    const callTracer = [{ tracer: 'callTracer' }];
    const refCall = (await rpc(reference.url, 'debug_traceTransaction', [hash, ...callTracer])) as Record<string, unknown>;
    // The one documented difference (docs/trace-conventions.md): the root `gas` is the transaction's
    // gas limit (geth), where anvil's is already less the 21,000 intrinsic gas.
    expect(refCall.gas).toBe(`0x${(200_000 - 21_000).toString(16)}`);
    expect(await rpc(url, 'debug_traceTransaction', [hash, ...callTracer])).toEqual({ ...refCall, gas: `0x${(200_000).toString(16)}` });
    const withoutBlockHash = (traces: unknown) => (traces as Record<string, unknown>[]).map(({ blockHash: _blockHash, ...rest }) => rest);
    const localTraces = await rpc(url, 'trace_transaction', [hash]);
    expect(withoutBlockHash(localTraces)).toEqual(withoutBlockHash(await rpc(reference.url, 'trace_transaction', [hash])));
    expect((localTraces as unknown[]).length).toBe(2);
    expect(await rpc(url, 'eth_getStorageAt', [COUNTER_ADDRESS, '0x0', 'latest'])).toBe('0x' + '0'.repeat(62) + '2a');

    const deadline = Date.now() + 20_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(1);
    const notification = JSON.parse(received[0]!) as { type: string; event: { activity: Record<string, unknown>[] } };
    expect(notification.type).toBe('ADDRESS_ACTIVITY');
    expect(notification.event.activity).toEqual([expect.objectContaining({ hash, toAddress: CALLER_ADDRESS, blockNum: `0x${(forkBlock + 1n).toString(16)}` })]);

    // The remote gone: a read that needs it fails with a JSON-RPC error naming it, never a zero.
    await reference.stop();
    await remote.stop();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [UNREAD, 'latest'] }) });
    const answer = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    expect(answer.result).toBeUndefined();
    expect(answer.error).toMatchObject({ code: -32005, message: expect.stringMatching(/could not read the account 0x0+b0b02/) });
    const call = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: UNREAD }, 'latest'] }) })).json()) as { error?: { code: number } };
    expect(call.error?.code).toBe(-32005);
  }, 90_000);
});

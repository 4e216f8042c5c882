// The routed backend behind the real gateway (as its pass-through backend), over HTTP: zero failed
// requests from the client's side while an anvil of the fleet is SIGKILLed mid-load, a batch that
// sees one head, and -32601 naming the network for a method no upstream has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createMethodTable } from '../embedded/methodTable.js';
import { post, startTestGateway, type TestGateway } from '../../gateway/testing/startTestGateway.js';
import { createNetworkUpstreams, type NetworkUpstreams } from './networkUpstreams.js';
import { startAnvilFleet, type AnvilFleet } from './testing/anvilFleet.js';

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let fleet: AnvilFleet;
let net: NetworkUpstreams;
let t: TestGateway;
let endpoint: string;

beforeAll(async () => {
  fleet = await startAnvilFleet(2);
  await fleet.mine();
  net = createNetworkUpstreams({ network: 'ETH_FLEET', upstreams: fleet.urls.map((url) => ({ url })), logger: pino({ level: 'silent' }), headPollMs: 50, attemptTimeoutMs: 2_000, probeTimeoutMs: 5_000, maxCooldownMs: 1_000 });
  await net.start();
  t = await startTestGateway({ networks: [{ name: 'eth-fleet', table: createMethodTable(), passThrough: net.backend }] });
  endpoint = `${t.url}/v2/${t.keys.enterprise}`;
}, 30_000);
afterAll(async () => {
  await t?.close();
  net?.close();
  await fleet?.close();
});

const rpc = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });

describe('routed upstreams behind the gateway', () => {
  it('behavior: zero failed requests over HTTP while a fleet member is SIGKILLed and restarted', async () => {
    let ok = 0;
    const failed: string[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const r = await post(endpoint, JSON.stringify(rpc('eth_getBalance', [ADDRESS, 'latest'])));
        const body = r.json as { result?: string };
        if (r.status === 200 && typeof body.result === 'string') ok++;
        else failed.push(`${r.status} ${JSON.stringify(r.json)}`);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    const until = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while (ok < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    await until(40);
    await fleet.kill(0);
    await until(ok + 150);
    await fleet.restart(0);
    await until(ok + 100);
    stop = true;
    await Promise.all(workers);
    expect(failed).toEqual([]);
    expect(ok).toBeGreaterThan(290);
  }, 30_000);

  it('behavior: a batch over HTTP sees one head', async () => {
    const batch = [rpc('eth_blockNumber', [], 1), rpc('eth_getBlockByNumber', ['latest', false], 2), rpc('eth_getBalance', [ADDRESS, 'latest'], 3)];
    const answers = (await post(endpoint, JSON.stringify(batch))).json as Array<{ id: number; result: unknown }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect((answers[1]!.result as { number: string }).number).toBe(answers[0]!.result);
  });

  it('error: a method no upstream has is -32601 naming the network', async () => {
    const r = (await post(endpoint, JSON.stringify(rpc('trace_call', [{ to: ADDRESS }, ['trace'], 'latest'])))).json as { error: { code: number; message: string } };
    expect(r.error).toEqual({ code: -32601, message: 'Unsupported method: trace_call with trace types trace is not supported on network ETH_FLEET' });
  });
});

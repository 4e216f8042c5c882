// Polled block filters on an upstream network of two anvils running the same chain: the filter is
// Tracehook's, so polls land wherever the pool routes them and survive a node's death. With filters
// passed through to a node, a poll routed to the other node would answer "filter not found".
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../gateway/testing/startTestGateway.js';
import { type AnvilFleet, startAnvilFleet } from '../backends/upstream/testing/anvilFleet.js';
import { type NetworkBackend, createNetworkBackend } from './networkBackends.js';
import { type UpstreamSubscriptions, createUpstreamSubscriptions } from './upstreamSubscriptions.js';

type Answer = { result?: unknown; error?: { code: number; message: string } };

describe('polled filters on an upstream network (two anvils, one killed)', () => {
  let fleet: AnvilFleet;
  let network: NetworkBackend;
  let subscriptions: UpstreamSubscriptions;
  let gateway: TestGateway;
  const rpc = async (method: string, params: unknown[] = [], key = gateway.keys.enterprise): Promise<Answer> => {
    const res = await fetch(`${gateway.url}/v2/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return (await res.json()) as Answer;
  };
  /** Polls until `count` hashes came back in all (each poll's answer kept). */
  const pollHashes = async (id: string, count: number): Promise<string[]> => {
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    while (seen.length < count) {
      const answer = await rpc('eth_getFilterChanges', [id]);
      expect(answer.error).toBeUndefined();
      seen.push(...(answer.result as string[]));
      if (Date.now() > deadline) throw new Error(`only ${seen.length} of ${count} blocks polled`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return seen;
  };

  beforeAll(async () => {
    fleet = await startAnvilFleet(2);
    const logger = pino({ level: 'silent' });
    network = createNetworkBackend({ kind: 'upstream', name: 'FLEET', chainId: 31337n, upstreams: fleet.urls.map((url) => ({ url, weight: 1 })) }, { logger, headPollMs: 100 });
    await network.start();
    subscriptions = createUpstreamSubscriptions({ network: 'FLEET', backend: network.backend, chain: network.upstreams, logger });
    gateway = await startTestGateway({ networks: [{ name: 'FLEET', backends: [subscriptions.backend], passThrough: network.backend }] });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    subscriptions?.close();
    network?.close();
    await fleet?.close();
  });

  it('behavior: every new block once and in order across many polls, before and after a node is SIGKILLed', async () => {
    const id = (await rpc('eth_newBlockFilter')).result as string;
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    const mined = [await fleet.mine(), await fleet.mine()];
    expect(await pollHashes(id, 2)).toEqual(mined.map((b) => b.hash));
    // Many polls with nothing new: empty answers, never "filter not found", whichever node is asked.
    for (let i = 0; i < 10; i++) expect(await rpc('eth_getFilterChanges', [id])).toMatchObject({ result: [] });

    await fleet.kill(0);
    const after = [await fleet.mine(), await fleet.mine(), await fleet.mine()];
    expect(await pollHashes(id, 3)).toEqual(after.map((b) => b.hash));
    expect(await rpc('eth_uninstallFilter', [id])).toMatchObject({ result: true });
    expect((await rpc('eth_getFilterChanges', [id])).error).toMatchObject({ code: -32000 });
  }, 90_000);

  it("error: another key's filter is not found; eth_newPendingTransactionFilter is refused naming why", async () => {
    const id = (await rpc('eth_newBlockFilter')).result as string;
    expect((await rpc('eth_getFilterChanges', [id], gateway.keys.payg)).error).toMatchObject({ code: -32000 });
    expect(await rpc('eth_uninstallFilter', [id], gateway.keys.payg)).toMatchObject({ result: false });
    const pending = await rpc('eth_newPendingTransactionFilter');
    expect(pending.error).toMatchObject({ code: -32601 });
    expect(pending.error!.message).toContain('pools');
  });
});

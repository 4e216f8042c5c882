// The backend of an upstream network (the pool behind the cache) and the --upstream chain-id probe,
// against real anvil nodes and a port nothing listens on: readiness follows the chain id the nodes
// answer, calls fail over past the dead node, status rows and messages name upstreams by label and
// origin only, and the probe names nodes by index.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log/createLogger.js';
import { freePort, startAnvil, type AnvilProcess } from '../testing/startAnvil.js';
import { createNetworkBackend } from './networkBackends.js';
import { redactedOrigin as upstreamOrigin } from '../backends/upstream/networkUpstreams.js';
import { probeUpstreamChainId } from './probeUpstreamChainId.js';

let dev: AnvilProcess;
let main: AnvilProcess;
let deadUrl: string;
const lines: string[] = [];
const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) });

beforeAll(async () => {
  [dev, main] = await Promise.all([startAnvil(), startAnvil(['--chain-id', '1'])]);
  deadUrl = `http://operator:sekrit@127.0.0.1:${await freePort()}/key/sekrit`;
});
afterAll(async () => Promise.all([dev?.stop(), main?.stop()]));

describe('networkBackends', () => {
  it('behavior: the pool behind the cache: ready only with an upstream on the configured chain, failing over past a dead one; status rows carry no credentials', async () => {
    const right = createNetworkBackend({ kind: 'upstream', name: 'LOCAL_ANVIL', chainId: 31337n, upstreams: [{ url: dev.url, weight: 1 }] }, { logger, headPollMs: 100 });
    const wrong = createNetworkBackend({ kind: 'upstream', name: 'ETH_MAINNET', chainId: 1n, upstreams: [{ url: dev.url, weight: 1 }] }, { logger, headPollMs: 100 });
    const mixed = createNetworkBackend({ kind: 'upstream', name: 'ETH_MAINNET', chainId: 1n, upstreams: [{ url: deadUrl, weight: 1 }, { url: main.url, weight: 1 }] }, { logger, headPollMs: 100 });
    try {
      await Promise.all([right.start(), wrong.start(), mixed.start()]);
      expect(right.isReady()).toBe(true);
      expect(wrong.isReady()).toBe(false);
      expect(mixed.isReady()).toBe(true);
      const ctx = () => ({ requestId: 'r', signal: new AbortController().signal });
      for (let i = 0; i < 4; i++) expect(await mixed.backend.call('eth_chainId', [], ctx())).toBe('0x1');
      await expect(wrong.backend.call('eth_chainId', [], ctx())).rejects.toMatchObject({ code: -32005 });
      expect(mixed.status().upstreams.map((row) => [row.label, row.origin])).toEqual([
        ['ETH_MAINNET#0', upstreamOrigin(deadUrl)],
        ['ETH_MAINNET#1', main.url],
      ]);
      expect(JSON.stringify(mixed.status())).not.toContain('sekrit');
      expect(lines.join('')).not.toContain('sekrit');
    } finally {
      for (const b of [right, wrong, mixed]) b.close();
    }
  });

  it('args: origins keep scheme, host and port only', () => {
    expect(upstreamOrigin('https://user:key@node.example:8545/v1/key?x=1')).toBe('https://node.example:8545');
  });
});

describe('probeUpstreamChainId', () => {
  it('behavior: nodes that do not answer are logged by index and left out; the others name the chain', async () => {
    lines.length = 0;
    expect(await probeUpstreamChainId([deadUrl, main.url], { logger })).toBe(1n);
    expect(lines.join('')).toContain('"upstream":"upstream[0]"');
    expect(lines.join('')).not.toContain('sekrit');
  });

  it('error: no node answering, or nodes on two chains, stop the start naming nodes by index', async () => {
    await expect(probeUpstreamChainId([deadUrl], { logger })).rejects.toThrow('upstream: no node answered eth_chainId, so the network cannot be named (upstream[0]: Upstream upstream[0]: connection failed (ECONNREFUSED))');
    await expect(probeUpstreamChainId([main.url, dev.url], { logger })).rejects.toThrow("upstream[1]: chain id 31337 differs from upstream[0]'s 1");
  });
});

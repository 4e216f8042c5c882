// GET /api/upstreams over real HTTP (the management kit) for a network of a real anvil and an
// unreachable upstream, and the upstream gauges in /metrics text: token required, no credentials
// of an upstream URL anywhere.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApiApp } from '../../http/api/createApiApp.js';
import { createNetworkUpstreams, type NetworkUpstreams } from '../../backends/upstream/networkUpstreams.js';
import { freePort, startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createMetricsRegistry } from '../ops/metricsRegistry.js';
import { registerUpstreamMetrics } from '../ops/upstreamMetrics.js';
import { createUpstreamsRoutes } from './upstreamsRoute.js';

const TOKEN = 'test-token';
let anvil: AnvilProcess;
let net: NetworkUpstreams;
let server: http.Server;
let url: string;
let deadUrl: string;

beforeAll(async () => {
  anvil = await startAnvil();
  deadUrl = `http://user:secret-pw@127.0.0.1:${await freePort()}/secret-path?key=secret-key`;
  const anvilWithCreds = anvil.url.replace('http://', 'http://me:anvil-secret@');
  net = createNetworkUpstreams({ network: 'ETH_TEST', upstreams: [{ url: anvilWithCreds, headers: { authorization: 'Bearer header-secret' } }, { url: deadUrl }], logger: pino({ level: 'silent' }), headPollMs: 100, attemptTimeoutMs: 1_000 });
  await net.start();
  const app = createApiApp({ mounts: [{ prefix: '/api', routes: createUpstreamsRoutes({ networks: () => [net.networkStatus()] }) }], authToken: TOKEN });
  server = http.createServer((req, res) => void app.serve(req, res, 'req-1'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 30_000);
afterAll(async () => {
  net?.close();
  server?.close();
  await anvil?.stop();
});

describe('GET /api/upstreams', () => {
  it('error: needs the auth token', async () => {
    expect((await fetch(`${url}/api/upstreams`)).status).toBe(401);
  });

  it('default: lists the network and each upstream with its capability table, no secrets', async () => {
    const res = await fetch(`${url}/api/upstreams`, { headers: { 'x-service-token': TOKEN } });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of ['anvil-secret', 'header-secret', 'secret-pw', 'secret-path', 'secret-key', 'user:', 'me:']) expect(text).not.toContain(secret);
    const { data } = JSON.parse(text) as { data: Array<Record<string, unknown> & { upstreams: Array<Record<string, unknown>> }> };
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ network: 'ETH_TEST', chain_id: '31337', ready: true, finalized: '0', head: { number: '0' } });
    const [good, dead] = data[0]!.upstreams;
    expect(good).toMatchObject({
      label: 'ETH_TEST#0', origin: anvil.url, state: 'healthy', chain_id: '31337', client_version: 'anvil/v1.7.1', archive: true, state_from: '0',
      tracers: { callTracer: true, prestateTracer: true, flatCallTracer: false, structLogger: true },
      trace_types: { trace: true, stateDiff: true, vmTrace: true },
    });
    expect(good!.methods).toMatchObject({ trace_transaction: true, trace_call: false, debug_traceCall: true });
    expect(dead).toMatchObject({ label: 'ETH_TEST#1', origin: new URL(deadUrl).origin, state: 'unreachable', chain_id: null, probe_error: expect.stringMatching(/ETH_TEST#1: connection failed \(ECONNREFUSED\)/) });
  });

  it('default: the upstream gauges render the same table for Prometheus', () => {
    const registry = createMetricsRegistry();
    registerUpstreamMetrics(registry, () => [net.networkStatus()]);
    const text = registry.render();
    expect(text).toContain('tracehook_upstream_up{network="ETH_TEST",upstream="ETH_TEST#0"} 1');
    expect(text).toContain('tracehook_upstream_up{network="ETH_TEST",upstream="ETH_TEST#1"} 0');
    expect(text).toContain('tracehook_upstream_state{network="ETH_TEST",upstream="ETH_TEST#1",state="unreachable"} 1');
    expect(text).toContain('tracehook_upstream_capability{network="ETH_TEST",upstream="ETH_TEST#0",capability="trace_call"} 0');
    expect(text).toContain('tracehook_upstream_capability{network="ETH_TEST",upstream="ETH_TEST#0",capability="tracer:flatCallTracer"} 0');
    expect(text).toContain('tracehook_upstream_capability{network="ETH_TEST",upstream="ETH_TEST#0",capability="traceType:vmTrace"} 1');
    expect(text).toContain('tracehook_network_ready{network="ETH_TEST"} 1');
    expect(text).toContain('tracehook_network_head_block{network="ETH_TEST"} 0');
    expect(text).not.toContain('secret');
  });
});

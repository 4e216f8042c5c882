// Gateway benchmark: requests per second and added latency of the gateway against anvil's own
// HTTP server on the same machine, in one run, as ratios. Workloads: eth_blockNumber, and a cached
// trace (trace_transaction of a contract creation, an answer served from memory on our side). The
// gateway runs twice: with its keep-alive fast path (the default) and with node:http alone.
//
//   npx tsx bench/gateway.bench.ts [--duration 10] [--connections 8] [--json out.json]
//
// `benchGateway({ table, workloads })` can be pointed at any MethodTable (the lead's end-to-end
// bench passes the embedded chain's table). The load generator runs in its own process.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { MethodTable } from '../src/backends/embedded/methodTable.js';
import { createSqliteDatabase } from '../src/store/sqlite/sqliteDatabase.js';
import { migrate } from '../src/store/migrations/migrate.js';
import { createKeysRepository } from '../src/store/keysRepository.js';
import { createGateway } from '../src/gateway/app.js';
import { createApiKey } from '../src/gateway/keys/apiKeys.js';
import { createTestState, createTestTable } from '../src/gateway/testing/testNamespace.js';
import { runLoadInChild, type LoadResult } from './loadGenerator.js';
import { startAnvil } from '../src/testing/startAnvil.js';


export interface Workload {
  name: string;
  /** JSON-RPC request body sent over and over. */
  body: string;
}

export interface BenchOptions {
  /** What the gateway serves. */
  table: MethodTable;
  workloads: Workload[];
  /** The same workloads are sent to this JSON-RPC URL (anvil) for the ratios. */
  referenceUrl: string;
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
}

export interface WorkloadResult {
  workload: string;
  connections: number;
  gateway: LoadResult;
  /** The same gateway with `fastPath: false` (node:http parses every request). */
  nodeHttpOnly: LoadResult;
  reference: LoadResult;
  /** The same at one connection (latency without queueing). */
  gatewaySerial: LoadResult;
  referenceSerial: LoadResult;
  /** gateway rps / reference rps. */
  rpsRatio: number;
  /** node:http-only gateway rps / reference rps. */
  nodeHttpOnlyRatio: number;
  /** gateway p50 / reference p50 at one connection. */
  latencyRatio: number;
  /** gateway p50 − reference p50 at one connection, in ms. */
  addedLatencyMs: number;
}

export async function benchGateway(options: BenchOptions): Promise<WorkloadResult[]> {
  const db = createSqliteDatabase({ filename: ':memory:' });
  await migrate(db);
  const repo = createKeysRepository(db);
  const { apiKey } = await createApiKey(repo, { name: 'bench', tier: 'enterprise' });
  const start = async (fastPath: boolean) => {
    const gateway = createGateway({ networks: [{ name: 'mainnet', table: options.table }], store: { keys: repo }, logger: pino({ level: 'warn' }), fastPath });
    const { url } = await gateway.listen('127.0.0.1', 0);
    return { gateway, url: `${url}/v2/${apiKey}` };
  };
  const fast = await start(true);
  const nodeOnly = await start(false);
  const gatewayUrl = fast.url;
  const connections = options.connections ?? 8;
  const durationMs = options.durationMs ?? 10_000;
  const warmupMs = options.warmupMs ?? 1_000;
  const results: WorkloadResult[] = [];
  try {
    for (const w of options.workloads) {
      const load = (target: string, conns: number) => runLoadInChild({ url: target, body: w.body, connections: conns, durationMs, warmupMs });
      const gw = await load(gatewayUrl, connections);
      const plain = await load(nodeOnly.url, connections);
      const ref = await load(options.referenceUrl, connections);
      const gw1 = await load(gatewayUrl, 1);
      const ref1 = await load(options.referenceUrl, 1);
      results.push({
        workload: w.name,
        connections,
        gateway: gw,
        nodeHttpOnly: plain,
        reference: ref,
        gatewaySerial: gw1,
        referenceSerial: ref1,
        rpsRatio: Math.round((gw.rps / ref.rps) * 1000) / 1000,
        nodeHttpOnlyRatio: Math.round((plain.rps / ref.rps) * 1000) / 1000,
        latencyRatio: Math.round((gw1.p50Ms / ref1.p50Ms) * 1000) / 1000,
        addedLatencyMs: Math.round((gw1.p50Ms - ref1.p50Ms) * 1000) / 1000,
      });
    }
  } finally {
    await fast.gateway.close();
    await nodeOnly.gateway.close();
    await db.close();
  }
  return results;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const json = (await res.json()) as { result?: unknown; error?: unknown };
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

function parseArgs(argv: string[]): { durationMs: number; connections: number; json?: string } {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i === -1 ? undefined : argv[i + 1];
  };
  return { durationMs: Number(get('duration') ?? 10) * 1000, connections: Number(get('connections') ?? 8), json: get('json') };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const anvil = await startAnvil(['--silent']);
  try {
    const [from] = (await rpc(anvil.url, 'eth_accounts')) as string[];
    // A contract creation with 1 KiB of init code (STOP first), so the trace carries real weight.
    const hash = (await rpc(anvil.url, 'eth_sendTransaction', [{ from, data: `0x00${'ab'.repeat(1023)}` }])) as `0x${string}`;
    // anvil may answer eth_sendTransaction before the block is sealed; wait for the receipt.
    while (!(await rpc(anvil.url, 'eth_getTransactionReceipt', [hash]))) await new Promise((r) => setTimeout(r, 20));
    const trace = (await rpc(anvil.url, 'trace_transaction', [hash])) as unknown[];
    if (trace.length === 0) throw new Error('anvil returned an empty trace for the bench transaction');
    const state = createTestState();
    state.blockNumber = BigInt((await rpc(anvil.url, 'eth_blockNumber')) as string);
    state.traces.set(hash, trace);
    const results = await benchGateway({
      table: createTestTable(state),
      referenceUrl: anvil.url,
      connections: args.connections,
      durationMs: args.durationMs,
      workloads: [
        { name: 'eth_blockNumber', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) },
        { name: 'trace_transaction (cached)', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'trace_transaction', params: [hash] }) },
      ],
    });
    for (const r of results) {
      console.log(
        `${r.workload}\n` +
          `  ${r.connections} connections: gateway ${r.gateway.rps} rps (p50 ${r.gateway.p50Ms} ms, p99 ${r.gateway.p99Ms} ms), ` +
          `anvil ${r.reference.rps} rps (p50 ${r.reference.p50Ms} ms, p99 ${r.reference.p99Ms} ms) → rps ratio ${r.rpsRatio}\n` +
          `  ${r.connections} connections, node:http only: ${r.nodeHttpOnly.rps} rps (p50 ${r.nodeHttpOnly.p50Ms} ms, p99 ${r.nodeHttpOnly.p99Ms} ms) → rps ratio ${r.nodeHttpOnlyRatio}\n` +
          `  1 connection: gateway p50 ${r.gatewaySerial.p50Ms} ms, anvil p50 ${r.referenceSerial.p50Ms} ms → added ${r.addedLatencyMs} ms, latency ratio ${r.latencyRatio}\n` +
          `  statuses: gateway ${JSON.stringify(r.gateway.statuses)}, anvil ${JSON.stringify(r.reference.statuses)}; response ${r.gateway.responseBytes} B vs ${r.reference.responseBytes} B`,
      );
    }
    if (args.json) writeFileSync(args.json, JSON.stringify({ at: new Date().toISOString(), results }, null, 2));
  } finally {
    await anvil.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

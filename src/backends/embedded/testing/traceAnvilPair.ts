// Test support for the tracers' differential tests: anvil and the embedded chain side by side,
// both fed the same signed TraceProbe scenario transactions, with a helper that asks both the
// same JSON-RPC question.
import { privateKeyToAccount } from 'viem/accounts';
import { type TempChain, openTempChain } from '../../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../../engine/trace/createTracer.js';
import { buildTraceScenarios, type SignedScenario } from '../../../engine/trace/testing/traceScenarios.js';
import { type AnvilProcess, startAnvil } from '../../../testing/startAnvil.js';
import { bytesToHex } from '../../../rpc/hex.js';
import { createDebugNamespace } from '../debugNamespace.js';
import { createEthNamespace } from '../ethNamespace.js';
import { type MethodTable, createMethodTable } from '../methodTable.js';
import { createTraceNamespace } from '../traceNamespace.js';
import { type RpcResponse, rpc } from './chainRpc.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface TraceAnvilPair {
  anvil: AnvilProcess;
  temp: TempChain;
  tracer: Tracer;
  table: MethodTable;
  scenarios: SignedScenario[];
  /** Scenario name → transaction hash (identical on both sides). */
  hashes: Map<string, string>;
  anvilRpc(method: string, params: unknown[]): Promise<RpcResponse>;
  /** [anvil's result, ours]; throws if either side answers with an error. */
  both(method: string, params: unknown[]): Promise<[Json, Json]>;
  stop(): Promise<void>;
}

function resultOf(response: RpcResponse): Json {
  if ('error' in response) throw new Error(`unexpected error ${response.error.code} ${response.error.message}`);
  return response.result as Json;
}

/** Starts both sides and sends every scenario transaction to each; they must accept it alike. */
export async function startTraceAnvilPair(anvilArgs: string[] = []): Promise<TraceAnvilPair> {
  const [anvil, temp] = await Promise.all([startAnvil(anvilArgs), openTempChain({ clock: Date.now })]);
  const tracer = createTracer({ chain: temp.chain });
  const table = createMethodTable(createEthNamespace({ chain: temp.chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
  const anvilRpc = async (method: string, params: unknown[]): Promise<RpcResponse> => {
    const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    return body.error ? { error: body.error } : { result: body.result ?? null };
  };
  const deployer = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
  const { scenarios } = await buildTraceScenarios(deployer, Number(temp.chain.chainId));
  const hashes = new Map<string, string>();
  for (const s of scenarios) {
    const theirs = await anvilRpc('eth_sendRawTransaction', [s.raw]);
    const ours = await rpc(table, 'eth_sendRawTransaction', [s.raw]);
    if (JSON.stringify(theirs) !== JSON.stringify(ours)) throw new Error(`${s.name}: anvil answered ${JSON.stringify(theirs)}, we ${JSON.stringify(ours)}`);
    hashes.set(s.name, resultOf(theirs) as string);
  }
  return {
    anvil,
    temp,
    tracer,
    table,
    scenarios,
    hashes,
    anvilRpc,
    async both(method, params) {
      return [resultOf(await anvilRpc(method, params)), resultOf(await rpc(table, method, params))];
    },
    async stop() {
      tracer.close();
      await anvil.stop();
      await temp.dispose();
    },
  };
}

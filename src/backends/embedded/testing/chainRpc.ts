// Test support: the embedded chain's full method table and a JSON-RPC style caller over it
// (schema validation and handlers run for real; only HTTP framing is left out).
import { readFileSync } from 'node:fs';
import type { DevChainOptions } from '../../../engine/chain/chainConfig.js';
import type { DevChain } from '../../../engine/chain/devChain.js';
import { type TempChain, openTempChain } from '../../../engine/chain/testing/tempChain.js';
import { type CallRunner, createPooledCalls } from '../../../engine/trace/pooledCalls.js';
import { createTracePool } from '../../../engine/trace/tracePool.js';
import { RpcError, toRpcError } from '../../../rpc/errors.js';
import { createDevNamespace } from '../devNamespace.js';
import { createEthNamespace } from '../ethNamespace.js';
import { type MethodTable, callMethod, createMethodTable } from '../methodTable.js';
import { createWeb3Namespace } from '../web3Namespace.js';

/** The chain's table; eth_call / eth_estimateGas run on `calls` when given (a worker pool), else in-process. */
export function createChainMethodTable(chain: DevChain, calls?: CallRunner): MethodTable {
  return createMethodTable(
    createWeb3Namespace({ clientVersion: 'tracehook/test', chainId: chain.chainId }),
    createEthNamespace({ chain, calls }),
    createDevNamespace({ chain }),
  );
}

/** A JSON-RPC response body for one call, as the gateway would encode it. */
export type RpcResponse = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** Calls `method` through the table; errors come back as `{error}` like on the wire. */
export async function rpc(table: MethodTable, method: string, params: unknown[] = []): Promise<RpcResponse> {
  try {
    const result = await callMethod(table, method, JSON.parse(JSON.stringify(params)), { requestId: 'test', signal: new AbortController().signal });
    return { result: result === undefined ? null : JSON.parse(JSON.stringify(result)) };
  } catch (error) {
    // An unexpected error is a bug in the code under test: show it instead of a bare -32603.
    if (!(error instanceof RpcError)) console.error(`${method} threw`, error);
    const rpcError: RpcError = toRpcError(error, 'test');
    return { error: rpcError.toJSON() };
  }
}

/** Calls `method` and returns its result; throws when the call fails. */
export async function rpcResult<T = unknown>(table: MethodTable, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(table, method, params);
  if ('error' in response) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`);
  return response.result as T;
}

/** The Counter test contract (fixtures/contracts/Counter.sol). */
export const COUNTER = JSON.parse(readFileSync(new URL('../../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as {
  bytecode: string;
  deployedBytecode: string;
};
/** Selectors of Counter's functions and its event topic. */
export const COUNTER_ABI = {
  count: '0x06661abd',
  increment: '0xd09de08a',
  /** fail(string) */
  fail: '0x78122f3a',
  incrementedTopic: '0x38ac789ed44572701765277c4d0970f2db1c1a571ed39e84358095ae4eaa5420',
} as const;

export interface ChainRpcFixture {
  temp: TempChain;
  table: MethodTable;
  /** Lowercase hex addresses of dev accounts 0..9. */
  accounts: string[];
  /** Counter deployed by account 0 in block 1, incremented by accounts 1 and 2 in blocks 2 and 3. */
  counter: string;
  dispose(): Promise<void>;
}

/**
 * A chain with Counter deployed and incremented twice, plus its method table. With `callWorkers`,
 * eth_call / eth_estimateGas run on a trace worker pool of that size (as the service runs them).
 */
export async function openChainRpcFixture(options: Partial<DevChainOptions> = {}, callWorkers = 0): Promise<ChainRpcFixture> {
  const temp = await openTempChain(options);
  const { chain } = temp;
  const worker = { dataDir: temp.dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: chain.config.gasCap };
  const pool = callWorkers > 0 ? createTracePool({ size: callWorkers, worker }) : undefined;
  const calls = pool && createPooledCalls({ stateRootAt: (block) => chain.stateRootAt(block), runJob: (job, scope) => pool.run(job, scope), timeoutMs: chain.config.callTimeoutMs });
  const table = createChainMethodTable(chain, calls);
  const accounts = temp.chain.accounts.map((a) => a.address.toString());
  const deploy = await rpcResult<string>(table, 'eth_sendTransaction', [{ from: accounts[0], data: COUNTER.bytecode }]);
  const receipt = await rpcResult<{ contractAddress: string }>(table, 'eth_getTransactionReceipt', [deploy]);
  for (const from of [accounts[1], accounts[2]]) {
    await rpcResult(table, 'eth_sendTransaction', [{ from, to: receipt.contractAddress, data: COUNTER_ABI.increment }]);
  }
  const dispose = async () => {
    await pool?.close();
    await temp.dispose();
  };
  return { temp, table, accounts, counter: receipt.contractAddress, dispose };
}

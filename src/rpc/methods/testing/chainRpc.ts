// Test support: the embedded chain's full method table and a JSON-RPC style caller over it
// (schema validation and handlers run for real; only HTTP framing is left out).
import type { DevChain } from '../../../engine/chain/devChain.js';
import { RpcError, toRpcError } from '../../errors.js';
import { createDevNamespace } from '../devNamespace.js';
import { createEthNamespace } from '../ethNamespace.js';
import { type MethodTable, callMethod, createMethodTable } from '../methodTable.js';
import { createWeb3Namespace } from '../web3Namespace.js';

export function createChainMethodTable(chain: DevChain): MethodTable {
  return createMethodTable(
    createWeb3Namespace({ clientVersion: 'tracehook/test', chainId: chain.chainId }),
    createEthNamespace({ chain }),
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

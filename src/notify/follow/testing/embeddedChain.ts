// Test and benchmark rig: a dev chain on a temp dir, a JSON-RPC caller over its real method table
// (to send transactions and use evm_snapshot/evm_revert as a user would), and the tracing engine's
// callTracer as the follower's block tracer.
import { openTempChain, type TempChain } from '../../../engine/chain/testing/tempChain.js';
import type { DevChainOptions } from '../../../engine/chain/chainConfig.js';
import { createTracer } from '../../../engine/trace/createTracer.js';
import { createChainMethodTable, rpc } from '../../../backends/embedded/testing/chainRpc.js';
import { RpcError } from '../../../rpc/errors.js';
import type { JsonRpcRequest } from '../jsonRpcBlockSource.js';
import type { BlockTracer } from '../chainBlockSource.js';
import { createEngineBlockTracer } from '../engineBlockTracer.js';

export interface EmbeddedChain extends TempChain {
  /** JSON-RPC over the chain's method table (eth_*, evm_*, anvil_*), errors as RpcError. */
  request: JsonRpcRequest;
  /** callTracer frames of a mined block through the tracing engine. */
  traceBlock: BlockTracer;
}

export async function openEmbeddedChain(options: Partial<DevChainOptions> = {}): Promise<EmbeddedChain> {
  const temp = await openTempChain({ clock: Date.now, ...options });
  const table = createChainMethodTable(temp.chain);
  const tracer = createTracer({ chain: temp.chain });
  return {
    ...temp,
    async request(method, params) {
      const response = await rpc(table, method, params);
      if ('error' in response) throw new RpcError(`${method}: ${response.error.message}`, { code: response.error.code, data: response.error.data });
      return response.result;
    },
    traceBlock: createEngineBlockTracer(tracer),
    async dispose() {
      tracer.close();
      await temp.dispose();
    },
  };
}

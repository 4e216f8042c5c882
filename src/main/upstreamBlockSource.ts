// The webhook follower's BlockSource for an upstream network: the JSON-RPC block source
// (notify/follow/jsonRpcBlockSource.ts) whose every request goes through the network's Backend, so
// the follower gets the same failover and cache as the gateway's callers rather than a client of
// its own.
import type { Backend } from '../backends/backend.js';
import type { RpcContext } from '../backends/embedded/methodTable.js';
import { createJsonRpcBlockSource, type BlockSource } from '../notify/follow/index.js';
import { rawJsonToValue } from '../rpc/rawJson.js';

export interface UpstreamBlockSource {
  source: BlockSource;
  /** Cancels the requests in flight (at shutdown, after the follower stopped). */
  close(): void;
}

export function createUpstreamBlockSource(network: string, backend: Backend): UpstreamBlockSource {
  const controller = new AbortController();
  let n = 0;
  const request = (method: string, params: unknown[]) => {
    const ctx: RpcContext = { requestId: `follower:${network}:${++n}`, signal: controller.signal, clientKey: `follower:${network}` };
    // The cache answers with RawJson (JSON text the gateway writes as is): the follower wants values.
    return backend.call(method, params, ctx).then(rawJsonToValue);
  };
  return { source: createJsonRpcBlockSource({ request }), close: () => controller.abort() };
}

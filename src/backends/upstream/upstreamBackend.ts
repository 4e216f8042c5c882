// A Backend that forwards every call, and each batch as one HTTP batch, to one JSON-RPC node: a
// plain pass-through (params unchecked, the node's answers checked by the client). Choosing among
// several upstreams, probing and failover are the router's, not this file's.
import type { Backend } from '../backend.js';
import { createJsonRpcClient, type JsonRpcClientOptions } from './jsonRpcClient.js';

export interface UpstreamBackendOptions extends JsonRpcClientOptions {
  /** Backend name in logs and metrics. Default `upstream`. */
  name?: string;
}

export interface UpstreamBackend extends Backend {
  /** Closes the client's idle keep-alive sockets. */
  close(): void;
}

export function createUpstreamBackend(options: UpstreamBackendOptions): UpstreamBackend {
  const name = options.name ?? 'upstream';
  const client = createJsonRpcClient({ label: name, ...options });
  return {
    name,
    handles: () => true,
    call: (method, params, ctx) => client.call(method, params, { signal: ctx.signal }),
    callBatch: (calls, ctx) => client.batch(calls, { signal: ctx.signal }),
    close: () => client.close(),
  };
}

// Encodes JSON-RPC 2.0 response objects as text. Results are serialised here, so a handler that
// returns something JSON cannot hold (a bigint, a cycle) surfaces as an error, not a crash.
// RawJson results (cached rendered traces) are spliced verbatim.
import type { RpcError } from '../../rpc/errors.js';
import { RawJson } from '../../rpc/rawJson.js';
import type { JsonRpcId } from './decodeRequest.js';

function idJson(id: JsonRpcId): string {
  // JSON.parse turns 1e400 into Infinity, which JSON cannot carry back: answer null then.
  return JSON.stringify(id) ?? 'null';
}

/** `{"jsonrpc":"2.0","id":…,"result":…}`; throws when `result` is not serialisable. */
export function encodeResult(id: JsonRpcId, result: unknown): string {
  const text = result instanceof RawJson ? result.text : JSON.stringify(result);
  return `{"jsonrpc":"2.0","id":${idJson(id)},"result":${text === undefined ? 'null' : text}}`;
}

export function encodeError(id: JsonRpcId, error: RpcError): string {
  let body: string;
  try {
    body = JSON.stringify(error.toJSON());
  } catch {
    // Unserialisable `data` (a handler bug): keep code and message.
    body = JSON.stringify({ code: error.code, message: error.message });
  }
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${body}}`;
}

/** A batch response from already-encoded elements. */
export function encodeBatch(parts: readonly string[]): string {
  return `[${parts.join(',')}]`;
}

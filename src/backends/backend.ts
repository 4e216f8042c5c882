// What serves JSON-RPC methods behind the gateway: the interface every backend implements (the
// embedded chain's method table, an upstream node), and the method-table backend itself.
import type { RpcContext } from './embedded/methodTable.js';
import type { MethodTable } from './embedded/methodTable.js';
import { callMethod } from './embedded/methodTable.js';

/** One call of a batch, as decoded by the gateway (params unchecked). */
export interface BackendCall {
  method: string;
  params: unknown;
}

/** A batch call's answer: its result, or what it threw (an RpcError subclass for JSON-RPC errors). */
export type CallOutcome = { ok: true; result: unknown } | { ok: false; error: unknown };

export interface Backend {
  /** Short name for logs and metrics, e.g. `local` or `upstream`. */
  readonly name: string;
  /** Whether this backend serves `method` itself. A pass-through backend (an upstream) serves all. */
  handles(method: string): boolean;
  /** Runs a call; throws RpcError subclasses for JSON-RPC errors. */
  call(method: string, params: unknown, ctx: RpcContext): Promise<unknown>;
  /**
   * Runs the calls of one batch that this backend serves, as a whole (an upstream sends them in
   * one HTTP batch): one outcome per call, in order. Rejects only when no call got an answer; the
   * gateway then answers each of them with that error. Absent: the gateway runs the calls one by
   * one with `call`, concurrently (the embedded chain, where each call is timed on its own).
   */
  callBatch?(calls: readonly BackendCall[], ctx: RpcContext): Promise<CallOutcome[]>;
  /** Whether the backend can serve now (for `/readyz`); absent means always. */
  isReady?(): boolean | Promise<boolean>;
}

/** A backend over a method table: schema-checked params, then the handler (`callMethod`). */
export function createMethodTableBackend(table: MethodTable, name = 'local'): Backend {
  return {
    name,
    handles: (method) => table.has(method),
    call: (method, params, ctx) => callMethod(table, method, params, ctx),
  };
}

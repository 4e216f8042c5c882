// What serves JSON-RPC methods behind the gateway. Today one backend per network (the embedded
// chain's method table); later an upstream node pool that also takes methods nobody lists.
import type { RpcContext } from './embedded/methodTable.js';
import type { MethodTable } from './embedded/methodTable.js';
import { callMethod } from './embedded/methodTable.js';

export interface Backend {
  /** Short name for logs and metrics, e.g. `local` or `upstream`. */
  readonly name: string;
  /** Whether this backend serves `method` itself. */
  handles(method: string): boolean;
  /** Runs a call; throws RpcError subclasses for JSON-RPC errors. */
  call(method: string, params: unknown, ctx: RpcContext): Promise<unknown>;
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

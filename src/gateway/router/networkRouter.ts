// Routes a method of one network to the backend that serves it: the first listed backend that
// handles it, else the pass-through backend (an upstream node) if there is one. The network's name
// is its config spelling (`ETH_MAINNET`); paths match it by its key (config/networkNames.ts).
import type { MethodTable } from '../../backends/embedded/methodTable.js';
import { NETWORK_NAME, RESERVED_NETWORK_KEYS, networkKey } from '../../config/networkNames.js';
import type { Backend } from '../../backends/backend.js';
import { createMethodTableBackend } from '../../backends/backend.js';

export interface NetworkOptions {
  /**
   * The network's name as configured (`ETH_MAINNET`, `local`), in metrics and readiness; paths
   * (`/<name>/v2/<key>`) match it case-insensitively and with `-` for `_`. The first network also
   * serves `/v2/<key>`.
   */
  name: string;
  /** Shorthand for `backends: [createMethodTableBackend(table)]`. */
  table?: MethodTable;
  /** Tried in order; the first that handles a method serves it. */
  backends?: Backend[];
  /** Serves every method no listed backend handles (e.g. an upstream proxy). */
  passThrough?: Backend;
  /** Extra readiness check for `/readyz` (e.g. "chain opened"). */
  isReady?: () => boolean | Promise<boolean>;
}

export interface NetworkRouter {
  readonly name: string;
  /** What a path segment must normalise to (networkKey): `eth-mainnet` for `ETH_MAINNET`. */
  readonly key: string;
  /** The backend for `method`, or undefined when nothing serves it. */
  resolve(method: string): Backend | undefined;
  /** Whether a listed (non-pass-through) backend serves `method`. */
  servesLocally(method: string): boolean;
  isReady(): Promise<boolean>;
}

export function createNetworkRouter(options: NetworkOptions): NetworkRouter {
  const key = networkKey(options.name);
  if (!NETWORK_NAME.test(options.name) || RESERVED_NETWORK_KEYS.includes(key)) {
    throw new TypeError(`invalid network name ${JSON.stringify(options.name)}: use letters, digits, _ and - (not v2 or api)`);
  }
  const backends = [...(options.table ? [createMethodTableBackend(options.table)] : []), ...(options.backends ?? [])];
  if (backends.length === 0 && !options.passThrough) throw new TypeError(`network ${options.name} has no backend`);
  // Resolutions are cached (bounded); unknown names are not, so junk methods cannot grow the map.
  const resolved = new Map<string, Backend>();
  const local = (method: string) => {
    const hit = resolved.get(method);
    if (hit) return hit;
    for (const backend of backends) {
      if (backend.handles(method)) {
        if (resolved.size < 10_000) resolved.set(method, backend);
        return backend;
      }
    }
    return undefined;
  };
  return {
    name: options.name,
    key,
    resolve: (method) => local(method) ?? options.passThrough,
    servesLocally: (method) => local(method) !== undefined,
    async isReady() {
      const checks = [...backends, ...(options.passThrough ? [options.passThrough] : [])].map((b) => (b.isReady ? b.isReady() : true));
      if (options.isReady) checks.push(options.isReady());
      return (await Promise.all(checks)).every(Boolean);
    },
  };
}

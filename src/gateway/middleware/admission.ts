// Decides, before anything runs, what each decoded call becomes: routed to a backend with its
// compute-unit cost, or answered at once with an error (unknown method, tier too low).
import type { ApiKeyRecord } from '../../store/types.js';
import { ForbiddenError, MethodNotFoundError, type RpcError } from '../../rpc/errors.js';
import type { DecodedItem, JsonRpcId, RpcCall } from '../framing/decodeRequest.js';
import type { Backend } from '../../backends/backend.js';
import type { NetworkRouter } from '../router/networkRouter.js';
import type { CostTable } from '../policy/computeUnits.js';
import type { TierPolicy } from '../policy/tiers.js';

export type AdmittedItem =
  | { kind: 'run'; call: RpcCall; backend: Backend; cost: number; metricMethod: string }
  | { kind: 'error'; id: JsonRpcId; notification: boolean; error: RpcError; metricMethod: string };

export interface AdmissionDeps {
  tiers: TierPolicy;
  costs: CostTable;
}

const MAX_METHOD_ECHO = 100;

/** Names of unknown methods are echoed shortened, so a megabyte method name is not sent back. */
function shortName(method: string): string {
  return method.length > MAX_METHOD_ECHO ? `${method.slice(0, MAX_METHOD_ECHO)}…` : method;
}

export function admit(item: DecodedItem, key: ApiKeyRecord, network: NetworkRouter, deps: AdmissionDeps): AdmittedItem {
  if (!item.ok) return { kind: 'error', id: item.id, notification: false, error: item.error, metricMethod: 'invalid' };
  const { call } = item;
  const backend = network.resolve(call.method);
  // Metric labels stay bounded: only methods we serve or price keep their name.
  const metricMethod = network.servesLocally(call.method) || deps.costs.lists(call.method) ? call.method : 'other';
  if (!backend) {
    return { kind: 'error', id: call.id, notification: call.notification, error: new MethodNotFoundError(shortName(call.method)), metricMethod };
  }
  if (!deps.tiers.allows(key.tier, call.method)) {
    const requiredTier = deps.tiers.requiredTier(call.method);
    const error = new ForbiddenError(
      `${shortName(call.method)} requires the ${requiredTier} tier or higher; this API key is on the ${key.tier} tier`,
      { requiredTier, tier: key.tier },
    );
    return { kind: 'error', id: call.id, notification: call.notification, error, metricMethod };
  }
  return { kind: 'run', call, backend, cost: deps.costs.cost(call.method), metricMethod };
}

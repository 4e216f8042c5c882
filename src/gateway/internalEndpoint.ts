// The internal JSON-RPC path `POST /internal/<network>` through which other Tracehook processes
// (`--role gateway --embedded-upstream`, `--processes N`) reach the embedded chain this process
// owns. The caller proves it belongs to the deployment with the service's auth token in
// X-Service-Token (compared in constant time); there is no API key and no compute-unit charge, as
// the gateway in front already charged its client's key. What a call does is the network's backends'.
import { constantTimeEqual } from '../http/constantTimeEqual.js';
import { UnauthorizedError } from '../rpc/errors.js';
import type { ApiKeyRecord } from '../store/types.js';
import { networkKey } from '../config/networkNames.js';
import { createTierPolicy } from './policy/tiers.js';
import type { UsageRecorder } from './usage/usageRecorder.js';

/** Path prefix of the internal endpoint; the network's name follows. */
export const INTERNAL_PATH_PREFIX = '/internal/';

/** Header carrying the service's auth token on internal calls. */
export const INTERNAL_TOKEN_HEADER = 'X-Service-Token';

export interface InternalEndpointOptions {
  /** The secret callers must send (the service's auth token). */
  token: string;
  /** The network served there (the embedded chain's). */
  network: string;
}

/** The key internal calls run as: unlimited, every method allowed, never stored. */
export const INTERNAL_KEY: ApiKeyRecord = Object.freeze({
  id: 'internal',
  name: 'internal',
  tier: 'enterprise',
  active: true,
  keyPrefix: 'internal',
  allowedOrigins: null,
  createdAt: 0,
  lastUsedAt: null,
  revokedAt: null,
}) as ApiKeyRecord;

/** Tiers with no budget: internal calls are not charged twice. */
export const unmeteredTiers = () => createTierPolicy({ cuPerSecond: { free: null, payg: null, enterprise: null } });

/** Usage of internal calls is not recorded: the gateway in front recorded it under the client's key. */
export const noUsage: UsageRecorder = { record: () => undefined, flush: async () => undefined, close: async () => undefined };

/** Whether a path is `/internal/<network>` (any spelling of the name, optional trailing slash). */
export function matchInternalPath(path: string, network: string): boolean {
  if (!path.startsWith(INTERNAL_PATH_PREFIX)) return false;
  const rest = path.slice(INTERNAL_PATH_PREFIX.length);
  const name = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return name === network || networkKey(name) === networkKey(network);
}

/** Checks the caller's credential: the internal key, or UnauthorizedError (the token is never echoed). */
export function createInternalAuthenticator(token: string): (sent: string | undefined) => ApiKeyRecord {
  return (sent) => {
    if (sent === undefined || sent === '') throw new UnauthorizedError(`Must be authenticated! Internal calls need the service's auth token in ${INTERNAL_TOKEN_HEADER}`);
    if (!constantTimeEqual(sent, token)) throw new UnauthorizedError('Must be authenticated! Wrong internal credential');
    return INTERNAL_KEY;
  };
}

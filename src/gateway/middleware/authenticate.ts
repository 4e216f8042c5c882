// API key authentication for the JSON-RPC endpoint: the key from the path must exist (401), be
// active (403) and, when the key restricts origins, come from one of them (403).
import type { ApiKeyRecord } from '../../store/types.js';
import { ForbiddenError, UnauthorizedError } from '../../rpc/errors.js';
import type { KeyCache } from '../keys/keyCache.js';
import { isValidApiKey } from '../keys/apiKeys.js';

function check(key: ApiKeyRecord | null, origin: string | undefined): ApiKeyRecord {
  if (!key) throw new UnauthorizedError('Must be authenticated! Unknown API key');
  if (!key.active) throw new ForbiddenError('API key is inactive (revoked)');
  if (key.allowedOrigins) {
    if (!origin) throw new ForbiddenError('This API key only accepts browser requests from its allowed origins; the request has no Origin header');
    const normalized = origin.toLowerCase();
    if (!key.allowedOrigins.some((o) => o.toLowerCase() === normalized)) {
      throw new ForbiddenError(`Origin ${origin.slice(0, 200)} is not allowed for this API key`);
    }
  }
  return key;
}

/**
 * The key record, synchronously when the key cache has it (the common case), else a promise.
 * Throws (or rejects with) UnauthorizedError/ForbiddenError.
 */
export function authenticate(keyCache: KeyCache, secret: string | undefined, origin: string | undefined): ApiKeyRecord | Promise<ApiKeyRecord> {
  if (!secret) throw new UnauthorizedError('Must be authenticated! Missing API key: send requests to /v2/<API_KEY>');
  // Malformed secrets cannot exist in the store, so they never reach it (or the cache).
  if (!isValidApiKey(secret)) throw new UnauthorizedError('Must be authenticated! Unknown API key');
  const cached = keyCache.peek(secret);
  if (cached !== undefined) return check(cached, origin);
  return keyCache.lookup(secret).then((key) => check(key, origin));
}

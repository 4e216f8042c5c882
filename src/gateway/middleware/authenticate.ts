// API key authentication for the JSON-RPC endpoint: the key from the path must exist (401), be
// active (403) and, when the key restricts origins, come from one of them (403).
import type { ApiKeyRecord } from '../../store/types.js';
import { ForbiddenError, UnauthorizedError } from '../../rpc/errors.js';
import type { KeyCache } from '../keys/keyCache.js';
import { isValidApiKey } from '../keys/apiKeys.js';

/** Resolves the key record or throws UnauthorizedError/ForbiddenError. */
export async function authenticate(keyCache: KeyCache, secret: string | undefined, origin: string | undefined): Promise<ApiKeyRecord> {
  if (!secret) throw new UnauthorizedError('Must be authenticated! Missing API key: send requests to /v2/<API_KEY>');
  // Malformed secrets cannot exist in the store, so they never reach it (or the cache).
  const key = isValidApiKey(secret) ? await keyCache.lookup(secret) : null;
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

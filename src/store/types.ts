// Interfaces of the service-state repositories. Implementations live beside this file and are
// written against `sql.ts`; this file imports nothing from the app.

// ---------------------------------------------------------------------------------------------
// API keys and usage (gateway). Keep this section self-contained; other features add their own.

/** Access tiers, lowest first. */
export const API_KEY_TIERS = ['free', 'payg', 'enterprise'] as const;
export type ApiKeyTier = (typeof API_KEY_TIERS)[number];

/** A stored API key. The secret itself is never stored, only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  tier: ApiKeyTier;
  active: boolean;
  /** First characters of the secret, shown so people can tell keys apart; not enough to use it. */
  keyPrefix: string;
  /** Browser origins allowed to use the key; `null` allows any (and requests without Origin). */
  allowedOrigins: string[] | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface NewApiKey {
  id: string;
  name: string;
  tier: ApiKeyTier;
  /** Lowercase hex SHA-256 of the secret. */
  keyHash: string;
  keyPrefix: string;
  allowedOrigins: string[] | null;
  createdAt: number;
}

/** Counts to add to one key's usage on one UTC day for one method. */
export interface ApiKeyUsageDelta {
  keyId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  method: string;
  requests: number;
  computeUnits: number;
}

export interface ApiKeyUsageRow {
  day: string;
  method: string;
  requests: number;
  computeUnits: number;
}

export interface ApiKeyRepository {
  /** Inserts a key; throws if the id or hash already exists. */
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** All keys, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key inactive; returns the updated key, or null when the id is unknown. Idempotent. */
  revoke(id: string, atMs: number): Promise<ApiKeyRecord | null>;
  /** Changes tier and/or active flag of an existing key; returns null when the id is unknown. */
  update(id: string, changes: { tier?: ApiKeyTier; active?: boolean }): Promise<ApiKeyRecord | null>;
  /** Raises `lastUsedAt` of each key to the given time (never lowers it). */
  markUsed(entries: ReadonlyArray<{ id: string; atMs: number }>): Promise<void>;
  /** Adds usage counts in one transaction. */
  addUsage(deltas: readonly ApiKeyUsageDelta[]): Promise<void>;
  /** Usage of one key between two UTC days (inclusive), by day then method. */
  usage(keyId: string, fromDay: string, toDay: string): Promise<ApiKeyUsageRow[]>;
  /**
   * A counter bumped by every create, revoke and update (in the same transaction), so caches of
   * keys can tell cheaply whether anything changed, whichever process changed it.
   */
  revision(): Promise<number>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
}

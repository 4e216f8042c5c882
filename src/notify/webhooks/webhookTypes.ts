// The webhook record, its types and filters, and the per-tier limits. Plain data shared by the
// repository, the management API, the outbox and the delivery worker.

export const WEBHOOK_TYPES = ['ADDRESS_ACTIVITY', 'NFT_ACTIVITY', 'GRAPHQL'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export function isWebhookType(value: unknown): value is WebhookType {
  return typeof value === 'string' && (WEBHOOK_TYPES as readonly string[]).includes(value);
}

/** Account tiers; the management API runs with one configured tier (one auth token for now). */
export const WEBHOOK_TIERS = ['free', 'payg', 'enterprise'] as const;
export type WebhookTier = (typeof WEBHOOK_TIERS)[number];

/** Most webhooks a team of each tier may hold. */
export const WEBHOOK_COUNT_LIMITS: Readonly<Record<WebhookTier, number>> = {
  free: 5,
  payg: 100,
  enterprise: Number.POSITIVE_INFINITY,
};

/** How long a failing event is retried, from its first attempt, before it is marked failed. */
export const RETRY_WINDOW_MS: Readonly<Record<WebhookTier, number>> = {
  free: 10 * 60_000,
  payg: 10 * 60_000,
  enterprise: 60 * 60_000,
};

/**
 * Most addresses one ADDRESS_ACTIVITY webhook tracks. Matching looks up only the addresses a block
 * touches, so the count does not slow block processing (bench/follower.bench.ts measures 1,000,000).
 */
export const MAX_ADDRESSES_PER_WEBHOOK = 1_000_000;
/** Most addresses one request may add, remove or set (bounds the request body, about 4.3 MB). */
export const MAX_ADDRESSES_PER_REQUEST = 100_000;
/** Most NFT filters one NFT_ACTIVITY webhook holds. */
export const MAX_NFT_FILTERS_PER_WEBHOOK = 100_000;

/** `query_budget`: the follower paused a Custom webhook whose query went over its budget (see `pausedDetail`). */
export type PausedReason = 'manual' | 'auto' | 'query_budget';

/** An NFT filter: a whole contract (`tokenId` null) or one token (decimal string). */
export interface NftFilter {
  contractAddress: string;
  tokenId: string | null;
}

export interface WebhookRecord {
  /** `wh_` + 16 base32 characters. */
  id: string;
  /** Network name in the hosted provider's spelling, e.g. `ETH_MAINNET`. */
  network: string;
  type: WebhookType;
  url: string;
  name: string | null;
  appId: string | null;
  /** The user's switch: while false the follower records no new events for this webhook. */
  isActive: boolean;
  /** Set while deliveries are held (events keep being recorded); null when delivering. */
  pausedAt: number | null;
  pausedReason: PausedReason | null;
  /** Why, in words, when the follower paused it (`query_budget`); null otherwise. */
  pausedDetail: string | null;
  /** Current signing key (`whsec_…`). Secret: never log it. */
  signingKey: string;
  /** The key before the last rotation; still signs until `previousKeyExpiresAt`. */
  previousSigningKey: string | null;
  previousKeyExpiresAt: number | null;
  graphqlQuery: string | null;
  skipEmptyMessages: boolean;
  /** Start of the current run of failed attempts; null after a success. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What the management API stores on create (ids and keys already generated). */
export interface NewWebhook {
  id: string;
  network: string;
  type: WebhookType;
  url: string;
  name: string | null;
  appId: string | null;
  signingKey: string;
  graphqlQuery: string | null;
  skipEmptyMessages: boolean;
  addresses: readonly string[];
  nftFilters: readonly NftFilter[];
  createdAt: number;
}

/** Keys that sign at `nowMs`: the current key first, then the previous one during its grace period. */
export function signingKeysAt(webhook: Pick<WebhookRecord, 'signingKey' | 'previousSigningKey' | 'previousKeyExpiresAt'>, nowMs: number): string[] {
  const keys = [webhook.signingKey];
  if (webhook.previousSigningKey && webhook.previousKeyExpiresAt !== null && nowMs < webhook.previousKeyExpiresAt) {
    keys.push(webhook.previousSigningKey);
  }
  return keys;
}

/** True when deliveries may go out (active and not paused). */
export function isDelivering(webhook: Pick<WebhookRecord, 'isActive' | 'pausedAt'>): boolean {
  return webhook.isActive && webhook.pausedAt === null;
}

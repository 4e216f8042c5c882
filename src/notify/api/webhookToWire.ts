// Webhook records as the management API returns them: the hosted provider's snake_case fields
// (what its SDK parses) plus our own pause and key-rotation fields. The signing key is shown only
// where the caller asks for it (creation, rotation); elsewhere `signing_key` is an empty string.
import type { NftFilter, WebhookRecord } from '../webhooks/webhookTypes.js';

export interface WireWebhook {
  id: string;
  network: string;
  webhook_type: string;
  webhook_url: string;
  /** False while switched off or paused (manually or automatically). */
  is_active: boolean;
  /** Milliseconds since the epoch. */
  time_created: number;
  /** The HMAC key, in the answers of creation and rotation only; `""` everywhere else. */
  signing_key: string;
  version: 'V2';
  name?: string;
  app_id?: string;
  graphql_query?: string;
  paused_reason: 'manual' | 'auto' | 'query_budget' | null;
  /** Why the follower paused it (a Custom query over its budget); null otherwise. */
  paused_detail: string | null;
  paused_at: number | null;
  previous_signing_key_expires_at: number | null;
}

export interface WireOptions {
  /** Put the signing key in the answer (creation and rotation). Default false: `signing_key` is `""`. */
  revealSigningKey?: boolean;
}

export function webhookToWire(w: WebhookRecord, nowMs: number, options: WireOptions = {}): WireWebhook {
  return {
    id: w.id,
    network: w.network,
    webhook_type: w.type,
    webhook_url: w.url,
    is_active: w.isActive && w.pausedAt === null,
    time_created: w.createdAt,
    signing_key: options.revealSigningKey ? w.signingKey : '',
    version: 'V2',
    ...(w.name !== null && { name: w.name }),
    ...(w.appId !== null && { app_id: w.appId }),
    ...(w.graphqlQuery !== null && { graphql_query: w.graphqlQuery }),
    paused_reason: w.pausedReason,
    paused_detail: w.pausedDetail,
    paused_at: w.pausedAt,
    previous_signing_key_expires_at: w.previousKeyExpiresAt !== null && w.previousKeyExpiresAt > nowMs ? w.previousKeyExpiresAt : null,
  };
}

export function nftFilterToWire(f: NftFilter): { contract_address: string; token_id?: string } {
  return f.tokenId === null ? { contract_address: f.contractAddress } : { contract_address: f.contractAddress, token_id: f.tokenId };
}

/** JSON schema of WireWebhook for the OpenAPI document. */
export const WIRE_WEBHOOK_SCHEMA = {
  type: 'object',
  required: ['id', 'network', 'webhook_type', 'webhook_url', 'is_active', 'time_created', 'signing_key', 'version'],
  properties: {
    id: { type: 'string', example: 'wh_octjglnywaupz6th' },
    network: { type: 'string', example: 'ETH_MAINNET' },
    webhook_type: { type: 'string', enum: ['ADDRESS_ACTIVITY', 'NFT_ACTIVITY', 'GRAPHQL'] },
    webhook_url: { type: 'string' },
    is_active: { type: 'boolean', description: 'false while switched off or paused' },
    time_created: { type: 'integer', description: 'milliseconds since the epoch' },
    signing_key: {
      type: 'string',
      description: 'HMAC key of X-Service-Signature (secret): only in the answers of create-webhook and rotate-webhook-signing-key; an empty string elsewhere (GET /webhook-signing-key shows it)',
    },
    version: { type: 'string', enum: ['V2'] },
    name: { type: 'string' },
    app_id: { type: 'string' },
    graphql_query: { type: 'string' },
    paused_reason: { type: ['string', 'null'], enum: ['manual', 'auto', 'query_budget', null] },
    paused_detail: { type: ['string', 'null'], description: 'why the follower paused it (query_budget)' },
    paused_at: { type: ['integer', 'null'] },
    previous_signing_key_expires_at: { type: ['integer', 'null'], description: 'until then the previous key also signs' },
  },
} as const;

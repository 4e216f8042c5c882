// Shapes of the management API's answers the pages read (see /api/openapi.json).

export type WebhookType = 'ADDRESS_ACTIVITY' | 'NFT_ACTIVITY' | 'GRAPHQL';

export interface Webhook {
  id: string;
  network: string;
  webhook_type: WebhookType;
  webhook_url: string;
  is_active: boolean;
  time_created: number;
  signing_key: string;
  name?: string;
  graphql_query?: string;
  paused_reason: 'manual' | 'auto' | 'query_budget' | null;
  paused_detail: string | null;
  previous_signing_key_expires_at: number | null;
}

export interface WebhookEvent {
  event_id: string;
  sequence: number;
  type: string;
  created_at: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  body?: string;
}

export interface Attempt {
  attempt_id: string;
  event_id: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  /** As sent, in order; null for attempts logged before they were kept. */
  request_headers: Record<string, string> | null;
  first_attempt: boolean;
  outcome: string;
}

export interface Page<T> {
  data: T[];
  pagination: { cursors: { after?: string } };
}

export interface NetworkHead {
  network: string;
  path: string;
  chain_id: string | null;
  head_block: string | null;
  error: string | null;
}

export interface UpstreamNetwork {
  network: string;
  ready: boolean;
  upstreams: { label: string; state: string; head: string | null; latency_ms: number; last_error: string | null }[];
}

export interface ApiKey {
  id: string;
  name: string;
  tier: string;
  active: boolean;
  key_prefix: string;
  allowed_origins: string[] | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface KeyUsage {
  from: string;
  to: string;
  totals: { requests: number; compute_units: number };
  days: { day: string; requests: number; compute_units: number; methods: Record<string, { requests: number; compute_units: number }> }[];
}

export interface TestResult {
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
  signed_with: string;
}

// Starts a real gateway on a free port over a real SQLite store with one key per tier, for tests.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createKeysRepository } from '../../store/keysRepository.js';
import type { ApiKeyRepository, ApiKeyTier } from '../../store/types.js';
import type { SqlDatabase } from '../../store/sql.js';
import { createGateway, type Gateway } from '../app.js';
import type { GatewayOptions } from '../gatewayOptions.js';
import { createApiKey } from '../keys/apiKeys.js';
import { createTestState, createTestTable, type TestChainState } from './testNamespace.js';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  port: number;
  repo: ApiKeyRepository;
  db: SqlDatabase;
  state: TestChainState;
  /** Secrets of one active key per tier. */
  keys: Record<ApiKeyTier, string>;
  keyIds: Record<ApiKeyTier, string>;
  authToken: string;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  logText(): string;
  close(): Promise<void>;
}

export const TEST_AUTH_TOKEN = 'test-auth-token-0123456789abcdef';

export function createCapturingLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  return { logger: pino({ level, base: undefined }, stream), lines };
}

export async function startTestGateway(overrides: Partial<GatewayOptions> = {}): Promise<TestGateway> {
  const db = createSqliteDatabase({ filename: ':memory:' });
  await migrate(db);
  const repo = createKeysRepository(db);
  const keys = {} as Record<ApiKeyTier, string>;
  const keyIds = {} as Record<ApiKeyTier, string>;
  for (const tier of ['free', 'payg', 'enterprise'] as const) {
    const { record, apiKey } = await createApiKey(repo, { name: `${tier} key`, tier });
    keys[tier] = apiKey;
    keyIds[tier] = record.id;
  }
  const state = createTestState();
  const { logger, lines } = createCapturingLogger();
  const gateway = createGateway({
    networks: [{ name: 'mainnet', table: createTestTable(state) }],
    store: { keys: repo },
    authToken: TEST_AUTH_TOKEN,
    logger,
    ...overrides,
  });
  const { url, port } = await gateway.listen('127.0.0.1', 0);
  return {
    gateway,
    url,
    port,
    repo,
    db,
    state,
    keys,
    keyIds,
    authToken: TEST_AUTH_TOKEN,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => lines.join('\n'),
    async close() {
      await gateway.close();
      await db.close();
    },
  };
}

/** POSTs a raw body and returns status, headers and the parsed (or raw) body. */
export async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const res = await fetch(url, { method: 'POST', body, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export function rpcBody(method: string, params: unknown[] = [], id: number | string | null = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

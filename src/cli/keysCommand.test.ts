import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../store/sqlite/sqliteDatabase.js';
import { migrate } from '../store/migrations/migrate.js';
import { createKeysRepository } from '../store/keysRepository.js';
import { hashApiKey } from '../gateway/keys/apiKeys.js';
import { createManualClock } from '../gateway/clock.js';
import { formatKeyTable, registerKeysCommand, type OpenKeysStore } from './keysCommand.js';

let dir: string;
let out: string[];
let opened: Array<Record<string, unknown>>;

/** A program whose `keys` command opens a real SQLite file given by --db. */
function program(): Command {
  const p = new Command('tracehook').exitOverride().configureOutput({ writeErr: () => undefined });
  const openStore: OpenKeysStore = async (flags) => {
    opened.push(flags);
    const db = createSqliteDatabase({ filename: String(flags.db) });
    await migrate(db);
    return { keys: createKeysRepository(db), close: () => db.close() };
  };
  registerKeysCommand(p, openStore, { out: (t) => out.push(t), clock: createManualClock(Date.UTC(2026, 0, 2)) }).option('--db <file>', 'database');
  return p;
}

const run = (...args: string[]) => program().parseAsync(['node', 'tracehook', 'keys', ...args, '--db', join(dir, 'keys.sqlite')]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tracehook-keys-'));
  out = [];
  opened = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tracehook keys', () => {
  it('default: create prints the secret once and stores only its hash', async () => {
    await run('create', '--tier', 'payg', '--name', 'Team A', '--origins', 'https://a.example, https://b.example');
    const secret = out.find((l) => l.startsWith('Secret'))!.split(': ')[1]!;
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(out[0]).toMatch(/^Created API key key_[0-9a-f]{16} "Team A" \(tier payg\)\.$/);
    expect(opened[0]).toMatchObject({ db: join(dir, 'keys.sqlite') });
    const db = createSqliteDatabase({ filename: join(dir, 'keys.sqlite') });
    const key = await createKeysRepository(db).findByHash(hashApiKey(secret));
    expect(key).toMatchObject({ name: 'Team A', tier: 'payg', allowedOrigins: ['https://a.example', 'https://b.example'] });
    expect(JSON.stringify(await db.query('SELECT * FROM api_keys'))).not.toContain(secret);
    await db.close();
  });

  it('default: list shows prefixes and state; revoke deactivates', async () => {
    await run('create', '--name', 'one', '--json');
    const created = JSON.parse(out.join('\n')) as { key: { id: string; tier: string }; apiKey: string };
    expect(created.key.tier).toBe('free');
    out = [];
    await run('list');
    expect(out[0]).toContain(created.key.id);
    expect(out[0]).toContain(`${created.apiKey.slice(0, 6)}…`);
    expect(out[0]).not.toContain(created.apiKey);
    out = [];
    await run('revoke', created.key.id);
    expect(out).toEqual([`Revoked API key ${created.key.id} "one".`]);
    out = [];
    await run('list', '--json');
    expect(JSON.parse(out[0]!)).toEqual([expect.objectContaining({ id: created.key.id, active: false, revokedAt: '2026-01-02T00:00:00.000Z' })]);
  });

  it('error: unknown id, bad tier and bad origins are refused', async () => {
    await expect(run('revoke', 'key_nope')).rejects.toThrow('no API key with id key_nope');
    await expect(run('create', '--name', 'x', '--tier', 'gold')).rejects.toThrow();
    await expect(run('create', '--name', 'x', '--origins', 'nope')).rejects.toThrow(/not an origin/);
  });

  it('default: an empty table says so', () => {
    expect(formatKeyTable([])).toBe('No API keys.');
  });
});

// `tracehook keys create|list|revoke`: API key management from the command line, against the same
// store the service uses. Store opening and its options are the caller's (runCli wires them).
import { Command, Option } from 'commander';
import type { ApiKeyRecord, ApiKeyRepository, ApiKeyTier } from '../store/types.js';
import { API_KEY_TIERS } from '../store/types.js';
import { createApiKey } from '../gateway/keys/apiKeys.js';
import type { Clock } from '../gateway/clock.js';
import { systemClock } from '../gateway/clock.js';

export interface KeysStoreHandle {
  keys: ApiKeyRepository;
  close(): Promise<void>;
}

/** Opens the service store from the command's options (with globals: --data-dir, --database-url, …). */
export type OpenKeysStore = (flags: Record<string, unknown>) => Promise<KeysStoreHandle>;

export interface KeysCommandIo {
  out(text: string): void;
  clock?: Clock;
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

export interface KeysCreateOptions {
  name: string;
  tier: ApiKeyTier;
  origins?: string[];
}

/** Creates a key; returns the record and the secret (shown once). */
export async function keysCreate(repo: ApiKeyRepository, options: KeysCreateOptions, clock: Clock = systemClock) {
  const name = options.name.trim();
  if (!name || name.length > 200) throw new Error('--name must be 1-200 characters');
  for (const origin of options.origins ?? []) {
    if (!ORIGIN.test(origin)) throw new Error(`--origins: ${origin} is not an origin such as https://app.example.com`);
  }
  return createApiKey(repo, { name, tier: options.tier, allowedOrigins: options.origins ?? null }, clock);
}

/** Revokes a key by id; throws when there is no such key. */
export async function keysRevoke(repo: ApiKeyRepository, id: string, clock: Clock = systemClock): Promise<ApiKeyRecord> {
  if (!(await repo.findById(id))) throw new Error(`no API key with id ${id}`);
  const revoked = await repo.revoke(id, clock.now());
  return revoked!;
}

const isoOrDash = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** A plain-text table of keys (no secrets: only the display prefix). */
export function formatKeyTable(keys: readonly ApiKeyRecord[]): string {
  if (keys.length === 0) return 'No API keys.';
  const rows = [
    ['ID', 'NAME', 'TIER', 'ACTIVE', 'PREFIX', 'ORIGINS', 'CREATED', 'LAST USED'],
    ...keys.map((k) => [
      k.id,
      k.name,
      k.tier,
      k.active ? 'yes' : 'no',
      `${k.keyPrefix}…`,
      k.allowedOrigins?.join(',') ?? '*',
      isoOrDash(k.createdAt),
      isoOrDash(k.lastUsedAt),
    ]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col]!)).join('  ').trimEnd()).join('\n');
}

function keyJson(k: ApiKeyRecord) {
  return { ...k, createdAt: new Date(k.createdAt).toISOString(), lastUsedAt: k.lastUsedAt && new Date(k.lastUsedAt).toISOString(), revokedAt: k.revokedAt && new Date(k.revokedAt).toISOString() };
}

/**
 * Adds `keys` with `create`, `list` and `revoke` to a program and returns the `keys` command, so the
 * caller can add the store options to it (they reach `openStore` through `optsWithGlobals()`).
 */
export function registerKeysCommand(program: Command, openStore: OpenKeysStore, io: KeysCommandIo = { out: (t) => process.stdout.write(`${t}\n`) }): Command {
  const clock = io.clock ?? systemClock;
  const keys = program.command('keys').description('manage API keys (stored hashed; a secret is shown only when created)');

  const withStore = async (cmd: Command, fn: (repo: ApiKeyRepository) => Promise<void>) => {
    const store = await openStore(cmd.optsWithGlobals());
    try {
      await fn(store.keys);
    } finally {
      await store.close();
    }
  };

  keys
    .command('create')
    .description('create an API key and print its secret once')
    .requiredOption('--name <name>', 'who or what the key is for')
    .addOption(new Option('--tier <tier>', 'access tier').choices(API_KEY_TIERS).default('free'))
    .option('--origins <origins>', 'comma-separated browser origins allowed to use the key (default: any)', (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; tier: ApiKeyTier; origins?: string[]; json?: boolean }, cmd: Command) => {
      await withStore(cmd, async (repo) => {
        const { record, apiKey } = await keysCreate(repo, opts, clock);
        if (opts.json) io.out(JSON.stringify({ key: keyJson(record), apiKey }, null, 2));
        else {
          io.out(`Created API key ${record.id} "${record.name}" (tier ${record.tier}).`);
          io.out(`Secret (shown only now; store it safely): ${apiKey}`);
          io.out(`JSON-RPC endpoint: POST /v2/${apiKey}`);
        }
      });
    });

  keys
    .command('list')
    .description('list API keys (prefixes only, never secrets)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withStore(cmd, async (repo) => {
        const all = await repo.list();
        io.out(opts.json ? JSON.stringify(all.map(keyJson), null, 2) : formatKeyTable(all));
      });
    });

  keys
    .command('revoke')
    .description('deactivate an API key (a running service on the same store refuses it within about 200 ms)')
    .argument('<id>', 'key id, as shown by `keys list`')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await withStore(cmd, async (repo) => {
        const revoked = await keysRevoke(repo, id, clock);
        io.out(`Revoked API key ${revoked.id} "${revoked.name}".`);
      });
    });

  return keys;
}

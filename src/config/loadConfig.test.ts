import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './loadConfig.js';
import { envName, flagName } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'tracehook-config-'));

describe('loadConfig', () => {
  it('default: anvil-compatible defaults', () => {
    const c = loadConfig({ flags: {}, env: {} });
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8545, dataDir: './.tracehook', chainId: 31337, hardfork: 'prague', gasLimit: 30_000_000, baseFee: 1_000_000_000 });
  });

  it('behavior: flags beat env, env beats the file, the file beats defaults', () => {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'port: 9000\nhost: 0.0.0.0\nlogLevel: debug\ncorsOrigins: "https://a.example, https://b.example"\n');
    const c = loadConfig({ flags: { config: file, port: 9100 }, env: { TRACEHOOK_PORT: '9050', TRACEHOOK_HOST: '10.0.0.1' } });
    expect(c.port).toBe(9100);
    expect(c.host).toBe('10.0.0.1');
    expect(c.logLevel).toBe('debug');
    expect(c.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('args: JSON config files and env-only secrets', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ dataDir: '/tmp/x', production: true }));
    const c = loadConfig({ flags: {}, env: { TRACEHOOK_CONFIG: file, TRACEHOOK_DEV_API_KEY: 'key_12345678', TRACEHOOK_AUTH_TOKEN: 'a'.repeat(32) } });
    expect(c).toMatchObject({ dataDir: '/tmp/x', production: true, devApiKey: 'key_12345678', authToken: 'a'.repeat(32) });
  });

  it('error: names the offending option', () => {
    expect(() => loadConfig({ flags: {}, env: { TRACEHOOK_PORT: 'eighty' } })).toThrowErrorMatchingInlineSnapshot(`[ConfigError: port: expected an integer, got "eighty"]`);
    expect(() => loadConfig({ flags: { port: 70000 }, env: {} })).toThrow(/invalid option port/);
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'prot: 1\n');
    expect(() => loadConfig({ flags: { config: file }, env: {} })).toThrow('unknown option "prot"');
  });

  it('error: a default trace timeout above the cap on trace timeouts is refused', () => {
    expect(() => loadConfig({ flags: { traceTimeoutMs: 60_000 }, env: {} })).toThrow('invalid option traceTimeoutMs: traceTimeoutMs must not exceed traceTimeoutMaxMs');
    expect(loadConfig({ flags: { traceTimeoutMs: 60_000, traceTimeoutMaxMs: 60_000 }, env: {} }).traceTimeoutMs).toBe(60_000);
  });

  it('error: a role other than all needs a PostgreSQL store; an unknown role is refused', () => {
    expect(loadConfig({ flags: {}, env: {} }).role).toBe('all');
    expect(() => loadConfig({ flags: { role: 'worker' }, env: {} })).toThrow('every role but all shares its state with other processes');
    expect(loadConfig({ flags: { role: 'follower' }, env: { TRACEHOOK_DATABASE_URL: 'postgres://h/db' } }).role).toBe('follower');
    expect(() => loadConfig({ flags: { role: 'boss', databaseUrl: 'postgres://h/db' }, env: {} })).toThrow('invalid option role');
  });

  it('error: trace caps a string or a timer cannot hold are refused', () => {
    expect(() => loadConfig({ flags: { traceMaxBytes: 1024 ** 3 }, env: {} })).toThrow(/invalid option traceMaxBytes/);
    expect(() => loadConfig({ flags: { traceTimeoutMaxMs: 2 ** 31 }, env: {} })).toThrow(/invalid option traceTimeoutMaxMs/);
  });

  it('args: the webhook retry window is the tier\'s unless given, in whole seconds from 1 s to 7 days', () => {
    expect(loadConfig({ flags: {}, env: {} }).webhookRetryWindowSec).toBeUndefined();
    expect(loadConfig({ flags: {}, env: { TRACEHOOK_WEBHOOK_RETRY_WINDOW_SEC: '3' } }).webhookRetryWindowSec).toBe(3);
    expect(() => loadConfig({ flags: { webhookRetryWindowSec: 0 }, env: {} })).toThrow(/invalid option webhookRetryWindowSec/);
    expect(() => loadConfig({ flags: { webhookRetryWindowSec: 8 * 24 * 3600 }, env: {} })).toThrow(/invalid option webhookRetryWindowSec/);
  });

  it('default: names derive from the key', () => {
    expect(envName('dataDir')).toBe('TRACEHOOK_DATA_DIR');
    expect(flagName('devApiKey')).toBe('--dev-api-key');
  });
});

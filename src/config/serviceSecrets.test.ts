import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateSecrets } from './serviceSecrets.js';

describe('loadOrCreateSecrets', () => {
  it('default: generates once, then returns the same values', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-secrets-'));
    const first = loadOrCreateSecrets(dir, {});
    expect(first.generated).toEqual({ devApiKey: true, authToken: true });
    expect(first.devApiKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const second = loadOrCreateSecrets(dir, {});
    expect(second).toMatchObject({ devApiKey: first.devApiKey, authToken: first.authToken, generated: { devApiKey: false, authToken: false } });
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('args: configured values win and are not written to disk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-secrets-'));
    const s = loadOrCreateSecrets(dir, { devApiKey: 'given_key_123', authToken: 'given-token-0123456789' });
    expect(s).toMatchObject({ devApiKey: 'given_key_123', authToken: 'given-token-0123456789', generated: { devApiKey: false, authToken: false } });
  });
});

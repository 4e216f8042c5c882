import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, createPathRedactor, redactPath } from './createLogger.js';

describe('redactPath', () => {
  it('default: masks API keys in paths', () => {
    expect(redactPath('/v2/abcdef123')).toBe('/v2/***');
    expect(redactPath('/healthz')).toBe('/healthz');
    expect(redactPath('/v2/')).toBe('/v2/');
  });

  it('behavior: only known route words are kept: keys and tokens anywhere in a path or query are masked', () => {
    expect(redactPath('/foo/SecretKey12345678')).toBe('/***/***');
    expect(redactPath('/api/keys/key_0123/usage?token=tok-SECRET&from=2026-01-01')).toBe('/api/keys/***/usage?***');
    expect(redactPath('/mainnet/v2/abcdef123?x=1')).toBe('/***/v2/***?***');
    expect(redactPath('/api/x#frag')).toBe('/api/***?***');
    expect(redactPath('/a'.repeat(100))).toBe(`${'/***'.repeat(12)}/…`);
  });

  it('args: extra safe words (network names, mounted routes)', () => {
    const redact = createPathRedactor(['mainnet', 'create-webhook']);
    expect(redact('/mainnet/v2/abcdef123?x=1')).toBe('/mainnet/v2/***?***');
    expect(redact('/api/create-webhook')).toBe('/api/create-webhook');
    expect(redact('/api/MAINNET')).toBe('/api/***');
  });
});

describe('createLogger', () => {
  it('behavior: secret fields never reach the output', () => {
    let out = '';
    const sink = new Writable({ write(chunk, _e, cb) { out += String(chunk); cb(); } });
    const log = createLogger({ level: 'info', destination: sink });
    log.info({ authToken: 'tok-SECRET', webhook: { signingKey: 'whsec_SECRET' }, apiKey: 'k-SECRET' }, 'created');
    expect(out).toContain('created');
    expect(out).not.toContain('SECRET');
  });
});

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactPath } from './createLogger.js';

describe('createLogger', () => {
  it('default: masks API keys in paths', () => {
    expect(redactPath('/v2/abcdef123')).toBe('/v2/***');
    expect(redactPath('/mainnet/v2/abcdef123?x=1')).toBe('/mainnet/v2/***?x=1');
    expect(redactPath('/healthz')).toBe('/healthz');
  });

  it('behavior: secret fields never reach the output', () => {
    let out = '';
    const sink = new Writable({ write(chunk, _e, cb) { out += String(chunk); cb(); } });
    const log = createLogger({ level: 'info', destination: sink });
    log.info({ authToken: 'tok-SECRET', webhook: { signingKey: 'whsec_SECRET' }, apiKey: 'k-SECRET' }, 'created');
    expect(out).toContain('created');
    expect(out).not.toContain('SECRET');
  });
});

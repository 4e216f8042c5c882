// Retryability is set where an error is created (STYLE.md §4): the defaults of each class.
import { describe, expect, it } from 'vitest';
import { InvalidParamsError, RateLimitedError, ServiceError, ServiceUnavailableError, StorageFullError, UpstreamHttpError, upstreamRpcError } from './errors.js';

describe('retryable', () => {
  it('default: false unless the creator says so', () => {
    expect(new ServiceError('x').retryable).toBe(false);
    expect(new InvalidParamsError('bad').retryable).toBe(false);
    expect(new ServiceError('x', { retryable: true }).retryable).toBe(true);
  });

  it('behavior: "try again later" errors are retryable', () => {
    expect(new RateLimitedError(1).retryable).toBe(true);
    expect(new ServiceUnavailableError('store down', 5).retryable).toBe(true);
  });

  it('args: an upstream HTTP status is retryable for 5xx, 408 and 429 only', () => {
    expect([500, 502, 503, 408, 429, 400, 401, 404].map((s) => new UpstreamHttpError('a', s).retryable)).toEqual([true, true, true, true, true, false, false, false]);
  });

  it('args: a node error is retryable only for codes that blame the node', () => {
    expect([-32603, -32005, -32000, -32602, 3, -32601, 12345].map((code) => upstreamRpcError('m', { code, message: 'x' }).retryable)).toEqual([true, true, false, false, false, false, false]);
    expect(upstreamRpcError('m', { code: 12345, message: 'custom', data: { a: 1 } })).toMatchObject({ code: 12345, message: 'custom', data: { a: 1 } });
  });
});

describe('StorageFullError', () => {
  it('behavior: SQLite\'s SQLITE_FULL becomes -32002 naming the file, HTTP 507, retryable; other errors pass unchanged', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const mapped = StorageFullError.from(full, 'chain.sqlite');
    expect(mapped).toBeInstanceOf(StorageFullError);
    expect((mapped as StorageFullError).toJSON()).toMatchInlineSnapshot(`
      {
        "code": -32002,
        "data": {
          "file": "chain.sqlite",
          "retryAfterSec": 5,
        },
        "message": "the disk holding the data dir is full: chain.sqlite cannot grow, so nothing was written; free space on it and send this again",
      }
    `);
    expect([(mapped as StorageFullError).httpStatus, (mapped as StorageFullError).retryable]).toEqual([507, true]);
    const other = Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' });
    expect(StorageFullError.from(other, 'chain.sqlite')).toBe(other);
  });
});

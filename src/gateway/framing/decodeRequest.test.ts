import { describe, expect, it } from 'vitest';
import { decodeBody, decodeItem } from './decodeRequest.js';

const opts = { maxBatchSize: 3 };

describe('decodeItem', () => {
  it('default: a request, a notification, ids of every allowed type', () => {
    expect(decodeItem({ jsonrpc: '2.0', id: 1, method: 'm', params: [1] })).toEqual({ ok: true, call: { id: 1, notification: false, method: 'm', params: [1] } });
    expect(decodeItem({ jsonrpc: '2.0', method: 'm' })).toEqual({ ok: true, call: { id: null, notification: true, method: 'm', params: undefined } });
    expect(decodeItem({ jsonrpc: '2.0', id: null, method: 'm' })).toMatchObject({ ok: true, call: { id: null, notification: false } });
    expect(decodeItem({ jsonrpc: '2.0', id: 'a', method: 'm', params: { x: 1 } })).toMatchObject({ ok: true, call: { id: 'a', params: { x: 1 } } });
  });

  it('error: each envelope problem is named, keeping a valid id', () => {
    const message = (v: unknown) => {
      const r = decodeItem(v);
      return r.ok ? 'ok' : [r.id, r.error.code, r.error.message];
    };
    expect(message(5)).toEqual([null, -32600, 'Invalid request: expected a request object, got a number']);
    expect(message([1])).toEqual([null, -32600, 'Invalid request: expected a request object, got an array']);
    expect(message({ jsonrpc: '2.0', id: { a: 1 }, method: 'm' })).toEqual([null, -32600, 'Invalid request: "id" must be a number, a string or null']);
    expect(message({ id: 4, method: 'm' })).toEqual([4, -32600, 'Invalid request: "jsonrpc" must be exactly "2.0"']);
    expect(message({ jsonrpc: '2.0', id: 4, method: 5 })).toEqual([4, -32600, 'Invalid request: "method" must be a non-empty string']);
    expect(message({ jsonrpc: '2.0', id: 4, method: '' })).toEqual([4, -32600, 'Invalid request: "method" must be a non-empty string']);
    expect(message({ jsonrpc: '2.0', id: 4, method: 'm', params: 'x' })).toEqual([4, -32600, 'Invalid request: "params" must be an array or an object']);
  });
});

describe('decodeBody', () => {
  it('default: single and batch bodies', () => {
    expect(decodeBody('{"jsonrpc":"2.0","id":1,"method":"m"}', opts)).toMatchObject({ batch: false, item: { ok: true } });
    const batch = decodeBody('[{"jsonrpc":"2.0","id":1,"method":"m"}, 7]', opts);
    expect(batch).toMatchObject({ batch: true, items: [{ ok: true }, { ok: false }] });
  });

  it('error: parse errors, scalars, empty and oversized batches', () => {
    const code = (body: string) => {
      try {
        decodeBody(body, opts);
        return 'ok';
      } catch (e) {
        const err = e as { code: number; httpStatus: number; message: string };
        return [err.code, err.httpStatus, err.message];
      }
    };
    expect(code('')).toEqual([-32700, 400, 'Parse error: invalid JSON (empty body)']);
    expect((code('{') as unknown[])[0]).toBe(-32700);
    expect(code('"x"')).toEqual([-32600, 400, 'Invalid request: expected a request object or a batch array, got a string']);
    expect(code('null')).toEqual([-32600, 400, 'Invalid request: expected a request object or a batch array, got null']);
    expect(code('[]')).toEqual([-32600, 400, 'Invalid request: empty batch']);
    expect(code('[1,2,3,4]')).toEqual([-32600, 413, 'Batch of 4 requests exceeds the limit of 3']);
  });

  it('error: nesting deeper than 64 levels is refused naming the limit, before JSON.parse', () => {
    const half = 5 * 512 * 1024;
    const deep = Buffer.from('['.repeat(half) + ']'.repeat(half));
    const started = performance.now();
    expect(() => decodeBody(deep, opts)).toThrow('Invalid request: JSON nested deeper than 64 levels (arrays and objects inside each other)');
    // JSON.parse of this body takes most of a second.
    expect(performance.now() - started).toBeLessThan(100);
    expect(decodeBody('[' + '['.repeat(63) + ']'.repeat(63) + ']', opts)).toMatchObject({ batch: true, items: [{ ok: false }] });
    expect(() => decodeBody('{"jsonrpc":"2.0","id":1,"method":"m","params":[[[]]]}', { ...opts, maxDepth: 3 })).toThrow(/deeper than 3 levels/);
  });

  it('error: a body of more than 100,000 values is refused from a scan, before JSON.parse', () => {
    const wide = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"m","params":[${Array.from({ length: 1_700_000 }, () => '[]').join(',')}]}`);
    const started = performance.now();
    expect(() => decodeBody(wide, opts)).toThrow('Request body holds more than 100000 JSON values (arrays, objects and separators), the limit');
    // JSON.parse of this body takes about half a second.
    expect(performance.now() - started).toBeLessThan(100);
    expect(decodeBody(`[${Array.from({ length: 3 }, () => '{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}').join(',')}]`, { ...opts, maxValues: 21 })).toMatchObject({ batch: true });
    expect(() => decodeBody(`[${Array.from({ length: 3 }, () => '{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}').join(',')}]`, { ...opts, maxValues: 20 })).toThrow(/more than 20 JSON values/);
  });

  it('behavior: an oversized batch is refused from a scan, before JSON.parse', () => {
    const wide = Buffer.from(`[${Array.from({ length: 40_000 }, () => '[]').join(',')}]`);
    const started = performance.now();
    expect(() => decodeBody(wide, opts)).toThrow('Batch of 40000 requests exceeds the limit of 3');
    expect(performance.now() - started).toBeLessThan(60);
  });
});

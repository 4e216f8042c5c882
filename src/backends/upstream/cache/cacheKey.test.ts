// Cache keys: canonical params (key order free), bounded length.
import { describe, expect, it } from 'vitest';
import { cacheKey, canonicalJson } from './cacheKey.js';

describe('cacheKey', () => {
  it('default: method and subject alone when there are no other params', () => {
    expect(cacheKey('trace_transaction', '0xab', [])).toBe('trace_transaction|0xab');
  });

  it('behavior: object key order does not change the key, values do', () => {
    const a = cacheKey('debug_traceTransaction', '0xab', [{ tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: false } }]);
    const b = cacheKey('debug_traceTransaction', '0xab', [{ tracerConfig: { withLog: false, onlyTopCall: true }, tracer: 'callTracer' }]);
    const c = cacheKey('debug_traceTransaction', '0xab', [{ tracer: 'callTracer', tracerConfig: { onlyTopCall: false, withLog: false } }]);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });

  it('behavior: long params are hashed, so keys stay short and still differ', () => {
    const big = (x: string) => cacheKey('eth_call', '0xab', [{ to: '0x01', data: `0x${x.repeat(10_000)}` }]);
    expect(big('aa').length).toBeLessThan(120);
    expect(big('aa')).not.toBe(big('bb'));
  });
});

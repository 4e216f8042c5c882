import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../errors.js';
import { parseParams } from './defineMethod.js';
import { debugSchema, parseGoDuration, tracerRequestOf } from './debug.js';

const hash = `0x${'11'.repeat(32)}`;

describe('debug trace options', () => {
  it('default: no tracer means the struct logger with its options', () => {
    const [, options] = parseParams('debug_traceTransaction', debugSchema.debug_traceTransaction, [hash, { disableStack: true, limit: 5 }]);
    expect(options).toEqual({ request: { tracer: 'structLogger', config: { disableStack: true, limit: 5 } }, timeoutMs: undefined });
  });

  it('args: a named tracer with its config and a timeout', () => {
    const [, options] = parseParams('debug_traceTransaction', debugSchema.debug_traceTransaction, [
      hash,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, timeout: '1m30s' },
    ]);
    expect(options).toEqual({ request: { tracer: 'prestateTracer', config: { diffMode: true } }, timeoutMs: 90_000 });
  });

  it('args: muxTracer validates each sub-tracer', () => {
    expect(tracerRequestOf('muxTracer', { callTracer: { onlyTopCall: true }, '4byteTracer': {} })).toEqual({
      tracer: 'muxTracer',
      config: { callTracer: { tracer: 'callTracer', config: { onlyTopCall: true } }, '4byteTracer': { tracer: '4byteTracer', config: {} } },
    });
    expect(tracerRequestOf('muxTracer', { muxTracer: {} })).toBe('muxTracer cannot be nested');
  });

  it('error: unknown tracers, bad configs and durations are invalid params naming the argument', () => {
    for (const options of [{ tracer: 'fooTracer' }, { tracer: 'callTracer', tracerConfig: { withLog: 1 } }, { tracer: 'callTracer', timeout: '5' }]) {
      expect(() => parseParams('debug_traceTransaction', debugSchema.debug_traceTransaction, [hash, options])).toThrow(InvalidParamsError);
    }
    expect(() => parseParams('debug_traceTransaction', debugSchema.debug_traceTransaction, [hash, { tracer: 'fooTracer' }])).toThrow(
      'debug_traceTransaction: invalid argument 1 (options): unknown tracer "fooTracer" (supported: callTracer, flatCallTracer, prestateTracer, 4byteTracer, noopTracer, muxTracer)',
    );
  });

  it('behavior: Go durations', () => {
    expect(parseGoDuration('5s')).toBe(5000);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('1h2m')).toBe(3_720_000);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(parseGoDuration('5')).toBeUndefined();
    expect(parseGoDuration('s')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { encodeBatch, encodeError, encodeResult } from './encodeResponse.js';
import { InvalidParamsError, MethodNotFoundError } from '../../rpc/errors.js';
import { RawJson, toRawJson } from '../../rpc/rawJson.js';

describe('encode', () => {
  it('default: results, errors and batches', () => {
    expect(encodeResult(1, '0x1')).toBe('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    expect(encodeResult('a', undefined)).toBe('{"jsonrpc":"2.0","id":"a","result":null}');
    expect(encodeError(null, new MethodNotFoundError('x'))).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Unsupported method: x"}}');
    expect(encodeBatch(['1', '2'])).toBe('[1,2]');
  });

  it('behavior: RawJson results are spliced verbatim and serialise like their value elsewhere', () => {
    expect(encodeResult(7, new RawJson('[{"a":1}, 2]'))).toBe('{"jsonrpc":"2.0","id":7,"result":[{"a":1}, 2]}');
    const value = { calls: [{ to: '0x01', gas: '0x5208' }], output: '0x' };
    expect(encodeResult(1, toRawJson(value))).toBe(encodeResult(1, value));
    expect(JSON.stringify({ result: toRawJson(value) })).toBe(JSON.stringify({ result: value }));
  });

  it('behavior: an id JSON cannot carry becomes null', () => {
    expect(encodeResult(Infinity, 1)).toBe('{"jsonrpc":"2.0","id":null,"result":1}');
  });

  it('error: an unserialisable result throws; unserialisable error data is dropped', () => {
    expect(() => encodeResult(1, 1n)).toThrow();
    expect(encodeError(1, new InvalidParamsError('bad', { data: 1n }))).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}');
  });
});

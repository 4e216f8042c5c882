// Which param names a block, write detection, and tag pinning (pure functions).
import { describe, expect, it } from 'vitest';
import { blockRefsOf, isWriteMethod, namesPinnableTag, pinBlockTags } from './blockParams.js';

const pins = { latest: 100n, safe: 90n, finalized: 64n };

describe('block params', () => {
  it('default: pins latest/safe/finalized to numbers in a copy, leaving the caller\'s params alone', () => {
    const params = [{ to: '0x00' }, 'latest'];
    expect(pinBlockTags('eth_call', params, pins)).toEqual([{ to: '0x00' }, '0x64']);
    expect(params[1]).toBe('latest');
    expect(pinBlockTags('eth_getStorageAt', ['0xa', '0x0', 'safe'], pins)).toEqual(['0xa', '0x0', '0x5a']);
    expect(pinBlockTags('eth_getBlockByNumber', ['finalized', false], pins)).toEqual(['0x40', false]);
    expect(pinBlockTags('trace_call', [{}, ['trace'], 'latest'], pins)).toEqual([{}, ['trace'], '0x64']);
    expect(pinBlockTags('eth_getLogs', [{ fromBlock: 'finalized', toBlock: 'latest', address: '0xa' }], pins)).toEqual([{ fromBlock: '0x40', toBlock: '0x64', address: '0xa' }]);
  });

  it('behavior: other tags, explicit blocks, hashes, absent params and unknown pins stay as they are', () => {
    for (const p of [['0xa', 'pending'], ['0xa', 'earliest'], ['0xa', '0x5'], ['0xa']]) expect(pinBlockTags('eth_getBalance', p, pins)).toBe(p);
    expect(pinBlockTags('eth_getBalance', ['0xa', 'latest'], {})).toEqual(['0xa', 'latest']);
    expect(pinBlockTags('eth_getTransactionByHash', ['0xabc'], pins)).toEqual(['0xabc']);
    expect(namesPinnableTag('eth_getBalance', ['0xa', 'pending'])).toBe(false);
    expect(namesPinnableTag('eth_getLogs', [{ toBlock: 'safe' }])).toBe(true);
  });

  it('default: finds the blocks a call names and whether it reads state there', () => {
    expect(blockRefsOf('eth_getBalance', ['0xa', '0x10'])).toEqual([{ kind: 'number', number: 16n, state: true }]);
    expect(blockRefsOf('eth_getBlockByNumber', ['0x10', false])).toEqual([{ kind: 'number', number: 16n, state: false }]);
    expect(blockRefsOf('eth_call', [{}, { blockHash: `0x${'1'.repeat(64)}` }])).toEqual([{ kind: 'hash', state: true }]);
    expect(blockRefsOf('eth_call', [{}, { blockNumber: '0x2' }])).toEqual([{ kind: 'number', number: 2n, state: true }]);
    expect(blockRefsOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])).toEqual([{ kind: 'number', number: 1n, state: false }, { kind: 'tag', tag: 'latest', state: false }]);
    expect(blockRefsOf('eth_getTransactionReceipt', ['0xabc'])).toEqual([]);
  });

  it('default: writes are the send, sign and personal methods', () => {
    for (const m of ['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sign', 'eth_signTypedData_v4', 'personal_sign']) expect(isWriteMethod(m)).toBe(true);
    for (const m of ['eth_call', 'eth_getBalance', 'trace_transaction']) expect(isWriteMethod(m)).toBe(false);
  });
});

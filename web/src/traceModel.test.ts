// The explorer's trace model on small hand-made inputs in each family's shape: Parity entries
// nested by traceAddress, visible rows for an expanded set, state-diff rows of both diff formats.
import { describe, expect, it } from 'vitest';
import { allIds, countFrames, formatValue, idsToDepth, parityStateDiffRows, parityToFrame, prestateDiffRows, visibleRows, type Frame } from './traceModel';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C = '0x00000000000000000000000000000000000000cc';

describe('traceModel', () => {
  it('default: Parity entries become one tree by traceAddress, with call type, gas used, output and errors', () => {
    const root = parityToFrame([
      { type: 'call', action: { callType: 'call', from: A, to: B, value: '0x0', gas: '0x100', input: '0xa9059cbb' }, result: { gasUsed: '0x50', output: '0x01' }, traceAddress: [] },
      { type: 'call', action: { callType: 'staticcall', from: B, to: C, value: '0x0', gas: '0x80', input: '0x' }, result: { gasUsed: '0x10', output: '0x' }, traceAddress: [0] },
      { type: 'create', action: { from: B, value: '0x1', gas: '0x40', init: '0x60' }, result: { gasUsed: '0x20', address: C, code: '0x00' }, traceAddress: [1] },
      { type: 'call', action: { callType: 'delegatecall', from: C, to: A, gas: '0x10', input: '0x' }, result: null, error: 'Reverted', traceAddress: [0, 0] },
    ])!;
    expect(root).toMatchObject({ type: 'CALL', from: A, to: B, gasUsed: '0x50', output: '0x01' });
    expect(root.calls!.map((c) => [c.type, c.to])).toEqual([['STATICCALL', C], ['CREATE', C]]);
    expect(root.calls![0]!.calls![0]).toMatchObject({ type: 'DELEGATECALL', error: 'Reverted' });
    expect(countFrames(root)).toBe(4);
  });

  it('behavior: rows show a frame\'s logs, then its calls, only under expanded frames; ids are child-index paths', () => {
    const root: Frame = { type: 'CALL', from: A, logs: [{ address: B, topics: [], data: '0x' }], calls: [{ type: 'CALL', from: B, calls: [{ type: 'CALL', from: C }] }, { type: 'CREATE', from: B }] };
    expect(visibleRows(root, new Set()).map((r) => r.id)).toEqual(['0']);
    expect(visibleRows(root, idsToDepth(root, 1)).map((r) => r.id)).toEqual(['0', '0/log0', '0.0', '0.1']);
    expect(visibleRows(root, allIds(root)).map((r) => `${r.id}@${r.depth}`)).toEqual(['0@0', '0/log0@1', '0.0@1', '0.0.0@2', '0.1@1']);
  });

  it('behavior: a 10,000-deep chain of frames is counted and flattened without recursion', () => {
    let root: Frame = { type: 'CALL', from: A };
    for (let i = 0; i < 10_000; i++) root = { type: 'CALL', from: A, calls: [root] };
    expect(countFrames(root)).toBe(10_001);
    expect(visibleRows(root, allIds(root))).toHaveLength(10_001);
  });

  it('default: state diffs of both formats give account, field, before and after; a slot missing from post was cleared', () => {
    expect(prestateDiffRows({ pre: { [A]: { balance: '0x10', nonce: 1, storage: { '0x01': '0x05', '0x02': '0x07' } } }, post: { [A]: { balance: '0x08', nonce: 2, storage: { '0x01': '0x06' } } } })).toEqual([
      { account: A, field: 'balance', before: '0x10', after: '0x08' },
      { account: A, field: 'nonce', before: '1', after: '2' },
      { account: A, field: 'storage 0x01', before: '0x05', after: '0x06' },
      { account: A, field: 'storage 0x02', before: '0x07', after: '0x0 (cleared)' },
    ]);
    expect(parityStateDiffRows({ [B]: { balance: { '*': { from: '0x1', to: '0x2' } }, nonce: '=', code: { '+': '0x60' }, storage: { '0x03': { '-': '0x09' } } } })).toEqual([
      { account: B, field: 'balance', before: '0x1', after: '0x2' },
      { account: B, field: 'code', before: '—', after: '0x60' },
      { account: B, field: 'storage 0x03', before: '0x09', after: '—' },
    ]);
  });

  it('args: values in wei are shown in ETH, zero as nothing', () => {
    expect(formatValue('0xde0b6b3a7640000')).toBe('1 ETH');
    expect(formatValue('0x1')).toBe('0.000000000000000001 ETH');
    expect(formatValue('0x0')).toBe('');
  });
});

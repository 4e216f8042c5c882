import { describe, expect, it } from 'vitest';
import { isTraceAnswerShape } from './traceAnswerShape.js';

const A = '0x00000000000000000000000000000000000000aa';
const frame = (calls?: unknown[]) => ({ type: 'CALL', from: A, to: A, gas: '0x0', gasUsed: '0x5208', input: '0x', value: '0x1', ...(calls ? { calls } : {}) });

describe('isTraceAnswerShape', () => {
  it('default: the built-in tracers\' real shapes pass', () => {
    expect(isTraceAnswerShape(frame([frame(), frame([frame()])]), { tracer: 'callTracer' })).toBe(true);
    expect(isTraceAnswerShape({ gas: 21000, failed: false, returnValue: '', structLogs: [] }, {})).toBe(true);
    expect(isTraceAnswerShape({ [A]: { balance: '0x1' } }, { tracer: 'prestateTracer' })).toBe(true);
    expect(isTraceAnswerShape({ pre: { [A]: {} }, post: {} }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })).toBe(true);
    expect(isTraceAnswerShape([{ type: 'call', action: {} }], { tracer: 'flatCallTracer' })).toBe(true);
    expect(isTraceAnswerShape({ '0x12345678-0': 1 }, { tracer: '4byteTracer' })).toBe(true);
    expect(isTraceAnswerShape({}, { tracer: 'noopTracer' })).toBe(true);
  });

  it('error: wrong types anywhere, unknown tracers and deep hostile nesting are refused without recursion', () => {
    expect(isTraceAnswerShape({ type: 'CALL' }, { tracer: 'callTracer' })).toBe(false);
    expect(isTraceAnswerShape(frame([frame(), { ...frame(), gasUsed: 5 }]), { tracer: 'callTracer' })).toBe(false);
    expect(isTraceAnswerShape(frame(['x' as unknown]), { tracer: 'callTracer' })).toBe(false);
    expect(isTraceAnswerShape('0x', { tracer: 'callTracer' })).toBe(false);
    expect(isTraceAnswerShape({ gas: '21000', failed: false, returnValue: '', structLogs: [] }, undefined)).toBe(false);
    expect(isTraceAnswerShape({ notAnAddress: {} }, { tracer: 'prestateTracer' })).toBe(false);
    expect(isTraceAnswerShape({ a: 1 }, { tracer: 'myJsTracer' })).toBe(false);
    let deep: Record<string, unknown> = frame();
    for (let i = 0; i < 200_000; i++) deep = frame([deep]);
    expect(isTraceAnswerShape(deep, { tracer: 'callTracer' })).toBe(true);
    expect(isTraceAnswerShape(frame([deep, { bad: true }]), { tracer: 'callTracer' })).toBe(false);
  });
});

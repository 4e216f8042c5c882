import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from './metricsRegistry.js';

describe('createMetricsRegistry', () => {
  it('default: renders counters, histograms and gauges in the text format', () => {
    const r = createMetricsRegistry();
    const c = r.counter('x_total', 'Things.', ['method', 'code']);
    c.inc(['eth_call', '0']);
    c.inc(['eth_call', '0'], 2);
    c.inc(['we"ird\\\n', '1']);
    const h = r.histogram('d_seconds', 'Durations.', ['m'], [0.1, 1]);
    h.observe(['a'], 0.05);
    h.observe(['a'], 0.5);
    h.observe(['a'], 5);
    r.gauge('g_bytes', 'Bytes.', () => [{ value: 42 }]);
    expect(r.render()).toBe(
      [
        '# HELP x_total Things.',
        '# TYPE x_total counter',
        'x_total{method="eth_call",code="0"} 3',
        'x_total{method="we\\"ird\\\\\\n",code="1"} 1',
        '# HELP d_seconds Durations.',
        '# TYPE d_seconds histogram',
        'd_seconds_bucket{m="a",le="0.1"} 1',
        'd_seconds_bucket{m="a",le="1"} 2',
        'd_seconds_bucket{m="a",le="+Inf"} 3',
        'd_seconds_sum{m="a"} 5.55',
        'd_seconds_count{m="a"} 3',
        '# HELP g_bytes Bytes.',
        '# TYPE g_bytes gauge',
        'g_bytes 42',
        '',
      ].join('\n'),
    );
  });

  it('error: refuses bad and duplicate names', () => {
    const r = createMetricsRegistry();
    r.counter('ok_total', 'x', []);
    expect(() => r.counter('ok_total', 'x', [])).toThrow(/twice/);
    expect(() => r.counter('bad-name', 'x', [])).toThrow(/invalid/);
  });
});

import { describe, expect, it } from 'vitest';
import { createCostTable, DEFAULT_METHOD_COST } from './computeUnits.js';

describe('createCostTable', () => {
  it('default: costs from the table, patterns and the default', () => {
    const c = createCostTable();
    expect([c.cost('eth_blockNumber'), c.cost('trace_transaction'), c.cost('trace_replayBlockTransactions'), c.cost('eth_unknown')]).toEqual([
      10, 40, 80, DEFAULT_METHOD_COST,
    ]);
    expect(c.lists('eth_chainId')).toBe(true);
    expect(c.cost('eth_chainId')).toBe(0);
    expect(c.lists('eth_unknown')).toBe(false);
  });

  it('args: overrides and default cost', () => {
    const c = createCostTable({ costs: { eth_blockNumber: 1 }, defaultCost: 5 });
    expect([c.cost('eth_blockNumber'), c.cost('x_y')]).toEqual([1, 5]);
    expect(() => createCostTable({ costs: { x: -1 } })).toThrow(/x/);
  });

  it('default: a body is free up to 16 KiB, then 1 CU per started KiB', () => {
    const c = createCostTable();
    expect([c.bodyCost(0), c.bodyCost(16 * 1024), c.bodyCost(16 * 1024 + 1), c.bodyCost(17 * 1024), c.bodyCost(5 * 1024 * 1024)]).toEqual([0, 0, 1, 1, 5104]);
  });

  it('args: body allowance and rate', () => {
    const c = createCostTable({ bodyFreeBytes: 0, bodyCuPerKiB: 10 });
    expect([c.bodyCost(0), c.bodyCost(1), c.bodyCost(2048)]).toEqual([0, 1, 20]);
    expect(createCostTable({ bodyCuPerKiB: 0 }).bodyCost(1e9)).toBe(0);
    expect(() => createCostTable({ bodyCuPerKiB: -1 })).toThrow(/bodyCuPerKiB/);
  });

  it('default: 1000 JSON values are free, then 1 CU per started 50', () => {
    const c = createCostTable();
    expect([c.valuesCost(0), c.valuesCost(1000), c.valuesCost(1001), c.valuesCost(1050), c.valuesCost(1051), c.valuesCost(100_000)]).toEqual([0, 0, 1, 1, 2, 1980]);
    expect(createCostTable({ bodyFreeValues: 0, bodyValuesPerCu: 10 }).valuesCost(25)).toBe(3);
    expect(() => createCostTable({ bodyValuesPerCu: 0 })).toThrow(/bodyValuesPerCu/);
  });
});

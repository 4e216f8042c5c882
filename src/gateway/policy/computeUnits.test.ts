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
});

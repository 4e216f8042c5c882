// The filter registry on its own, fed by hand: default bounds, a filter that falls behind, removed
// logs newest block first, criteria matching, and blocks beyond the remembered window.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_FILTERS_PER_KEY, type FeedBlock, createFilterRegistry, logMatches } from './filterRegistry.js';

const bytes = (n: number, length = 32) => new Uint8Array(length).fill(n);

function block(n: number, logCount = 1): FeedBlock {
  return {
    hash: bytes(n),
    number: BigInt(n),
    logs: Array.from({ length: logCount }, (_, i) => ({
      address: bytes(0xaa, 20),
      topics: [bytes(0x10 + i)],
      data: new Uint8Array(),
      blockNumber: BigInt(n),
      blockHash: bytes(n),
      blockTimestamp: 1000n + BigInt(n),
      transactionHash: bytes(0x80 + n),
      transactionIndex: 0,
      logIndex: i,
    })),
  };
}

describe('filter registry', () => {
  it('default: one key may hold 500 filters; the 501st is a -32005 refusal naming the limit, and another key still installs', () => {
    const registry = createFilterRegistry({ clock: () => 0 });
    for (let i = 0; i < DEFAULT_MAX_FILTERS_PER_KEY; i++) registry.newBlockFilter('k');
    expect(() => registry.newBlockFilter('k')).toThrow(expect.objectContaining({ code: -32005, message: expect.stringContaining('limit 500') }));
    expect(registry.newPendingTransactionFilter('other')).toMatch(/^0x[0-9a-f]{32}$/);
    expect(registry.size()).toBe(501);
  });

  it('error: a filter that queues more than its bound between polls is dropped with -32005 on its next poll', () => {
    const registry = createFilterRegistry({ clock: () => 0, maxQueued: 3 });
    const id = registry.newBlockFilter('k');
    for (let n = 1; n <= 4; n++) registry.onBlocks([block(n, 0)], []);
    expect(() => registry.changes(id, 'k')).toThrow(expect.objectContaining({ code: -32005, message: expect.stringContaining('fell behind') }));
    expect(() => registry.changes(id, 'k')).toThrow('filter not found');
  });

  it('error: a log filter whose historic logs exceed what a filter may hold is refused at once, not installed', () => {
    const registry = createFilterRegistry({ clock: () => 0, maxQueued: 3 });
    expect(() => registry.newLogFilter({ topics: [] }, 'k', block(1, 4).logs)).toThrow(expect.objectContaining({ code: -32005, message: expect.stringContaining('reaches back over 4 logs') }));
    expect(registry.size()).toBe(0);
    expect(registry.newLogFilter({ topics: [] }, 'k', block(1, 3).logs)).toMatch(/^0x/);
  });

  it('error: past the bound of changes all filters together may hold, the filter that would pass it is dropped; polling frees room', () => {
    const registry = createFilterRegistry({ clock: () => 0, maxQueuedTotal: 5 });
    const polled = registry.newBlockFilter('k');
    const idle = registry.newBlockFilter('k');
    registry.onBlocks([block(1, 0), block(2, 0)], []);
    registry.changes(polled, 'k');
    registry.onBlocks([block(3, 0), block(4, 0)], []);
    expect(() => registry.changes(idle, 'k')).toThrow(expect.objectContaining({ code: -32005 }));
    const changes = registry.changes(polled, 'k');
    expect(changes.kind === 'hashes' && changes.hashes.length).toBe(2);
  });

  it('behavior: removed blocks report their matching logs removed, newest block first, before the replacement block\'s logs', () => {
    const registry = createFilterRegistry({ clock: () => 0 });
    registry.onBlocks([block(1), block(2)], []);
    const id = registry.newLogFilter({ topics: [[bytes(0x10)]] }, 'k');
    registry.onBlocks([block(3, 2)], []);
    registry.onBlocks([block(4)], [bytes(3), bytes(2)]);
    const changes = registry.changes(id, 'k');
    expect(changes.kind === 'logs' && changes.logs.map((l) => [Number(l.blockNumber), l.removed, l.logIndex])).toEqual([
      [3, false, 0],
      [3, true, 0],
      [2, true, 0],
      [4, false, 0],
    ]);
  });

  it('behavior: blocks removed beyond the remembered window report no removed logs (bounded memory)', () => {
    const registry = createFilterRegistry({ clock: () => 0, recentBlocks: 2 });
    const id = registry.newLogFilter({ topics: [] }, 'k');
    registry.onBlocks([block(1), block(2), block(3)], []);
    registry.changes(id, 'k');
    registry.onBlocks([], [bytes(3), bytes(2), bytes(1)]);
    const changes = registry.changes(id, 'k');
    expect(changes.kind === 'logs' && changes.logs.map((l) => Number(l.blockNumber))).toEqual([3, 2]);
  });

  it('args: criteria match bounds, addresses and topic positions like geth (null = any, arrays = any of)', () => {
    const log = block(5).logs[0]!;
    expect(logMatches(log, { topics: [] })).toBe(true);
    expect(logMatches(log, { fromBlock: 6n, topics: [] })).toBe(false);
    expect(logMatches(log, { toBlock: 4n, topics: [] })).toBe(false);
    expect(logMatches(log, { addresses: [bytes(0xbb, 20)], topics: [] })).toBe(false);
    expect(logMatches(log, { addresses: [bytes(0xbb, 20), bytes(0xaa, 20)], topics: [null] })).toBe(true);
    expect(logMatches(log, { topics: [[bytes(1), bytes(0x10)]] })).toBe(true);
    expect(logMatches(log, { topics: [null, [bytes(1)]] })).toBe(false);
  });
});

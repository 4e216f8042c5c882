import { describe, expect, it } from 'vitest';
import type { FeedBlock } from './filterRegistry.js';
import { type SubscriptionEvent, createSubscriptionHub } from './subscriptionHub.js';

const bytes = (n: number, len = 32) => new Uint8Array(len).fill(n);

function block(n: number, logAddress = 0xaa): FeedBlock {
  return {
    hash: bytes(n),
    number: BigInt(n),
    header: { number: `0x${n.toString(16)}` },
    logs: [{ address: bytes(logAddress, 20), topics: [bytes(1)], data: new Uint8Array(), blockNumber: BigInt(n), blockHash: bytes(n), blockTimestamp: 0n, transactionHash: bytes(100 + n), transactionIndex: 0, logIndex: 0 }],
  };
}

describe('subscriptionHub', () => {
  it('default: heads, matching logs and pending hashes reach their listeners only', () => {
    const hub = createSubscriptionHub();
    const heads: SubscriptionEvent[] = [];
    const logs: SubscriptionEvent[] = [];
    const other: SubscriptionEvent[] = [];
    const pending: SubscriptionEvent[] = [];
    hub.subscribe({ kind: 'newHeads' }, (e) => heads.push(e));
    hub.subscribe({ kind: 'logs', criteria: { addresses: [bytes(0xaa, 20)], topics: [[bytes(1)]] } }, (e) => logs.push(e));
    hub.subscribe({ kind: 'logs', criteria: { addresses: [bytes(0xbb, 20)], topics: [] } }, (e) => other.push(e));
    hub.subscribe({ kind: 'newPendingTransactions' }, (e) => pending.push(e));
    hub.onBlocks([block(1)], []);
    hub.onPendingTransaction(bytes(7));
    expect(heads).toEqual([{ kind: 'head', header: { number: '0x1' }, number: 1n }]);
    expect(logs).toHaveLength(1);
    expect(other).toEqual([]);
    expect(pending).toEqual([{ kind: 'pending', hash: bytes(7) }]);
  });

  it('behavior: logs of removed blocks come again with removed: true, then the new blocks', () => {
    const hub = createSubscriptionHub();
    const seen: SubscriptionEvent[] = [];
    hub.subscribe({ kind: 'logs', criteria: { topics: [] } }, (e) => seen.push(e));
    hub.onBlocks([block(1)], []);
    hub.onBlocks([block(2)], []);
    hub.onBlocks([block(3)], [bytes(2)]);
    const flags = seen.map((e) => (e.kind === 'log' ? [Number(e.log.blockNumber), e.log.removed] : undefined));
    expect(flags).toEqual([[1, false], [2, false], [2, true], [3, false]]);
  });

  it('error: bounded in total; a removed listener gets nothing and a throwing one does not stop others', () => {
    const hub = createSubscriptionHub({ maxListeners: 2 });
    const seen: SubscriptionEvent[] = [];
    const stop = hub.subscribe({ kind: 'newHeads' }, () => {
      throw new Error('boom');
    });
    hub.subscribe({ kind: 'newHeads' }, (e) => seen.push(e));
    expect(() => hub.subscribe({ kind: 'newHeads' }, () => undefined)).toThrow(/too many subscriptions on this node \(limit 2\)/);
    hub.onBlocks([block(1)], []);
    expect(seen).toHaveLength(1);
    stop();
    expect(hub.size()).toBe(1);
    expect(hub.isListening()).toBe(true);
  });
});

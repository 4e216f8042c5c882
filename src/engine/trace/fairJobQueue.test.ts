// The per-key fair queue: keys take turns, each holds at most its share (never less than the
// minimum), a full queue makes room for a key under its share by pushing out the largest key's
// newest item, and items leave on request.
import { describe, expect, it } from 'vitest';
import { createFairJobQueue } from './fairJobQueue.js';

const drainOrder = (queue: { shift(): string | undefined }): string[] => {
  const out: string[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
  return out;
};

describe('createFairJobQueue', () => {
  it('default: one key alone is served first in, first out and may fill the queue', () => {
    const queue = createFairJobQueue<string>({ limit: 4 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) expect(queue.push('A', item)).toEqual({ ok: true });
    expect(queue.push('A', 'a5')).toEqual({ ok: false, reason: 'full', share: 4 });
    expect(queue.size).toBe(4);
    expect(drainOrder(queue)).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('behavior: keys take turns whatever order their items came in', () => {
    const queue = createFairJobQueue<string>({ limit: 100 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('A', item);
    queue.push('B', 'b1');
    queue.push('C', 'c1');
    queue.push('B', 'b2');
    expect(queue.keys).toBe(3);
    expect(drainOrder(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.keys).toBe(0);
  });

  it('behavior: a key served just before its queue emptied waits behind a key not served since', () => {
    const queue = createFairJobQueue<string>({ limit: 100 });
    queue.push('A', 'a1');
    expect(queue.shift()).toBe('a1');
    queue.push('A', 'a2');
    expect(queue.shift()).toBe('a2');
    // A was served twice with nothing else waiting; B, arriving after A's backlog, goes first.
    for (const item of ['a3', 'a4']) queue.push('A', item);
    queue.push('B', 'b1');
    queue.push('C', 'c1');
    expect(drainOrder(queue)).toEqual(['b1', 'c1', 'a3', 'a4']);
  });

  it('error: a key beyond its share (limit / keys waiting, at least minShare) is refused; others are admitted', () => {
    const queue = createFairJobQueue<string>({ limit: 12, minShare: 2 });
    queue.push('B', 'b1');
    // Two keys: A's share is 6.
    for (let i = 0; i < 6; i++) expect(queue.push('A', `a${i}`).ok).toBe(true);
    expect(queue.push('A', 'a6')).toEqual({ ok: false, reason: 'share', share: 6 });
    expect(queue.push('B', 'b2').ok).toBe(true);
    // A third key makes every share 4; A keeps what it holds but may add nothing.
    expect(queue.push('C', 'c1').ok).toBe(true);
    expect(queue.push('A', 'a7')).toEqual({ ok: false, reason: 'share', share: 4 });
  });

  it('behavior: when full, a key under its share takes the place of the largest key newest item', () => {
    const queue = createFairJobQueue<string>({ limit: 4, minShare: 1 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('A', item);
    expect(queue.push('B', 'b1')).toEqual({ ok: true, pushedOut: 'a4' });
    expect(queue.push('B', 'b2')).toEqual({ ok: true, pushedOut: 'a3' });
    // Now A and B hold 2 each, their share: both are refused.
    expect(queue.push('B', 'b3')).toEqual({ ok: false, reason: 'share', share: 2 });
    expect(queue.push('A', 'a5')).toEqual({ ok: false, reason: 'share', share: 2 });
    // More keys make the shares 1: each newcomer takes a place of a key holding two.
    expect(queue.push('C', 'c1')).toEqual({ ok: true, pushedOut: 'a2' });
    expect(queue.push('D', 'd1')).toEqual({ ok: true, pushedOut: 'b2' });
    // Nobody holds more than one: the queue is simply full.
    expect(queue.push('E', 'e1')).toEqual({ ok: false, reason: 'full', share: 1 });
    expect(drainOrder(queue)).toEqual(['a1', 'b1', 'c1', 'd1']);
  });

  it('behavior: remove takes a waiting item out; drain empties every queue', () => {
    const queue = createFairJobQueue<string>({ limit: 10 });
    queue.push('A', 'a1');
    queue.push('A', 'a2');
    queue.push('B', 'b1');
    expect(queue.remove('A', 'a1')).toBe(true);
    expect(queue.remove('A', 'a1')).toBe(false);
    expect(queue.remove('B', 'b1')).toBe(true);
    expect(queue).toMatchObject({ size: 1, keys: 1 });
    expect(queue.drain()).toEqual(['a2']);
    expect(queue).toMatchObject({ size: 0, keys: 0 });
    expect(queue.shift()).toBeUndefined();
  });
});

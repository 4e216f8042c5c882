// Health scores with an injected clock: graduated cool-downs, never permanent, cleared by success.
import { describe, expect, it } from 'vitest';
import { createUpstreamHealth } from './upstreamHealth.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('upstream health', () => {
  it('default: each failure in a row doubles the cool-down, capped, and it always ends', () => {
    const c = clock();
    const h = createUpstreamHealth({ now: c.now, baseCooldownMs: 100, maxCooldownMs: 1_000 });
    const cooldowns: number[] = [];
    for (let i = 0; i < 6; i++) {
      h.recordFailure('boom');
      cooldowns.push(h.snapshot().coolingUntilMs - c.now());
      expect(h.isCooling()).toBe(true);
      c.advance(cooldowns[i]!);
      expect(h.isCooling()).toBe(false);
    }
    expect(cooldowns).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    h.recordSuccess(10);
    h.recordFailure('again');
    expect(h.snapshot().coolingUntilMs - c.now()).toBe(100);
  });

  it('behavior: a head poll ends a cool-down from connection failures, not one from bad answers', () => {
    const c = clock();
    const down = createUpstreamHealth({ now: c.now });
    down.recordFailure('refused', 'connection');
    down.recordFailure('refused', 'connection');
    down.recordAlive();
    expect(down.isCooling()).toBe(false);
    const liar = createUpstreamHealth({ now: c.now });
    liar.recordFailure('garbage', 'answer');
    liar.recordAlive();
    expect(liar.isCooling()).toBe(true);
    liar.penalize(5_000, 'forked');
    c.advance(5_000);
    expect(liar.isCooling()).toBe(false);
  });

  it('behavior: slower and failing upstreams get a smaller preference', () => {
    const fast = createUpstreamHealth();
    const slow = createUpstreamHealth();
    const flaky = createUpstreamHealth();
    for (let i = 0; i < 10; i++) {
      fast.recordSuccess(5);
      slow.recordSuccess(300);
      flaky.recordSuccess(5);
    }
    flaky.recordFailure('x');
    expect(fast.preference()).toBeGreaterThan(slow.preference() * 3);
    expect(fast.preference()).toBeGreaterThan(flaky.preference());
    expect(slow.snapshot()).toMatchObject({ requests: 10, failures: 0 });
  });
});

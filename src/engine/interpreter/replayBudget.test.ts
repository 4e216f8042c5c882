import { describe, expect, it } from 'vitest';
import { createStepBudget } from '../record/stepBudget.js';
import { createReplayBudget } from './replayBudget.js';

describe('createReplayBudget', () => {
  it('behavior: a restarted run is charged only past what earlier runs charged', () => {
    const job = createStepBudget({ maxSteps: 10, maxBytes: 1000 });
    const budget = createReplayBudget(job);
    expect(budget.charge(0, 400)).toBeUndefined();
    budget.restart();
    // The same 400 bytes again, then 500 new ones: 900 in all, under the cap.
    expect(budget.charge(0, 400)).toBeUndefined();
    expect(budget.charge(0, 500)).toBeUndefined();
    budget.restart();
    expect(budget.charge(0, 900)).toBeUndefined();
    // 200 past the furthest run: 1,100 > 1,000.
    expect(budget.charge(0, 200)).toBe('bytes');
  });

  it('error: without restarts it charges like the job budget itself', () => {
    const budget = createReplayBudget(createStepBudget({ maxSteps: 10, maxBytes: 1000 }));
    expect(budget.charge(0, 600)).toBeUndefined();
    expect(budget.charge(0, 600)).toBe('bytes');
  });
});

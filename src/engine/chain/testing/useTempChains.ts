// For test files: temporary chains closed and deleted after each test (kept apart from tempChain.ts,
// which benches and scripts import outside vitest).
import { afterEach } from 'vitest';
import type { DevChainOptions } from '../chainConfig.js';
import { type TempChain, openTempChain } from './tempChain.js';

/** An opener of temporary chains that are closed and deleted after each test. */
export function useTempChains(): (options?: Partial<DevChainOptions>) => Promise<TempChain> {
  const temps: TempChain[] = [];
  afterEach(async () => {
    for (const t of temps.splice(0)) await t.dispose();
  });
  return async (options = {}) => {
    const t = await openTempChain(options);
    temps.push(t);
    return t;
  };
}

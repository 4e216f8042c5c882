// Counts requests and compute units per key, UTC day and method in memory and writes them to the
// store in batches (every few seconds and on close), together with each key's last-used time.
import type { Logger } from 'pino';
import type { ApiKeyRepository, ApiKeyUsageDelta } from '../../store/types.js';
import type { Clock } from '../clock.js';

export interface UsageRecorderOptions {
  repo: ApiKeyRepository;
  clock: Clock;
  logger: Logger;
  /** How often counts and last-used times are written; also bounds how stale last-used is. */
  flushIntervalMs?: number;
}

export interface UsageRecorder {
  /** Counts one request of `method` (or `requests` of them: 0 for a charge that is not a call, such as a body's size). */
  record(keyId: string, method: string, computeUnits: number, requests?: number): void;
  /** Writes everything counted so far. Safe to call concurrently. */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
}

export const DEFAULT_USAGE_FLUSH_MS = 5_000;
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC time. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function createUsageRecorder(options: UsageRecorderOptions): UsageRecorder {
  // Rows by key id, day and method: the per-request lookup builds no string.
  let pending = new Map<string, Map<string, Map<string, ApiKeyUsageDelta>>>();
  let lastUsed = new Map<string, number>();
  let day = '';
  let dayEndsAt = 0;
  let flushing: Promise<void> = Promise.resolve();

  const currentDay = (now: number) => {
    if (now >= dayEndsAt || now < dayEndsAt - DAY_MS) {
      day = utcDay(now);
      dayEndsAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    }
    return day;
  };

  const writeOnce = async () => {
    if (pending.size === 0 && lastUsed.size === 0) return;
    const deltas = [...pending.values()].flatMap((days) => [...days.values()].flatMap((rows) => [...rows.values()]));
    const used = [...lastUsed].map(([id, atMs]) => ({ id, atMs }));
    pending = new Map();
    lastUsed = new Map();
    try {
      await options.repo.addUsage(deltas);
      await options.repo.markUsed(used);
    } catch (error) {
      options.logger.warn({ err: error, deltas: deltas.length }, 'writing API key usage failed; will retry');
      for (const d of deltas) add(d.keyId, d.day, d.method, d.requests, d.computeUnits);
      for (const { id, atMs } of used) lastUsed.set(id, Math.max(atMs, lastUsed.get(id) ?? 0));
    }
  };

  const add = (keyId: string, dayStr: string, method: string, requests: number, computeUnits: number) => {
    let days = pending.get(keyId);
    if (!days) pending.set(keyId, (days = new Map()));
    let rows = days.get(dayStr);
    if (!rows) days.set(dayStr, (rows = new Map()));
    const row = rows.get(method);
    if (row) {
      row.requests += requests;
      row.computeUnits += computeUnits;
    } else rows.set(method, { keyId, day: dayStr, method, requests, computeUnits });
  };

  const flush = () => {
    flushing = flushing.then(writeOnce);
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? DEFAULT_USAGE_FLUSH_MS);
  timer.unref();

  return {
    record(keyId, method, computeUnits, requests = 1) {
      const now = options.clock.now();
      add(keyId, currentDay(now), method, requests, computeUnits);
      lastUsed.set(keyId, now);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

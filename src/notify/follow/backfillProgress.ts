// Log lines of running backfills: when a range starts, every few seconds while it runs, and when it
// ends. The follower calls it after each committed backfill block; the numbers come from the store.
import type { SqlExecutor } from '../../store/sql.js';
import type { NotifyLogger } from '../notifyLogger.js';
import { readBackfillProgress } from './followerStore.js';

export interface BackfillProgressLog {
  /** After `number` was committed for `webhookIds`. */
  stepDone(ex: SqlExecutor, webhookIds: readonly string[], number: bigint): Promise<void>;
}

export function createBackfillProgressLog(options: { network: string; logger: NotifyLogger; now: () => number; everyMs?: number }): BackfillProgressLog {
  const everyMs = options.everyMs ?? 5_000;
  const lastLogged = new Map<string, number>();
  return {
    async stepDone(ex, webhookIds, number) {
      for (const webhookId of webhookIds) {
        const progress = await readBackfillProgress(ex, webhookId);
        const fields = { network: options.network, webhookId, block: number.toString() };
        if (progress.next === null) {
          lastLogged.delete(webhookId);
          options.logger.info(fields, 'backfill done; live notifications resume');
          continue;
        }
        const last = lastLogged.get(webhookId);
        if (last !== undefined && options.now() - last < everyMs) continue;
        lastLogged.set(webhookId, options.now());
        options.logger.info({ ...fields, end: progress.end?.toString(), remaining: progress.end === null ? undefined : (progress.end - number).toString() }, last === undefined ? 'backfill running' : 'backfill progress');
      }
    },
  };
}

// Group commit of attempt results: attempts finishing close together are recorded in one store
// transaction instead of one each, which is what bounds throughput with many webhooks.
import type { SqlDatabase } from '../../store/sql.js';
import { recordAttempts, type RecordRequest, type RecordResult } from '../outbox/recordAttempt.js';

export interface AttemptRecorder {
  record(request: RecordRequest): Promise<RecordResult>;
}

/** Batches up to `maxBatch` requests per transaction; a batch starts as soon as the previous one ends. */
export function createAttemptRecorder(db: SqlDatabase, maxBatch = 64): AttemptRecorder {
  let queue: Array<{ request: RecordRequest; resolve(r: RecordResult): void; reject(e: unknown): void }> = [];
  let flushing = false;

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await recordAttempts(db, batch.map((b) => b.request));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (error) {
        batch.forEach((b) => b.reject(error));
      }
    }
    flushing = false;
  }

  return {
    record(request) {
      return new Promise((resolve, reject) => {
        queue.push({ request, resolve, reject });
        // Let attempts finishing in the same tick join before the transaction starts.
        if (!flushing) setImmediate(() => void (flushing ? undefined : flush()));
      });
    },
  };
}

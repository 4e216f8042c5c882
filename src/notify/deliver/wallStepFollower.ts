// Follows a step of the system clock in a process that owns its store: the stored due times move by
// the step and then the process's steady clock, in one transaction, so every retry, deadline and
// lease keeps the distance it had. The delivery worker calls it only with no attempt in flight, so
// no attempt computed against the old timeline is recorded after the move.
import type { SqlDatabase } from '../../store/sql.js';
import type { SteppableClock } from '../steadyClock.js';
import type { NotifyLogger } from '../notifyLogger.js';
import { shiftScheduledTimes } from '../outbox/shiftScheduledTimes.js';

export interface WallStepFollower {
  /** The wall clock's step not yet followed (ms, signed), or 0. */
  pending(): number;
  /** Moves the stored schedule and the clock by the pending step; returns the step followed. */
  follow(): Promise<number>;
}

export function createWallStepFollower(db: SqlDatabase, clock: SteppableClock, logger: NotifyLogger): WallStepFollower {
  return {
    pending: () => clock.wallStepMs(),
    async follow() {
      const stepMs = clock.wallStepMs();
      if (stepMs === 0) return 0;
      let shifted = false;
      try {
        const moved = await db.transaction(async (tx) => {
          const n = await shiftScheduledTimes(tx, stepMs);
          // Inside the transaction: on SQLite no other statement runs between the move and this.
          clock.shift(stepMs);
          shifted = true;
          return n;
        });
        logger.warn({ stepMs, deliveriesMoved: moved }, 'system clock stepped: scheduled webhook deliveries moved with it');
        return stepMs;
      } catch (error) {
        // The commit failed: the rows kept the old timeline, so the clock keeps it too.
        if (shifted) clock.shift(-stepMs);
        throw error;
      }
    },
  };
}

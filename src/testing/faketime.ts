// Moves a child process's clocks while it runs, through Debian's libfaketime (LD_PRELOAD): the test
// writes an offset to a file the library reads on every clock call. `stepWallClock` moves the wall
// clock only (a step of the system clock: the monotonic clock stays real); `passTime` moves both
// (time passing: timers fire, durations elapse), for runs that need hours in seconds.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The synchronised build (MT): Node reads the clock from many threads at once, and the plain build,
 * reading the offset file on every call, now and then misreads it under that (libfaketime issue
 * 151): the monotonic clock steps back and Node aborts on an assertion of its event-loop delay
 * histogram (`Histogram::RecordDelta`, time >= prev). Seen in CI as a service gone mid-run, and
 * here in 2 of 7 runs of listenerDownHour.faults.test.ts with the plain build.
 */
export const FAKETIME_LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';

/** Why faketime tests cannot run here, or null when they can. */
export function faketimeMissing(): string | null {
  return existsSync(FAKETIME_LIBRARY) ? null : `${FAKETIME_LIBRARY} is missing (apt-get install faketime; .ci/run installs it)`;
}

export interface FaketimeControl {
  /** Environment for the child process. */
  env: Record<string, string>;
  /** Sets the offset of the child's clocks from the real ones, in seconds. */
  setOffsetSec(seconds: number): void;
  offsetSec(): number;
}

/**
 * `monotonic: 'real'` fakes the wall clock only (CLOCK_REALTIME); `'faked'` moves the monotonic
 * clocks by the same offset, which is time passing for the child: its timers fire.
 */
export function createFaketimeControl(dir: string, options: { monotonic: 'real' | 'faked'; name?: string }): FaketimeControl {
  const file = join(dir, `${options.name ?? 'faketime'}.offset`);
  let current = 0;
  // Written aside and renamed, so the child never reads a half-written offset.
  const write = (seconds: number) => {
    writeFileSync(`${file}.next`, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
    renameSync(`${file}.next`, file);
  };
  write(0);
  return {
    env: {
      LD_PRELOAD: FAKETIME_LIBRARY,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      ...(options.monotonic === 'real' ? { FAKETIME_DONT_FAKE_MONOTONIC: '1' } : {}),
    },
    setOffsetSec(seconds) {
      current = seconds;
      write(seconds);
    },
    offsetSec: () => current,
  };
}

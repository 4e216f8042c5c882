// Free space on the data dir's disk, for /readyz: under the floor the service cannot be trusted to
// store new work (SQLite's writes fail with SQLITE_FULL, answered as StorageFullError), so it says
// it is not ready and why, while it keeps serving reads. Read on each /readyz, never cached.
import { statfsSync } from 'node:fs';

/** Below this, /readyz's `storage` check fails. A block of the embedded chain needs tens of KiB. */
export const MIN_FREE_DATA_DIR_BYTES = 1024 * 1024;

export interface DataDirSpace {
  /** Bytes an unprivileged writer can still use on the data dir's filesystem. */
  freeBytes(): number;
  /** For /readyz: true when at least the floor is free. */
  check(): boolean;
  /** For /readyz's body: `{free_bytes, min_free_bytes, state}` (`full` under the floor). */
  details(): { free_bytes: number; min_free_bytes: number; state: 'ok' | 'full' };
}

export function createDataDirSpace(dataDir: string, minFreeBytes = MIN_FREE_DATA_DIR_BYTES): DataDirSpace {
  const freeBytes = () => {
    const stats = statfsSync(dataDir);
    return stats.bavail * stats.bsize;
  };
  return {
    freeBytes,
    check: () => freeBytes() >= minFreeBytes,
    details() {
      const free = freeBytes();
      return { free_bytes: free, min_free_bytes: minFreeBytes, state: free >= minFreeBytes ? 'ok' : 'full' };
    },
  };
}

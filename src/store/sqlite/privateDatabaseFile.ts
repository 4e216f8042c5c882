// Creates a SQLite database file readable by its owner only, before SQLite opens it: SQLite gives
// the -wal, -shm and -journal files it creates later the mode of the database file.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** Mode of every file in a data dir (owner read/write). */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of the data dir (owner only). */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes `filename`'s directory (0700 when created here) and the file itself (0600, empty) if they
 * do not exist yet; an existing file keeps its mode and content. `:memory:` and `''` are left alone.
 */
export function preparePrivateDatabaseFile(filename: string): void {
  if (filename === ':memory:' || filename === '' || filename.startsWith('file:')) return;
  mkdirSync(dirname(filename), { recursive: true, mode: PRIVATE_DIR_MODE });
  // 'a' creates without truncating; the mode applies only when the file is created.
  closeSync(openSync(filename, 'a', PRIVATE_FILE_MODE));
}

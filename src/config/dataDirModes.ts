// Keeps the data dir private: the dir (and any dir inside it) 0700, every file 0600, because the
// stores hold API keys and webhook signing keys in plain text. Run at start, before anything opens.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** One path whose mode was tightened, with the mode it had (octal text, e.g. `644`). */
export interface TightenedPath {
  path: string;
  from: string;
}

/**
 * Creates `dataDir` (0700) if needed and removes group and other access from it and from every
 * file and dir below it (files become 0600, dirs 0700; symbolic links are not followed).
 * Returns what it changed, so the caller can log it.
 */
export function makeDataDirPrivate(dataDir: string): TightenedPath[] {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const changed: TightenedPath[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const wanted = stat.isDirectory() ? DIR_MODE : FILE_MODE;
    if (mode !== wanted && (mode & 0o077) !== 0) {
      chmodSync(path, wanted);
      changed.push({ path, from: mode.toString(8) });
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dataDir);
  return changed;
}

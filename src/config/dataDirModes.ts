// Keeps the data dir private: the dir 0700 and every file in it 0600, because the stores hold API
// keys and webhook signing keys in plain text. Run at start, before anything opens a file.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;

/** One path whose mode was tightened, with the mode it had (octal text, e.g. `644`). */
export interface TightenedPath {
  path: string;
  from: string;
}

/**
 * Creates `dataDir` (0700) if needed and removes group and other access from it and from each
 * entry directly in it: the files tracehook writes become 0600, and an owner's execute bit survives
 * (a data dir pointed at a folder holding other things must not break them). Deeper entries are
 * left alone: a 0700 dir already keeps every other user out of all of them. Symbolic links are not
 * followed. Returns what it changed, so the caller can log it.
 */
export function makeDataDirPrivate(dataDir: string): TightenedPath[] {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const changed: TightenedPath[] = [];
  const tighten = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) === 0) return;
    chmodSync(path, mode & 0o700);
    changed.push({ path, from: mode.toString(8) });
  };
  tighten(dataDir);
  for (const name of readdirSync(dataDir)) tighten(join(dataDir, name));
  return changed;
}

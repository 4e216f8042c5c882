import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lockDataDir } from './dataDirLock.js';

describe('lockDataDir', () => {
  it('default: a second lock on the same dir is refused until the first is released', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-lock-'));
    const lock = lockDataDir(dir);
    writeFileSync(join(dir, 'LOCK'), `${process.ppid}\n`); // a live process other than us owns it
    expect(() => lockDataDir(dir)).toThrow(/in use by process/);
    lock.release();
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
    lockDataDir(dir).release();
  });

  it('behavior: a lock left by a dead process is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-lock-'));
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(dir, 'LOCK'), `${dead}\n`);
    const lock = lockDataDir(dir);
    lock.release();
  });
});

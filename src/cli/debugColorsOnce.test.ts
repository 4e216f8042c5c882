// The CLI's first import settles `debug`'s colour option, so the tries ethereumjs builds for every
// block no longer make an isatty system call each. Checked in a fresh process, where `debug` loads
// after the module as it does in the service.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** isatty calls made while 20 tries are created (after `debug` loaded), in a child that first imports `first` (if any). */
function isattyCallsForTries(first?: string): number {
  const script = `
    import tty from 'node:tty';
    ${first ? `await import(${JSON.stringify(new URL(first, import.meta.url).href)});` : ''}
    const { createMPT } = await import('@ethereumjs/mpt');
    let calls = 0;
    const original = tty.isatty;
    tty.isatty = (fd) => (calls++, original(fd));
    for (let i = 0; i < 20; i++) await createMPT();
    process.stdout.write(String(calls));`;
  const env = { ...process.env };
  delete env.DEBUG_COLORS;
  return Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' }));
}

describe('debug colours decided once', () => {
  it('behavior: with the module loaded first, creating tries makes no isatty call; without it, each does', () => {
    expect(isattyCallsForTries()).toBeGreaterThanOrEqual(20);
    expect(isattyCallsForTries('./debugColorsOnce.ts')).toBe(0);
  });
});

// examples/listener/README.md can be followed in order as written: its shell block is run by bash
// from the repository's root (npm start over the build, curl, the example listener), with only the
// listener's port moved to a free one and the service's data dir and port given through its
// environment (TRACEHOOK_DATA_DIR, TRACEHOOK_PORT), so the run neither clashes with other tests
// nor touches ./.tracehook. It must end with the listener having printed the test notification and
// the real transfer's activity.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/startAnvil.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(root, 'examples/listener/README.md'), 'utf8');

describe('examples/listener/README.md', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-readme-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs as written: the listener prints the test notification and the activity of the transfer', async () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'the README has a sh block').toBeTruthy();
    expect(block).toContain('8080');
    const listenerPort = await freePort();
    const script = `set -eu\n${block!.replaceAll('8080', String(listenerPort))}`;
    const child = spawn('bash', ['-c', script], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TRACEHOOK_DATA_DIR: dataDir, TRACEHOOK_PORT: String(await freePort()) },
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(-1), 120_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    // The walk-through leaves its two servers running in the background: stop its process group.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    expect({ code, err: err.slice(-2000) }).toMatchObject({ code: 0 });
    const printed = out
      .split('\n')
      .filter((line) => line.startsWith('{"id":'))
      .map((line) => JSON.parse(line) as { type: string; event: { test?: boolean; activity: { fromAddress: string; toAddress: string; value: number; category: string }[] } });
    const test = printed.find((n) => n.event.test);
    expect(test?.event.activity.length).toBeGreaterThan(0);
    expect(test!.event.activity[0]!.toAddress).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    const real = printed.find((n) => !n.event.test);
    expect(real).toMatchObject({
      type: 'ADDRESS_ACTIVITY',
      event: { activity: [{ fromAddress: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', toAddress: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: 1, category: 'external' }] },
    });
  }, 150_000);
});

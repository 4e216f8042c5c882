// A real profiled process: its main thread spins in one module, then in another while a worker
// spins too; each window's shares must name the module and thread that spun in it, and only those.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readThreadProfiles, rowShares, type RowWindow } from './rowProfiles.js';

// The clock is read once per 100,000 rounds, so the time is the module's own, not the clock's.
const spin = (name: string) =>
  `export function ${name}(ms) { const end = Date.now() + ms; let x = 0; do { for (let i = 0; i < 1e5; i++) x = (x * 31 + i) % 1000003; } while (Date.now() < end); return x; }\n`;
const now = 'Number(process.hrtime.bigint() / 1000n)';

describe('rowProfiles', () => {
  const root = mkdtempSync(join(tmpdir(), 'row-profiles-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('behavior: a window names the threads and code areas busy in it, not those busy in another window', () => {
    for (const dir of ['alpha', 'beta', 'gamma']) mkdirSync(join(root, 'src', dir), { recursive: true });
    writeFileSync(join(root, 'src/alpha/spinA.mjs'), spin('spinA'));
    writeFileSync(join(root, 'src/beta/spinB.mjs'), spin('spinB'));
    writeFileSync(join(root, 'src/gamma/spinWorker.mjs'), `import { workerData } from 'node:worker_threads';\n${spin('spinW')}spinW(workerData.ms);\n`);
    writeFileSync(
      join(root, 'src/main.mjs'),
      `import { Worker } from 'node:worker_threads';
import { spinA } from './alpha/spinA.mjs';
import { spinB } from './beta/spinB.mjs';
const a0 = ${now}; spinA(300); const a1 = ${now};
await new Promise((r) => setTimeout(r, 50));
const worker = new Worker(new URL('./gamma/spinWorker.mjs', import.meta.url), { workerData: { ms: 400 } });
await new Promise((r) => worker.once('online', r));
const b0 = ${now}; spinB(300); const b1 = ${now};
await new Promise((r) => worker.once('exit', r));
console.log(JSON.stringify({ a: [a0, a1], b: [b0, b1] }));
`,
    );
    const profiles = join(root, 'profiles');
    const out = execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, '--cpu-prof-interval', '200', join(root, 'src/main.mjs')], { encoding: 'utf8' });
    const { a, b } = JSON.parse(out) as { a: [number, number]; b: [number, number] };
    const threads = readThreadProfiles(profiles);
    expect(threads.map((t) => t.thread).sort()).toEqual(['main', 'spinWorker']);

    const windowA: RowWindow = { name: 'a', fromUs: a[0], toUs: a[1] };
    const windowB: RowWindow = { name: 'b', fromUs: b[0], toUs: b[1] };
    const share = (shares: ReturnType<typeof rowShares>, thread: string, area: string) => shares.find((s) => s.thread === thread)?.areas.find(([name]) => name === area)?.[1] ?? 0;

    const inA = rowShares(threads, windowA);
    expect(inA.map((s) => s.thread)).toEqual(['main']);
    expect(inA[0]!.busy).toBeGreaterThan(0.8);
    expect(share(inA, 'main', 'alpha')).toBeGreaterThan(0.5);
    expect(share(inA, 'main', 'beta')).toBe(0);

    const inB = rowShares(threads, windowB);
    expect(inB.map((s) => s.thread).sort()).toEqual(['main', 'spinWorker']);
    expect(share(inB, 'main', 'beta')).toBeGreaterThan(0.5);
    expect(share(inB, 'main', 'alpha')).toBe(0);
    expect(share(inB, 'spinWorker', 'gamma')).toBeGreaterThan(0.5);
  });
});

// Starting a worker thread from a module that may be TypeScript source (tests, tsx runs) or the
// build's JavaScript; shared by every worker pool so the tsx detail lives in one place.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker running `url`. A .ts worker first registers tsx's loader in the worker itself: on
 * Node 20, `execArgv: ['--import', 'tsx']` does not reach a worker's entry module (tsx registers
 * its hooks on the main thread only).
 */
export function startWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const require = createRequire(import.meta.url);
  const tsxPackage = require.resolve('tsx/package.json');
  const exports = (require(tsxPackage) as { exports: Record<string, { import: { default: string } }> }).exports;
  const tsxApi = pathToFileURL(join(dirname(tsxPackage), exports['./esm/api']!.import.default)).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** The sibling module `name` of `moduleUrl` (an `import.meta.url`): `.ts` from source, `.js` in the build. */
export function siblingWorkerUrl(moduleUrl: string, name: string): URL {
  const ext = moduleUrl.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./${name}.${ext}`, moduleUrl);
}

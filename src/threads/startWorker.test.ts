import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { siblingWorkerUrl, startWorker } from './startWorker.js';

describe('startWorker', () => {
  it('default: runs a TypeScript worker from source with its workerData and resource limits', async () => {
    const worker = startWorker(new URL('./testing/echoWorker.ts', import.meta.url), { workerData: { n: 1 }, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    try {
      worker.postMessage('ping');
      const [reply] = await once(worker, 'message');
      expect(reply).toEqual({ workerData: { n: 1 }, message: 'ping' });
    } finally {
      await worker.terminate();
    }
  });

  it('args: siblingWorkerUrl keeps the extension of the module that asks', () => {
    expect(siblingWorkerUrl('file:///x/src/a/pool.ts', 'worker').href).toBe('file:///x/src/a/worker.ts');
    expect(siblingWorkerUrl('file:///x/dist/a/pool.js', 'worker').href).toBe('file:///x/dist/a/worker.js');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { loadActivityFixture, scenarioBlock } from '../extract/testing/activityFixture.js';
import { createCustomQueryRunner, type CustomQueryRunner } from './customQueryRunner.js';
import { compileCustomQuery, prepareBlock, runCustomQuery } from './customQuery.js';
import { largeBlock } from './testing/largeBlock.js';

const fixture = loadActivityFixture();

describe('Custom query runner (worker thread)', () => {
  let runner: CustomQueryRunner | undefined;
  afterEach(async () => runner?.close());

  it('default: runs a query in the worker with the same data as in-process, parent served from the ancestors sent', async () => {
    runner = createCustomQueryRunner();
    const block = scenarioBlock(fixture, 'erc20');
    const parent = fixture.canonical[Number(block.header.number) - 1]!;
    const query = '{ block { number parent { hash number } logs { data transaction { hash } } } }';
    const compiled = compileCustomQuery(query);
    if (!compiled.ok) throw new Error(compiled.message);
    const local = await runCustomQuery(compiled.query, prepareBlock(block), { loadBlock: async (h) => (h === parent.header.hash ? parent : undefined) });
    const outcome = await runner.run(block, [parent], query);
    expect(outcome).toMatchObject({ ok: true, data: local.data, errors: [], empty: false });
    // The worker holds the block: a later query on it reaching its parent still finds it.
    expect(await runner.run(block, [], '{ block { number } }')).toMatchObject({ ok: true });
    expect(await runner.run(block, [parent], query)).toMatchObject({ ok: true, data: { block: { parent: { hash: parent.header.hash } } } });
  });

  it('behavior: a query reaching deeper through parent than the one before it on the same block gets the longer chain', async () => {
    runner = createCustomQueryRunner();
    const block = scenarioBlock(fixture, 'erc20');
    const n = Number(block.header.number);
    expect(await runner.run(block, [], '{ block { parent { number } } }')).toMatchObject({ ok: true, data: { block: { parent: null } } });
    const chain = [fixture.canonical[n - 1]!, fixture.canonical[n - 2]!];
    expect(await runner.run(block, chain, '{ block { parent { parent { number } } } }')).toMatchObject({ ok: true, data: { block: { parent: { parent: { number: n - 2 } } } } });
  });

  it('error: a result over the size cap is refused in the worker; the next query runs normally', async () => {
    runner = createCustomQueryRunner({ budget: { maxResultBytes: 64 * 1024 } });
    const block = largeBlock(scenarioBlock(fixture, 'erc20'), 500, 4);
    const big = await runner.run(block, [], '{ block { logs { data topics transaction { hash } } } }');
    expect(big).toMatchObject({ ok: false, reason: 'the notification would be larger than 65536 bytes' });
    expect(await runner.run(block, [], '{ block { number transactionCount } }')).toMatchObject({ ok: true, data: { block: { number: 3, transactionCount: 500 } } });
  });

  it('error: a query past its time budget is stopped by ending the worker; a fresh worker takes the next query', async () => {
    runner = createCustomQueryRunner({ budget: { timeMs: 100, maxResultBytes: 8 * 1024 * 1024 } });
    // About 3 MB of result over 30,000 transactions: 0.4 s unbounded.
    const block = largeBlock(scenarioBlock(fixture, 'erc20'), 30_000, 1);
    expect(await runner.run(block, [], '{ block { number } }')).toMatchObject({ ok: true });
    const started = performance.now();
    const slow = await runner.run(block, [], '{ block { number transactions { hash logs { index } } } }');
    expect(slow).toMatchObject({ ok: false, reason: 'ran longer than 100 ms' });
    expect(performance.now() - started).toBeLessThan(350);
    expect(await runner.run(block, [], '{ block { transactionCount } }')).toMatchObject({ ok: true, data: { block: { transactionCount: 30000 } } });
  });

  it('error: a query that runs its worker out of heap ends only that worker; the process and the next query go on', async () => {
    // No size cap to speak of: only the worker's 64 MiB heap stops this one.
    runner = createCustomQueryRunner({ budget: { maxHeapMb: 64, maxResultBytes: 1024 * 1024 * 1024, timeMs: 60_000 } });
    const block = largeBlock(scenarioBlock(fixture, 'erc20'), 3_000, 5);
    const outcome = await runner.run(block, [], '{ block { logs { data topics transaction { hash inputData logs { data topics } } } } }');
    expect(outcome).toMatchObject({ ok: false, reason: 'ran out of memory (worker heap limit 64 MiB)' });
    expect(await runner.run(block, [], '{ block { transactionCount } }')).toMatchObject({ ok: true, data: { block: { transactionCount: 3000 } } });
  });
});

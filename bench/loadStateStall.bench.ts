// anvil_loadState of a large dump (default 20,000 accounts with one storage slot each, gzipped as
// anvil sends it) on the embedded chain, in-process: how long the load takes and the longest
// stall of the event loop meanwhile, in wall time and in main-thread CPU time (Linux), split into
// parsing and applying; the chain as the service opens it (WAL checkpoints in a worker).
//
//   npx tsx bench/loadStateStall.bench.ts [--accounts 20000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createDevChain } from '../src/engine/chain/devChain.js';
import { parseStateDumpOffThread } from '../src/engine/chain/stateDumpParsing.js';
import { describeGaps, startLoopStallMeter } from '../src/testing/loopStallMeter.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const count = arg('accounts', 20_000);
const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-load-bench-'));
const chain = await createDevChain({ dataDir, clock: Date.now, minedRecordBytes: 0, checkpointInWorker: true });
try {
  const accounts: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) accounts[`0x${(0x100000 + i).toString(16).padStart(40, '0')}`] = { nonce: 1, balance: '0x7', code: '0x', storage: { '0x01': '0x02' } };
  const bytes = gzipSync(Buffer.from(JSON.stringify({ accounts })));
  await new Promise((r) => setTimeout(r, 100));
  let meter = startLoopStallMeter();
  let t = performance.now();
  // As anvil_loadState receives it: hex text, decoded by the reader.
  const dump = await parseStateDumpOffThread(`0x${bytes.toString('hex')}`);
  const parseMs = performance.now() - t;
  const parseGaps = meter.stop();
  meter = startLoopStallMeter();
  t = performance.now();
  await chain.loadState(dump);
  const applyMs = performance.now() - t;
  const applyGaps = meter.stop();
  console.log(`anvil_loadState of ${count} accounts (${bytes.length} gzipped bytes)`);
  console.log(`  parse ${parseMs.toFixed(0)} ms: ${describeGaps(parseGaps)}`);
  console.log(`  apply ${applyMs.toFixed(0)} ms: ${describeGaps(applyGaps)}`);
} finally {
  await chain.close();
  rmSync(dataDir, { recursive: true, force: true });
}

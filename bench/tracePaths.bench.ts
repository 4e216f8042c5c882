// Issue 13 item 6: what each trace path costs on an upstream network, in-process through the routed
// pool and the path choice (no gateway, no cache), same transactions, same run. anvil is the peer:
// `trace_transaction` natively (anvil has it) against translated (from its debug_* tracers) and
// executed (the embedded engine over a plain eth_* proxy in front of the same anvil); `trace_call`
// translated against executed, the executed path cold (an empty per-block cache: every account and
// slot read from the node) and warm (the shared cache holds them), with the state reads per call.
//
//   npx tsx bench/tracePaths.bench.ts [--txs 40] [--rounds 3]
import { pino } from 'pino';
import { createForkExecutor } from '../src/backends/fork/forkExecutor.js';
import { pickTranslation } from '../src/backends/translate/index.js';
import { createNetworkUpstreams } from '../src/backends/upstream/networkUpstreams.js';
import { startMisbehavingUpstream } from '../src/backends/upstream/testing/misbehavingUpstream.js';
import { createTracePathBackend } from '../src/backends/upstream/tracePaths.js';
import { startAnvil } from '../src/testing/startAnvil.js';
import { benchAccount, numberArg, signedErc20Transactions, tokenAddress, transferData } from './erc20Workload.js';

const TXS = numberArg('txs', 40);
const ROUNDS = numberArg('rounds', 3);
const logger = pino({ level: 'silent' });
const ctx = () => ({ requestId: 'bench', signal: new AbortController().signal });

const anvil = await startAnvil();
const plain = await startMisbehavingUpstream({ target: anvil.url, mode: 'methodNotFound', affects: (m) => !/^(eth|net|web3)_/.test(m) });
const anvilNet = createNetworkUpstreams({ network: 'ANVIL', upstreams: [{ url: anvil.url }], logger });
const plainNet = createNetworkUpstreams({ network: 'PLAIN', upstreams: [{ url: plain.url }], logger });
try {
  const hashes: string[] = [];
  for (const raw of await signedErc20Transactions(TXS)) hashes.push((await anvilNet.backend.call('eth_sendRawTransaction', [raw], ctx())) as string);
  await Promise.all([anvilNet.start(), plainNet.start()]);
  const transfers = hashes.slice(1);
  const native = createTracePathBackend({ network: 'ANVIL', inner: anvilNet.backend, members: () => anvilNet.members() });
  const executor = createForkExecutor({ chainId: () => 31337n, hardfork: 'prague' });
  const executed = createTracePathBackend({ network: 'PLAIN', inner: plainNet.backend, members: () => plainNet.members(), executor });
  const translate = (method: string, params: unknown[]) => {
    const t = pickTranslation(method, params, (need) => need.method.startsWith('eth_') || need.method.startsWith('debug_'))!;
    const c = ctx();
    return t.run(params, (m, p) => anvilNet.backend.call(m, p, c));
  };
  const calls = transfers.map((_, i) => ({ from: benchAccount.address, to: tokenAddress, data: transferData(i + TXS) }));

  /** ms per call over `items`, best of the rounds. */
  const time = async <T>(items: T[], run: (item: T) => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    for (const item of items) await run(item);
    return (performance.now() - started) / items.length;
  };
  const rows: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (rows[name] ??= []).push(ms);
  await time(transfers.slice(0, 5), (h) => translate('trace_transaction', [h])); // warm-up
  let coldReads = 0;
  let coldCalls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    add('trace_transaction native (anvil)', await time(transfers, (h) => native.call('trace_transaction', [h], ctx())));
    add('trace_transaction translated (anvil debug_*)', await time(transfers, (h) => translate('trace_transaction', [h])));
    add('trace_transaction executed (plain proxy)', await time(transfers, (h) => executed.call('trace_transaction', [h], ctx())));
    add('trace_call translated (anvil debug_traceCall)', await time(calls, (c) => translate('trace_call', [c, ['trace'], 'latest'])));
    // Cold: each call with an empty per-block cache (every account and slot read from the node).
    add(
      'trace_call executed, cold',
      await time(calls, async (c) => {
        const fresh = createForkExecutor({ chainId: () => 31337n, hardfork: 'prague' });
        await createTracePathBackend({ network: 'PLAIN', inner: plainNet.backend, members: () => plainNet.members(), executor: fresh }).call('trace_call', [c, ['trace'], 'latest'], ctx());
        coldReads += fresh.states.stats().reads;
        coldCalls++;
      }),
    );
    // Warm: the shared cache already holds the block's state from the calls before.
    await executed.call('trace_call', [calls[0], ['trace'], 'latest'], ctx());
    add('trace_call executed, warm (per-block cache)', await time(calls, (c) => executed.call('trace_call', [c, ['trace'], 'latest'], ctx())));
  }
  const best = (xs: number[]) => Math.min(...xs);
  const nativeMs = best(rows['trace_transaction native (anvil)']!);
  console.log(`\n${transfers.length} ERC-20 transfers on anvil 1.7.1, ${ROUNDS} rounds (best round shown), in-process, no cache:\n`);
  console.log('| path | ms per call | native / this |');
  console.log('| --- | ---: | ---: |');
  for (const [name, xs] of Object.entries(rows)) {
    const ratio = name.startsWith('trace_transaction') ? (nativeMs / best(xs)).toFixed(2) : '';
    console.log(`| ${name} | ${best(xs).toFixed(2)} | ${ratio} |`);
  }
  const coldMs = best(rows['trace_call executed, cold']!);
  const warmMs = best(rows['trace_call executed, warm (per-block cache)']!);
  const perCall = coldReads / coldCalls;
  console.log(`\nExecuted trace_call: ${perCall.toFixed(1)} state reads per call on a cold block (an account is one batch of three calls), ~${((coldMs - warmMs) / perCall).toFixed(2)} ms per read; the per-block cache takes a call from ${coldMs.toFixed(2)} to ${warmMs.toFixed(2)} ms.`);
} finally {
  anvilNet.close();
  plainNet.close();
  await plain.close();
  await anvil.stop();
}

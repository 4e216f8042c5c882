// Records fixtures/traces/*.json: self-contained tracer fixtures in go-ethereum's format (the
// prestate as `genesis.alloc`, the block as `context`, the signed transaction as `input`) for the
// TraceProbe scenarios, each with one tracer's output as `result`. Run after a deliberate change
// of a renderer, review the diff, and commit:
//   npx tsx scripts/conformance/recordTraceFixtures.ts
// The same transactions are compared with anvil in src/backends/embedded/trace*Differential.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block } from '@ethereumjs/block';
import { privateKeyToAccount } from 'viem/accounts';
import { openTempChain } from '../../src/engine/chain/testing/tempChain.js';
import { createTracer } from '../../src/engine/trace/createTracer.js';
import { buildTraceScenarios } from '../../src/engine/trace/testing/traceScenarios.js';
import { bytesToHex, quantityToHex } from '../../src/rpc/hex.js';
import { createDebugNamespace } from '../../src/backends/embedded/debugNamespace.js';
import { createEthNamespace } from '../../src/backends/embedded/ethNamespace.js';
import { createMethodTable } from '../../src/backends/embedded/methodTable.js';
import { rpcResult } from '../../src/backends/embedded/testing/chainRpc.js';
import { createTraceNamespace } from '../../src/backends/embedded/traceNamespace.js';
import { renderNamedTracer, type NamedTracer } from './namedTracer.js';

/** Which scenario is recorded with which tracer. */
const RECORDINGS: { scenario: string; tracer: NamedTracer; config?: Record<string, unknown>; file: string }[] = [
  { scenario: 'catchRevert', tracer: 'callTracer', config: { withLog: true }, file: 'callTracer_catchRevert_withLog' },
  { scenario: 'revertWithReason', tracer: 'callTracer', file: 'callTracer_revertWithReason' },
  { scenario: 'revertCustom', tracer: 'callTracer', file: 'callTracer_revertCustom' },
  { scenario: 'revertPanic', tracer: 'callTracer', file: 'callTracer_revertPanic' },
  { scenario: 'makeAndKill', tracer: 'callTracer', config: { withLog: true }, file: 'callTracer_makeAndKill_withLog' },
  { scenario: 'failCreate', tracer: 'callTracer', file: 'callTracer_failCreate' },
  { scenario: 'insufficientBalanceCall', tracer: 'callTracer', file: 'callTracer_insufficientBalanceCall' },
  { scenario: 'mixed', tracer: 'callTracer', file: 'callTracer_mixed' },
  { scenario: 'outOfGasTop', tracer: 'callTracer', config: { withLog: true }, file: 'callTracer_outOfGasTop_withLog' },
  { scenario: 'nested', tracer: 'callTracer', config: { onlyTopCall: true, withLog: true }, file: 'callTracer_nested_onlyTopCall' },
  { scenario: 'mixed', tracer: 'flatCallTracer', file: 'flatCallTracer_mixed' },
  { scenario: 'insufficientBalanceCall', tracer: 'flatCallTracer', config: { convertParityErrors: true }, file: 'flatCallTracer_insufficientBalanceCall' },
  { scenario: 'pay', tracer: 'prestateTracer', file: 'prestateTracer_pay' },
  { scenario: 'makeChildren', tracer: 'prestateTracer', config: { disableCode: true }, file: 'prestateTracer_makeChildren_disableCode' },
  { scenario: 'makeAndKill', tracer: 'prestateTracer', config: { diffMode: true }, file: 'prestateTracer_makeAndKill_diffMode' },
  { scenario: 'mixed', tracer: 'prestateTracer', config: { diffMode: true }, file: 'prestateTracer_mixed_diffMode' },
  { scenario: 'killChild', tracer: 'prestateTracer', config: { diffMode: true, disableStorage: true }, file: 'prestateTracer_killChild_diffMode' },
  { scenario: 'pay', tracer: '4byteTracer', file: 'fourByteTracer_pay' },
  { scenario: 'revertPanic', tracer: 'structLogger', config: { enableMemory: true, enableReturnData: true }, file: 'structLogger_revertPanic' },
  { scenario: 'mixed', tracer: 'parity:trace', file: 'parityTrace_mixed' },
  { scenario: 'makeAndKill', tracer: 'parity:trace', file: 'parityTrace_makeAndKill' },
  { scenario: 'insufficientBalanceCall', tracer: 'parity:trace', file: 'parityTrace_insufficientBalanceCall' },
  { scenario: 'makeChildren', tracer: 'parity:stateDiff', file: 'parityStateDiff_makeChildren' },
  { scenario: 'killChild', tracer: 'parity:stateDiff', file: 'parityStateDiff_killChild' },
  { scenario: 'revertCustom', tracer: 'parity:vmTrace', file: 'parityVmTrace_revertCustom' },
  { scenario: 'catchRevert', tracer: 'parity:vmTrace', file: 'parityVmTrace_catchRevert' },
];

const CONFIG = {
  chainId: 31337,
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
  pragueTime: 0,
};

type AccountJson = { balance: string; nonce?: number; code?: string; storage?: Record<string, string> };

function allocOf(prestate: Record<string, AccountJson>): Record<string, { balance: string; nonce: string; code: string; storage: Record<string, string> }> {
  return Object.fromEntries(
    Object.entries(prestate).map(([address, a]) => [address, { balance: a.balance, nonce: String(a.nonce ?? 0), code: a.code ?? '0x', storage: a.storage ?? {} }]),
  );
}

function contextOf(block: Block): Record<string, string> {
  const h = block.header;
  return {
    number: h.number.toString(),
    timestamp: h.timestamp.toString(),
    difficulty: '0',
    gasLimit: h.gasLimit.toString(),
    miner: bytesToHex(h.coinbase.bytes),
    baseFeePerGas: (h.baseFeePerGas ?? 0n).toString(),
  };
}

async function main(): Promise<void> {
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'traces');
  mkdirSync(out, { recursive: true });
  const temp = await openTempChain({ clock: () => 1_700_000_000_000 });
  const tracer = createTracer({ chain: temp.chain });
  try {
    const table = createMethodTable(createEthNamespace({ chain: temp.chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
    const deployer = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
    const { scenarios } = await buildTraceScenarios(deployer, Number(temp.chain.chainId));
    const raws = new Map<string, string>();
    const hashes = new Map<string, string>();
    for (const s of scenarios) {
      raws.set(s.name, s.raw);
      hashes.set(s.name, await rpcResult<string>(table, 'eth_sendRawTransaction', [s.raw]));
    }
    for (const r of RECORDINGS) {
      const hash = hashes.get(r.scenario)!;
      const mined = await tracer.requireTransaction(hash as `0x${string}`);
      const prestate = await rpcResult<Record<string, AccountJson>>(table, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]);
      const record = await tracer.recordTransaction(mined, { state: true, steps: { stack: true, memory: true, returnData: true, storage: true, effects: true, limit: 0 } });
      const fixture = {
        origin: `tracehook TraceProbe scenario "${r.scenario}" (see README.md)`,
        genesis: { config: CONFIG, alloc: allocOf(prestate), mixHash: bytesToHex(mined.block.header.mixHash), number: quantityToHex(mined.block.header.number - 1n) },
        context: contextOf(mined.block),
        input: raws.get(r.scenario),
        tracer: r.tracer,
        tracerConfig: r.config,
        result: renderNamedTracer(record, r.tracer, r.config ?? {}),
      };
      writeFileSync(join(out, `${r.file}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      console.log(`${r.file}.json`);
    }
  } finally {
    tracer.close();
    await temp.dispose();
  }
}

await main();

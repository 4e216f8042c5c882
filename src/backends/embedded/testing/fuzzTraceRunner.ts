// Test support for the trace fuzzer: anvil (--no-mining) and the embedded chain (pool mode, mined
// on demand) side by side; runs a generated program on both with the same signed transactions and
// compares receipts, callTracer (withLog), prestateTracer (both modes), trace_transaction and
// trace_replayTransaction (trace, stateDiff) field by field after the DIFFERENCES normalisers, and
// eth_estimateGas of each transaction before it is sent.
import { getContractAddress, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type TempChain, openTempChain } from '../../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../../engine/trace/createTracer.js';
import { type AnvilProcess, startAnvil } from '../../../testing/startAnvil.js';
import { bytesToHex } from '../../../rpc/hex.js';
import { createDebugNamespace } from '../debugNamespace.js';
import { createDevNamespace } from '../devNamespace.js';
import { createEthNamespace } from '../ethNamespace.js';
import { type MethodTable, createMethodTable } from '../methodTable.js';
import { createTraceNamespace } from '../traceNamespace.js';
import { type RpcResponse, rpc } from './chainRpc.js';
import { deployCode } from './evmAssembler.js';
import { AMPLE_GAS, type Program, type RenderContext, type Tx, intrinsicGas, renderCode, renderInit } from './fuzzProgram.js';
import type { Json } from './traceAnvilPair.js';
import { type Diff, type Entry, type Obj, PremiseError, addFailedCreateTargets, bornAsParity, hasFailedCreate, dropFailedSstoreSlots, parityAsOurs, replayTraceFromTransaction, callTracerAsGeth, clone, dropCodeHash, dropEmptyAccounts, normalizeParity } from './traceDifferences.js';

export interface FuzzPair {
  anvil: AnvilProcess;
  temp: TempChain;
  tracer: Tracer;
  table: MethodTable;
  anvilRpc(method: string, params: unknown[]): Promise<RpcResponse>;
  ourRpc(method: string, params: unknown[]): Promise<RpcResponse>;
  signers: PrivateKeyAccount[];
  /** An existing externally owned account no program sends from. */
  account: string;
  runs: number;
  /** Warnings the embedded chain logged (a pooled transaction it dropped), taken by each run. */
  warnings: string[];
  stop(): Promise<void>;
}

/** One field-by-field difference, with anvil's (normalised) value first. */
export interface Mismatch {
  tx: string;
  check: string;
  lines: string[];
}

const FEE_CAP = 100_000_000_000n;
const SENDERS = 4;

/** anvil and the embedded chain on one hardfork (Prague unless named: Osaka is anvil 1.7.1's default). */
export async function startFuzzPair(hardfork = 'prague'): Promise<FuzzPair> {
  const never = { setInterval: () => undefined, clearInterval: () => undefined };
  const warnings: string[] = [];
  const logger = { info: () => undefined, warn: (obj: object, msg?: string) => warnings.push(`${msg ?? ''} ${JSON.stringify(obj)}`), error: (obj: object, msg?: string) => warnings.push(`${msg ?? ''} ${JSON.stringify(obj)}`) };
  const [anvil, temp] = await Promise.all([startAnvil(['--no-mining', '--hardfork', hardfork]), openTempChain({ hardfork, clock: Date.now, blockTimeSec: 1, timers: never, logger })]);
  const tracer = createTracer({ chain: temp.chain });
  const deps = { chain: temp.chain };
  const table = createMethodTable(createEthNamespace(deps), createDevNamespace(deps), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
  const anvilRpc = async (method: string, params: unknown[]): Promise<RpcResponse> => {
    const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    return body.error ? { error: body.error } : { result: body.result ?? null };
  };
  const accounts = temp.chain.accounts;
  return {
    anvil,
    temp,
    tracer,
    table,
    anvilRpc,
    ourRpc: (method, params) => rpc(table, method, params),
    signers: accounts.slice(0, SENDERS).map((a) => privateKeyToAccount(bytesToHex(a.privateKey))),
    account: accounts[accounts.length - 1]!.address.toString(),
    runs: 0,
    warnings,
    async stop() {
      tracer.close();
      await anvil.stop();
      await temp.dispose();
    },
  };
}

function resultOf(side: string, method: string, response: RpcResponse): Json {
  if ('error' in response) throw new Error(`${side} ${method}: error ${response.error.code} ${response.error.message}`);
  return response.result as Json;
}

/** Paths where `ours` differs from `theirs`, at most `limit` of them. */
export function jsonDiff(theirs: unknown, ours: unknown, path = '', out: string[] = [], limit = 12): string[] {
  if (out.length >= limit) return out;
  const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 300));
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (isObj(theirs) && isObj(ours) && Array.isArray(theirs) === Array.isArray(ours)) {
    if (Array.isArray(theirs) && Array.isArray(ours) && theirs.length !== ours.length) out.push(`${path || '.'}: anvil has ${theirs.length} items, ours ${ours.length}`);
    const keys = new Set([...Object.keys(theirs), ...Object.keys(ours)]);
    for (const key of keys) jsonDiff(theirs[key], ours[key], `${path}${Array.isArray(theirs) ? `[${key}]` : `.${key}`}`, out, limit);
  } else if (JSON.stringify(theirs) !== JSON.stringify(ours)) {
    out.push(`${path || '.'}: anvil ${show(theirs)}, ours ${show(ours)}`);
  }
  return out.slice(0, limit);
}

export interface SentTx {
  label: string;
  hash: string;
}

function txText(tx: Tx): string {
  return tx.tx === 'call' ? `call ${tx.to.to}${tx.to.to === 'contract' ? ` C${tx.to.index}` : ''}` : 'create';
}

/**
 * Runs `program` on both sides (contracts deployed first, one block per program block) and
 * returns every difference the documented conventions do not explain.
 */
export async function runProgram(pair: FuzzPair, program: Program): Promise<Mismatch[]> {
  const run = pair.runs++;
  const nonces: number[] = [];
  for (const signer of pair.signers) {
    const params = [signer.address, 'latest'];
    const [theirs, ours] = [resultOf('anvil', 'nonce', await pair.anvilRpc('eth_getTransactionCount', params)), resultOf('ours', 'nonce', await pair.ourRpc('eth_getTransactionCount', params))];
    if (theirs !== ours) throw new Error(`the chains diverged before run ${run}: nonce of ${signer.address} is ${String(theirs)} on anvil, ${String(ours)} here`);
    nonces.push(Number(ours));
  }
  const deployer = pair.signers[0]!;
  const ctx: RenderContext = {
    contracts: program.contracts.map((_, i) => getContractAddress({ from: deployer.address, nonce: BigInt(nonces[0]! + i) }).toLowerCase()),
    account: pair.account,
    freshPrefix: `0xfe${run.toString(16).padStart(30, '0')}`,
  };
  const sent: SentTx[] = [];
  const mismatches: Mismatch[] = [];
  const send = async (label: string, from: number, fields: { to?: Hex; data: Hex; value: bigint; gas: bigint }, tip: bigint): Promise<void> => {
    mismatches.push(...(await compareEstimate(pair, label, pair.signers[from]!.address, fields)));
    const raw = await pair.signers[from]!.signTransaction({ type: 'eip1559', chainId: 31337, nonce: nonces[from]!, maxFeePerGas: FEE_CAP, maxPriorityFeePerGas: tip, ...fields });
    const [theirs, ours] = [await pair.anvilRpc('eth_sendRawTransaction', [raw]), await pair.ourRpc('eth_sendRawTransaction', [raw])];
    if ('error' in theirs && 'error' in ours) return;
    if ('error' in theirs || 'error' in ours) throw new Error(`${label}: anvil answered ${JSON.stringify(theirs)}, we ${JSON.stringify(ours)}`);
    nonces[from]! += 1;
    sent.push({ label, hash: theirs.result as string });
  };
  const mine = async (): Promise<void> => {
    resultOf('anvil', 'evm_mine', await pair.anvilRpc('evm_mine', []));
    resultOf('ours', 'evm_mine', await pair.ourRpc('evm_mine', []));
    const warnings = pair.warnings.splice(0);
    if (warnings.length > 0) throw new Error(`the embedded chain, mining: ${warnings.join('; ')}`);
  };
  for (const [i, code] of program.contracts.entries()) {
    await send(`deploy C${i}`, 0, { data: bytesToHex(deployCode(renderCode(code, ctx))), value: 10n ** 17n, gas: AMPLE_GAS }, 10n - BigInt(i));
  }
  await mine();
  for (const [b, block] of program.blocks.entries()) {
    for (const [i, tx] of block.entries()) {
      const data = tx.tx === 'create' ? renderInit(tx.init, ctx) : Buffer.from(tx.data.slice(2), 'hex');
      const gas = tx.gas === 'ample' ? AMPLE_GAS : intrinsicGas(data, tx.tx === 'create') + BigInt(tx.gas);
      const to = tx.tx === 'call' ? (toAddress(tx, ctx, pair.account) as Hex) : undefined;
      await send(`block ${b + 1} tx ${i} (${txText(tx)})`, tx.from, { to, data: bytesToHex(data) as Hex, value: tx.value, gas }, 10n - BigInt(i));
    }
    await mine();
  }
  for (const tx of sent) mismatches.push(...(await compareTransaction(pair, tx)));
  return mismatches;
}

function toAddress(tx: Tx & { tx: 'call' }, ctx: RenderContext, account: string): string {
  const t = tx.to;
  if (t.to === 'contract') return ctx.contracts[t.index]!;
  if (t.to === 'precompile') return `0x${t.n.toString(16).padStart(40, '0')}`;
  if (t.to === 'fresh') return `${ctx.freshPrefix}${t.n.toString(16).padStart(8, '0')}`;
  return account;
}

const RECEIPT_FIELDS = ['status', 'gasUsed', 'cumulativeGasUsed', 'contractAddress', 'effectiveGasPrice', 'transactionIndex', 'blockNumber', 'from', 'to', 'type'];
const LOG_FIELDS = ['address', 'topics', 'data', 'logIndex', 'transactionIndex', 'removed'];

function receiptFields(receipt: Obj): Obj {
  const out: Obj = {};
  for (const f of RECEIPT_FIELDS) out[f] = receipt[f] ?? null;
  out.logs = (receipt.logs as Obj[]).map((log) => Object.fromEntries(LOG_FIELDS.map((f) => [f, log[f] ?? null])));
  return out;
}

/**
 * eth_estimateGas of a transaction about to be sent, on the latest state of both chains: the same
 * limit, or both an error (the same revert data where anvil reverts; other texts and codes are
 * geth's here). Three differences are documented: a limit of anvil's below the gas our
 * unconstrained run used (DIFFERENCES.estimateLowerBound), anvil's 21,000 for a call with no data
 * to a precompile that fails on empty input (estimatePrecompileTransfer), and anvil's 21,001 for a
 * call whose execution costs nothing (estimateAnvilBase).
 */
async function compareEstimate(pair: FuzzPair, label: string, from: string, fields: { to?: Hex; data: Hex; value: bigint }): Promise<Mismatch[]> {
  const request = { from, ...(fields.to ? { to: fields.to } : {}), data: fields.data, value: `0x${fields.value.toString(16)}` };
  const theirs = await pair.anvilRpc('eth_estimateGas', [request, 'latest']);
  const ours = await pair.ourRpc('eth_estimateGas', [request, 'latest']);
  const mismatch = (lines: string[]): Mismatch[] => [{ tx: label, check: 'eth_estimateGas', lines }];
  if ('error' in theirs) {
    if (!('error' in ours)) return mismatch([`anvil ${JSON.stringify(theirs.error)}, ours ${String(ours.result)}`]);
    if (theirs.error.code !== 3) return [];
    return jsonDiff({ code: 3, data: (theirs.error as { data?: unknown }).data }, { code: ours.error.code, data: (ours.error as { data?: unknown }).data }).length === 0
      ? []
      : mismatch([`anvil ${JSON.stringify(theirs.error)}, ours ${JSON.stringify(ours.error)}`]);
  }
  if ('error' in ours) {
    const precompileTransfer = fields.to !== undefined && BigInt(fields.to) <= 0x100n && fields.data === '0x' && theirs.result === '0x5208';
    return precompileTransfer ? [] : mismatch([`anvil ${String(theirs.result)}, ours ${JSON.stringify(ours.error)}`]);
  }
  if (theirs.result === ours.result) return [];
  if (theirs.result === '0x5209' && ours.result === '0x5208') return []; // DIFFERENCES.estimateAnvilBase
  // The unconstrained run, at the estimate's cap (the block's gas limit).
  const block = await pair.ourRpc('eth_getBlockByNumber', ['latest', false]);
  const cap = 'result' in block ? (block.result as Obj).gasLimit : undefined;
  const trace = await pair.ourRpc('debug_traceCall', [{ ...request, gas: cap }, 'latest', { tracer: 'callTracer' }]);
  const used = 'result' in trace ? BigInt((trace.result as Obj).gasUsed as string) : undefined;
  if (used !== undefined && BigInt(theirs.result as string) < used && BigInt(ours.result as string) >= used) return [];
  return mismatch([`anvil ${String(theirs.result)}, ours ${String(ours.result)} (our unconstrained run used ${String(used)})`]);
}

/** Every trace format of one mined transaction on both chains, compared after the documented differences. */
export async function compareTransaction(pair: FuzzPair, tx: SentTx): Promise<Mismatch[]> {
  const out: Mismatch[] = [];
  const both = async (method: string, params: unknown[]): Promise<[Json, Json]> => [
    resultOf('anvil', method, await pair.anvilRpc(method, params)),
    resultOf('ours', method, await pair.ourRpc(method, params)),
  ];
  const check = (name: string, theirs: () => unknown, ours: unknown): void => {
    try {
      const lines = jsonDiff(theirs(), ours);
      if (lines.length > 0) out.push({ tx: tx.label, check: name, lines });
    } catch (error) {
      if (!(error instanceof PremiseError)) throw error;
      out.push({ tx: tx.label, check: `${name} (premise)`, lines: [error.message] });
    }
  };
  const [theirReceipt, ourReceipt] = (await both('eth_getTransactionReceipt', [tx.hash])) as [Obj, Obj];
  check('receipt', () => receiptFields(theirReceipt), receiptFields(ourReceipt));

  const [theirFlat, ourFlat] = (await both('trace_transaction', [tx.hash])) as [Entry[], Entry[]];
  const ownHash = (entries: Entry[], hash: Json): Entry[] =>
    entries.map((e) => {
      if (e.blockHash !== hash) throw new PremiseError(`blockHash ${String(e.blockHash)} is not the block's own ${String(hash)}`);
      return { ...e, blockHash: 'own block hash' };
    });
  check('trace_transaction', () => parityAsOurs(normalizeParity(ownHash(clone(theirFlat), theirReceipt.blockHash!)), ourFlat), ownHash(ourFlat, ourReceipt.blockHash!));

  const [theirCalls, ourCalls] = await both('debug_traceTransaction', [tx.hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  check('callTracer', () => callTracerAsGeth(theirCalls, ourCalls, ourFlat[0]?.action.gas ?? null, { gasUsed: ourReceipt.gasUsed!, cumulativeGasUsed: ourReceipt.cumulativeGasUsed! }), ourCalls);

  const ourLogIndices = collectLogIndices(ourCalls as Obj).sort((a, b) => a - b);
  const receiptLogIndices = (ourReceipt.logs as Obj[]).map((log) => Number(log.logIndex));
  check('callTracer log index = receipt logIndex', () => receiptLogIndices, ourLogIndices);
  const outOfGas = JSON.stringify(ourCalls).includes('"error":"out of gas"');
  const failedCreate = hasFailedCreate(ourCalls as Obj);

  const [theirPre, ourPre] = (await both('debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer' }])) as [Obj, Obj];
  const actualPre = clone(ourPre);
  dropCodeHash(actualPre);
  check('prestateTracer', () => {
    const expected = clone(theirPre);
    dropEmptyAccounts(expected);
    dropFailedSstoreSlots(expected, actualPre, outOfGas);
    addFailedCreateTargets(expected, actualPre, failedCreate);
    return expected;
  }, actualPre);

  const [theirDiff, ourDiff] = (await both('debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])) as [{ pre: Obj; post: Obj }, { pre: Obj; post: Obj }];
  const actualDiff = clone(ourDiff);
  dropCodeHash(actualDiff.pre);
  dropCodeHash(actualDiff.post);
  check('prestateTracer diffMode', () => {
    const expected = clone(theirDiff);
    dropEmptyAccounts(expected.pre);
    dropFailedSstoreSlots(expected.pre, actualDiff.pre, outOfGas);
    return expected;
  }, actualDiff);

  // anvil has no trace_replayTransaction: its block replay's item for this transaction stands in.
  const theirBlock = resultOf('anvil', 'trace_replayBlockTransactions', await pair.anvilRpc('trace_replayBlockTransactions', [theirReceipt.blockNumber, ['trace', 'stateDiff']])) as Obj[];
  const ourReplay = resultOf('ours', 'trace_replayTransaction', await pair.ourRpc('trace_replayTransaction', [tx.hash, ['trace', 'stateDiff']])) as Obj;
  const theirReplay = theirBlock[Number(theirReceipt.transactionIndex)]!;
  check('trace_replayTransaction', () => {
    const { transactionHash, ...rest } = clone(theirReplay);
    if (transactionHash !== tx.hash) throw new PremiseError(`replay item is for ${String(transactionHash)}`);
    const trace = parityAsOurs(normalizeParity(replayTraceFromTransaction(rest.trace as Entry[], clone(theirFlat))), ourReplay.trace as Entry[]);
    return { ...rest, trace, stateDiff: bornAsParity(rest.stateDiff as Diff, ourReplay.stateDiff as Diff) };
  }, ourReplay);
  return out;
}

/** `index` of every log in a callTracer tree (the logs of failed frames are already gone). */
function collectLogIndices(frame: Obj): number[] {
  const own = ((frame.logs as Obj[] | undefined) ?? []).map((log) => Number(log.index));
  return [...own, ...((frame.calls as Obj[] | undefined) ?? []).flatMap(collectLogIndices)];
}

/** Mismatches as text, grouped by transaction. */
export function mismatchText(mismatches: Mismatch[]): string {
  return mismatches.map((m) => [`${m.tx}: ${m.check}`, ...m.lines.map((l) => `    ${l}`)].join('\n')).join('\n');
}

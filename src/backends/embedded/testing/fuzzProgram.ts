// Test support for the trace fuzzer: the model of a generated program (three contracts and blocks
// of transactions), its rendering to bytecode with evmAssembler, and a readable listing for
// failure messages. Generation lives in fuzzProgramArbitrary.ts, execution in fuzzTraceRunner.ts.
import { type AsmItem, assemble, deployCode } from './evmAssembler.js';

/** Something an op or transaction points at; `fresh` accounts are unique to one program run. */
export type Target =
  | { to: 'contract'; index: number }
  | { to: 'precompile'; n: number }
  | { to: 'account' }
  | { to: 'fresh'; n: number }
  | { to: 'self' };

export type CallKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL';

/** A stack-neutral step of a generated contract. */
export type Op =
  | { op: 'sstore'; slot: number; value: bigint }
  | { op: 'sload'; slot: number }
  | { op: 'mstore'; offset: number; value: bigint }
  | { op: 'log'; topics: number; offset: number; size: number }
  | { op: 'keccak'; offset: number; size: number }
  | { op: 'ext'; kind: 'BALANCE' | 'EXTCODESIZE' | 'EXTCODEHASH' | 'EXTCODECOPY'; of: Target }
  | { op: 'returndatacopy'; size: number }
  | { op: 'call'; kind: CallKind; to: Target; value: bigint; gas: number | 'all'; args: [number, number, number, number] }
  | { op: 'create'; kind: 'CREATE' | 'CREATE2'; salt: bigint; value: bigint; init: Init; thenCall: boolean };

/** How a contract's code ends. */
export type End =
  | { end: 'stop' }
  | { end: 'return' | 'revert'; offset: number; size: number }
  | { end: 'invalid' | 'undefined' | 'badjump' | 'spin' | 'underflow' }
  | { end: 'selfdestruct'; to: Target };

export interface Code {
  body: Op[];
  end: End;
}

/** Init code: `body`, then deploy `runtime` or end another way. */
export interface Init {
  body: Op[];
  end: 'deploy' | 'deployEF' | 'deployTooBig' | 'revert' | 'invalid' | 'spin' | 'stop';
  runtime: Code;
}

export type Tx =
  | { tx: 'call'; from: number; to: Target; value: bigint; gas: 'ample' | number; data: string }
  | { tx: 'create'; from: number; init: Init; value: bigint; gas: 'ample' | number };

export interface Program {
  /** Deployed (funded) by dev account 0 in a block of their own before `blocks`. */
  contracts: Code[];
  blocks: Tx[][];
}

/** Addresses a rendering needs. */
export interface RenderContext {
  contracts: string[];
  account: string;
  freshPrefix: string;
}

export const AMPLE_GAS = 3_000_000n;
const INIT_MEMORY = 0x400;

function address(target: Target, ctx: RenderContext): AsmItem[] {
  switch (target.to) {
    case 'contract':
      return [{ push: BigInt(ctx.contracts[target.index]!) }];
    case 'precompile':
      return [{ push: target.n }];
    case 'account':
      return [{ push: BigInt(ctx.account) }];
    case 'fresh':
      return [{ push: freshAddress(target.n, ctx) }];
    case 'self':
      return ['ADDRESS'];
  }
}

export function freshAddress(n: number, ctx: RenderContext): bigint {
  return BigInt(`${ctx.freshPrefix}${n.toString(16).padStart(8, '0')}`);
}

/** MSTOREs that put `bytes` in memory at `at`. */
function storeBytes(bytes: Uint8Array, at: number): AsmItem[] {
  const out: AsmItem[] = [];
  for (let i = 0; i < bytes.length; i += 32) {
    const word = new Uint8Array(32);
    word.set(bytes.subarray(i, i + 32));
    out.push({ push: BigInt(`0x${Buffer.from(word).toString('hex')}`) }, { push: at + i }, 'MSTORE');
  }
  return out;
}

function renderOp(op: Op, ctx: RenderContext): AsmItem[] {
  switch (op.op) {
    case 'sstore':
      return [{ push: op.value }, { push: op.slot }, 'SSTORE'];
    case 'sload':
      return [{ push: op.slot }, 'SLOAD', 'POP'];
    case 'mstore':
      return [{ push: op.value }, { push: op.offset }, 'MSTORE'];
    case 'log': {
      const topics: AsmItem[] = Array.from({ length: op.topics }, (_, i) => ({ push: BigInt(0x70 + i) * 2n ** 248n + BigInt(i) }));
      return [...topics, { push: op.size }, { push: op.offset }, `LOG${op.topics}`];
    }
    case 'keccak':
      return [{ push: op.size }, { push: op.offset }, 'KECCAK256', 'POP'];
    case 'ext':
      if (op.kind === 'EXTCODECOPY') return [{ push: 32 }, { push: 0 }, { push: 0x100 }, ...address(op.of, ctx), 'EXTCODECOPY'];
      return [...address(op.of, ctx), op.kind, 'POP'];
    case 'returndatacopy':
      return [{ push: op.size }, { push: 0 }, { push: 0x100 }, 'RETURNDATACOPY'];
    case 'call': {
      const [inOffset, inSize, outOffset, outSize] = op.args;
      const value: AsmItem[] = op.kind === 'CALL' || op.kind === 'CALLCODE' ? [{ push: op.value }] : [];
      const gas: AsmItem = op.gas === 'all' ? 'GAS' : { push: op.gas };
      return [{ push: outSize }, { push: outOffset }, { push: inSize }, { push: inOffset }, ...value, ...address(op.to, ctx), gas, op.kind, 'POP'];
    }
    case 'create': {
      const init = renderInit(op.init, ctx);
      const salt: AsmItem[] = op.kind === 'CREATE2' ? [{ push: op.salt }] : [];
      const call: AsmItem[] = op.thenCall ? [{ push: 0 }, { push: 0 }, { push: 0 }, { push: 0 }, { push: 0 }, 'DUP6', 'GAS', 'CALL', 'POP'] : [];
      return [...storeBytes(init, INIT_MEMORY), ...salt, { push: init.length }, { push: INIT_MEMORY }, { push: op.value }, op.kind, ...call, 'POP'];
    }
  }
}

function renderEnd(end: End, ctx: RenderContext, label: () => string): AsmItem[] {
  switch (end.end) {
    case 'stop':
      return ['STOP'];
    case 'return':
    case 'revert':
      return [{ push: end.size }, { push: end.offset }, end.end === 'return' ? 'RETURN' : 'REVERT'];
    case 'invalid':
      return ['INVALID'];
    case 'undefined':
      return [{ raw: Uint8Array.of(0x0c) }];
    case 'badjump':
      return [{ push: 0xfff0 }, 'JUMP'];
    case 'spin': {
      const loop = label();
      return [{ label: loop }, 'JUMPDEST', { pushLabel: loop }, 'JUMP'];
    }
    case 'underflow':
      return ['POP'];
    case 'selfdestruct':
      return [...address(end.to, ctx), 'SELFDESTRUCT'];
  }
}

function items(code: Code, ctx: RenderContext): AsmItem[] {
  let labels = 0;
  const label = (): string => `l${labels++}`;
  return [...code.body.flatMap((op) => renderOp(op, ctx)), ...renderEnd(code.end, ctx, label)];
}

export function renderCode(code: Code, ctx: RenderContext): Uint8Array {
  return assemble(items(code, ctx));
}

export function renderInit(init: Init, ctx: RenderContext): Uint8Array {
  const prelude = items({ body: init.body, end: { end: 'stop' } }, ctx).slice(0, -1);
  switch (init.end) {
    case 'deploy':
      return deployCode(renderCode(init.runtime, ctx), prelude);
    case 'deployEF':
      return assemble([...prelude, { push: 0xef }, { push: 0 }, 'MSTORE8', { push: 1 }, { push: 0 }, 'RETURN']);
    case 'deployTooBig':
      return assemble([...prelude, { push: 0x6001 }, { push: 0 }, 'RETURN']);
    case 'revert':
      return assemble([...prelude, { push: 0xdeadn }, { push: 0 }, 'MSTORE', { push: 32 }, { push: 0 }, 'REVERT']);
    case 'invalid':
    case 'spin':
    case 'stop':
      return assemble(items({ body: init.body, end: { end: init.end } }, ctx));
  }
}

// Readable listing.

function targetText(t: Target): string {
  switch (t.to) {
    case 'contract':
      return `C${t.index}`;
    case 'precompile':
      return `precompile 0x${t.n.toString(16)}`;
    case 'account':
      return 'existing EOA';
    case 'fresh':
      return `fresh#${t.n}`;
    case 'self':
      return 'self';
  }
}

const big = (v: bigint): string => (v > 10n ** 6n ? `0x${v.toString(16)}` : String(v));

function opText(op: Op, indent: string): string[] {
  switch (op.op) {
    case 'sstore':
      return [`${indent}SSTORE [${op.slot}] = ${big(op.value)}`];
    case 'sload':
      return [`${indent}SLOAD [${op.slot}]`];
    case 'mstore':
      return [`${indent}MSTORE mem[${op.offset}] = ${big(op.value)}`];
    case 'log':
      return [`${indent}LOG${op.topics} mem[${op.offset}..+${op.size}]`];
    case 'keccak':
      return [`${indent}KECCAK256 mem[${op.offset}..+${op.size}]`];
    case 'ext':
      return [`${indent}${op.kind} ${targetText(op.of)}`];
    case 'returndatacopy':
      return [`${indent}RETURNDATACOPY ${op.size} bytes`];
    case 'call':
      return [`${indent}${op.kind} ${targetText(op.to)} value=${big(op.value)} gas=${op.gas} in=mem[${op.args[0]}..+${op.args[1]}] out=mem[${op.args[2]}..+${op.args[3]}]`];
    case 'create':
      return [`${indent}${op.kind}${op.kind === 'CREATE2' ? ` salt=${op.salt}` : ''} value=${big(op.value)}${op.thenCall ? ', then CALL the new address' : ''}, init:`, ...initText(op.init, `${indent}    `)];
  }
}

function endText(end: End): string {
  switch (end.end) {
    case 'return':
    case 'revert':
      return `${end.end.toUpperCase()} mem[${end.offset}..+${end.size}]`;
    case 'selfdestruct':
      return `SELFDESTRUCT to ${targetText(end.to)}`;
    default:
      return end.end.toUpperCase();
  }
}

function codeText(code: Code, indent: string): string[] {
  return [...code.body.flatMap((op) => opText(op, indent)), `${indent}${endText(code.end)}`];
}

function initText(init: Init, indent: string): string[] {
  const runtime = init.end === 'deploy' ? [`${indent}deploy runtime:`, ...codeText(init.runtime, `${indent}    `)] : [`${indent}${init.end.toUpperCase()}`];
  return [...init.body.flatMap((op) => opText(op, indent)), ...runtime];
}

/** The program as an indented listing. */
export function programText(p: Program): string {
  const lines: string[] = [];
  p.contracts.forEach((c, i) => lines.push(`contract C${i}:`, ...codeText(c, '    ')));
  p.blocks.forEach((block, b) => {
    lines.push(`block ${b + 1}:`);
    for (const tx of block) {
      const gas = tx.gas === 'ample' ? 'ample gas' : `intrinsic + ${tx.gas} gas`;
      if (tx.tx === 'call') lines.push(`    tx from dev${tx.from} to ${targetText(tx.to)} value=${big(tx.value)} ${gas} data=${tx.data}`);
      else lines.push(`    tx from dev${tx.from} creates, value=${big(tx.value)} ${gas}, init:`, ...initText(tx.init, '        '));
    }
  });
  return lines.join('\n');
}

/** Intrinsic gas of a Prague transaction, floor (EIP-7623) included. */
export function intrinsicGas(data: Uint8Array, create: boolean): bigint {
  const zeros = BigInt(data.filter((b) => b === 0).length);
  const nonZeros = BigInt(data.length) - zeros;
  let gas = 21_000n + zeros * 4n + nonZeros * 16n;
  if (create) gas += 32_000n + 2n * BigInt(Math.ceil(data.length / 32));
  const floor = 21_000n + 10n * (zeros + 4n * nonZeros);
  return gas > floor ? gas : floor;
}

// The opcode hooks a recorder installs through the probe: CALL-family and CREATE-family opcodes
// (frame kind, gas handed over, calls that never start), SELFDESTRUCT and LOG (pseudo-frames and
// logs), and, when state is recorded, the lookups of geth's prestate rules (SLOAD/SSTORE,
// BALANCE, EXTCODE*, call and create targets), plus the gas checks geth makes before refusing a
// write in a static context or a RETURNDATACOPY past the data (gethGasFirst.ts). The trackers keep the results.
import { Address, bigIntToBytes, generateAddress, generateAddress2, setLengthLeft } from '@ethereumjs/util';
import type { FrameTracker, PendingOpcodeFrame } from './frameTracker.js';
import { OP } from './opcodeInfo.js';
import type { GasHook, OpcodeHook, ProbeRunState } from './opcodeProbe.js';
import type { StateTracker } from './stateTracker.js';
import { STATIC_WRITE_OPS, type StaticWriteRunState, returnDataCopyGasFailure, staticWriteGasFailure } from './gethGasFirst.js';
import type { StepTracker } from './stepTracker.js';
import type { FrameKind } from './types.js';

export interface ProbeHookContext {
  frames: FrameTracker;
  state: StateTracker | undefined;
  steps: StepTracker | undefined;
  /** EIP-7702 is active: a CALL target's delegation target is touched too. */
  prague: boolean;
  /** Gas added to the child of a value-moving CALL/CALLCODE. */
  stipend: bigint;
  /** The EIP-2200 sentry (Istanbul+), or undefined before it. */
  sentryGas: bigint | undefined;
  /** EIP-2929 gas rules (Berlin+): refused static writes and RETURNDATACOPY past the data get geth's gas-first error. */
  staticWriteGas: boolean;
}

const CALL_KINDS: ReadonlyMap<number, FrameKind> = new Map([
  [OP.CALL, 'CALL'],
  [OP.CALLCODE, 'CALLCODE'],
  [OP.DELEGATECALL, 'DELEGATECALL'],
  [OP.STATICCALL, 'STATICCALL'],
]);

function stackAddress(word: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(word & ((1n << 160n) - 1n)), 20));
}

function readMemory(rs: ProbeRunState, offset: bigint, length: bigint): Uint8Array {
  if (length === 0n) return new Uint8Array(0);
  return Uint8Array.from(rs.memory.read(Number(offset), Number(length)));
}

/** Hooks (opcode → around-advice) and gas hooks for one recording session. */
export function createProbeHooks(ctx: ProbeHookContext): { hooks: Map<number, OpcodeHook>; gasHooks: Map<number, GasHook> } {
  const { frames, state, steps, prague, stipend, sentryGas, staticWriteGas } = ctx;

  const callHook =
    (op: number): OpcodeHook =>
    async (rs, next) => {
      const kind = CALL_KINDS.get(op)!;
      const withValue = op === OP.CALL || op === OP.CALLCODE;
      const s = rs.stack.peek(withValue ? 7 : 6);
      const value = withValue ? s[2]! : op === OP.DELEGATECALL ? (rs.env as unknown as { callValue: bigint }).callValue : 0n;
      const [inOffset, inLength] = withValue ? [s[3]!, s[4]!] : [s[2]!, s[3]!];
      const target = stackAddress(s[1]!);
      if (state) await state.lookupAccount(target, prague);
      const requested = rs.messageGasLimit ?? 0n;
      const pending: PendingOpcodeFrame = {
        kind,
        frameCountBefore: frames.frames.length,
        gas: requested + (withValue && value !== 0n ? stipend : 0n),
        requestedGas: requested,
        value,
        target: target.bytes,
        readInput: () => readMemory(rs, inOffset, inLength),
        depthExceeded: rs.env.depth >= 1024,
        nonceOverflow: false,
      };
      await runFrameOpcode(rs, pending, next);
    };

  const createHook =
    (op: number): OpcodeHook =>
    async (rs, next) => {
      const s = rs.stack.peek(op === OP.CREATE2 ? 4 : 3);
      const [value, offset, length] = [s[0]!, s[1]!, s[2]!];
      if (state) {
        const self = rs.env.address;
        const created =
          op === OP.CREATE2
            ? new Address(generateAddress2(self.bytes, setLengthLeft(bigIntToBytes(s[3]!), 32), readMemory(rs, offset, length)))
            : new Address(generateAddress(self.bytes, bigIntToBytes(rs.env.contract.nonce)));
        await state.lookupAccount(created);
        state.markCreated(created);
      }
      const requested = rs.messageGasLimit ?? 0n;
      const pending: PendingOpcodeFrame = {
        kind: op === OP.CREATE2 ? 'CREATE2' : 'CREATE',
        frameCountBefore: frames.frames.length,
        gas: requested,
        requestedGas: requested,
        value,
        target: undefined,
        readInput: () => readMemory(rs, offset, length),
        depthExceeded: rs.env.depth >= 1024,
        nonceOverflow: rs.env.contract.balance >= value && rs.env.contract.nonce >= 2n ** 64n - 1n,
      };
      await runFrameOpcode(rs, pending, next);
    };

  async function runFrameOpcode(rs: ProbeRunState, pending: PendingOpcodeFrame, next: () => Promise<void> | void): Promise<void> {
    const parent = frames.current();
    frames.opcodeStart(pending);
    steps?.onCallOpcode(parent, pending.requestedGas);
    await next();
    const before = frames.frames.length;
    frames.opcodeEnd(pending);
    if (frames.frames.length !== before) steps?.onCallNeverStarted(parent);
    void rs;
  }

  const selfDestructHook: OpcodeHook = async (rs, next) => {
    const beneficiary = stackAddress(rs.stack.peek(1)[0]!);
    if (state) await state.lookupAccount(beneficiary);
    frames.selfDestruct(beneficiary.bytes, rs.env.contract.balance);
    await next();
  };

  const logHook =
    (op: number): OpcodeHook =>
    (rs, next) => {
      const s = rs.stack.peek(2 + op - OP.LOG0);
      next();
      const topics = s.slice(2).map((t) => setLengthLeft(bigIntToBytes(t), 32));
      frames.log(rs.env.address.bytes, topics, readMemory(rs, s[0]!, s[1]!));
    };

  const storageHook =
    (op: number): OpcodeHook =>
    async (rs, next) => {
      const s = rs.stack.peek(op === OP.SSTORE ? 2 : 1);
      await state!.lookupStorage(rs.interpreter.getAddress(), s[0]!, op === OP.SSTORE ? s[1] : undefined);
      await next();
    };

  const accountHook: OpcodeHook = async (rs, next) => {
    await state!.lookupAccount(stackAddress(rs.stack.peek(1)[0]!));
    await next();
  };

  const hooks = new Map<number, OpcodeHook>();
  for (const op of CALL_KINDS.keys()) hooks.set(op, callHook(op));
  hooks.set(OP.CREATE, createHook(OP.CREATE));
  hooks.set(OP.CREATE2, createHook(OP.CREATE2));
  hooks.set(OP.SELFDESTRUCT, selfDestructHook);
  for (let op = OP.LOG0; op <= OP.LOG4; op++) hooks.set(op, logHook(op));
  if (state) {
    hooks.set(OP.SLOAD, storageHook(OP.SLOAD));
    hooks.set(OP.SSTORE, storageHook(OP.SSTORE));
    for (const op of [OP.BALANCE, OP.EXTCODESIZE, OP.EXTCODECOPY, OP.EXTCODEHASH]) hooks.set(op, accountHook);
  }
  const gasHooks = new Map<number, GasHook>();
  if (sentryGas !== undefined) {
    gasHooks.set(OP.SSTORE, (rs) => {
      if (rs.interpreter.getGasLeft() <= sentryGas) frames.markSentry();
    });
  }
  if (staticWriteGas) {
    for (const op of STATIC_WRITE_OPS) {
      const before = gasHooks.get(op);
      gasHooks.set(op, async (rs) => {
        await before?.(rs);
        const failure = await staticWriteGasFailure(rs as unknown as StaticWriteRunState);
        if (failure) frames.markGasFirstFailure(failure);
      });
    }
    gasHooks.set(OP.RETURNDATACOPY, (rs) => {
      const failure = returnDataCopyGasFailure(rs as unknown as StaticWriteRunState);
      if (failure) frames.markGasFirstFailure(failure);
    });
  }
  return { hooks, gasHooks };
}

// The recorder: attaches to one VM for one transaction and produces its ExecutionRecord. Message
// events and the opcode probe are always on (they are cheap); state lookups only when a renderer
// needs touched accounts; the per-opcode `step` listener only when a renderer needs steps.
import type { Block } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Capability } from '@ethereumjs/tx';
import {
  Address,
  bigIntToBytes,
  eoaCode7702RecoverAuthority,
  generateAddress,
  generateAddress2,
  setLengthLeft,
  type EOACode7702AuthorizationListBytesItem,
} from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { createFrameTracker, type PendingOpcodeFrame } from './frameTracker.js';
import { OP } from './opcodeInfo.js';
import { installOpcodeProbe, type GasHook, type OpcodeHook, type ProbeRunState } from './opcodeProbe.js';
import { createStateTracker } from './stateTracker.js';
import { createStepTracker } from './stepTracker.js';
import type { ExecutionRecord, FrameKind, RecordNeeds } from './types.js';

/** One recording session on one VM. */
export interface Recorder {
  /** Reads the transaction-level accounts (before gas is bought) and starts listening. */
  start(tx: TypedTransaction, block: Block): Promise<void>;
  /** Builds the record from runTx's result (reads post-state when state is recorded). */
  finish(result: RunTxResult): Promise<ExecutionRecord>;
  /** Removes every listener and restores the opcode table. Safe to call twice. */
  detach(): void;
}

const NO_FRAME_OUTPUT_KINDS = new Set(['revert', 'codeStoreOutOfGas', 'maxCodeSizeExceeded', 'invalidCodePrefix', 'createCollision', 'initCodeSizeExceeded']);
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

/** Gas price the sender actually paid per unit (legacy price, or base fee + effective tip). */
function effectiveGasPrice(tx: TypedTransaction, block: Block): bigint {
  const baseFee = block.header.baseFeePerGas;
  if ('maxFeePerGas' in tx && baseFee !== undefined) {
    const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee;
    return baseFee + tip;
  }
  return 'gasPrice' in tx ? tx.gasPrice : 0n;
}

/** Attaches a recorder for `needs` to `vm`. Call `start`, run the transaction, then `finish`. */
export function attachRecorder(vm: VM, needs: RecordNeeds): Recorder {
  const evm = vm.evm as EVM;
  const common = vm.common;
  const sm = vm.stateManager;
  const prague = common.isActivatedEIP(7702);
  const frames = createFrameTracker({ frontier: !common.gteHardfork(Hardfork.Homestead) });
  // EIP-2200's sentry applies from Istanbul on (Constantinople's EIP-1283 had none).
  const sentryGas = common.gteHardfork(Hardfork.Istanbul) ? common.param('sstoreSentryEIP2200Gas') : undefined;
  const state = needs.state ? createStateTracker(sm) : undefined;
  const steps = needs.steps ? createStepTracker(needs.steps, sm) : undefined;
  const frameCode: Uint8Array[] = [];
  const stipend = common.param('callStipendGas');
  let tx: TypedTransaction | undefined;
  let block: Block | undefined;
  let uninstall: (() => void) | undefined;

  const onBeforeMessage = (message: Message): void => {
    const parent = frames.current();
    frames.beforeMessage(message);
    steps?.onFrameStart(frames.current(), parent);
  };

  const onAfterMessage = (result: EVMResult): void => {
    const index = frames.current();
    const message = frames.afterMessage(result);
    const frame = frames.frames[index];
    if (!frame || !steps) return;
    frameCode[index] = message?.code instanceof Uint8Array ? message.code : new Uint8Array(0);
    const exec = result.execResult;
    const runState = exec.runState as { stack?: { getStack(): bigint[] }; memory?: { _store: Uint8Array } } | undefined;
    const error = frame.error;
    const returnsData = !error || error.kind === 'revert';
    steps.onFrameEnd(index, frame.parent, {
      gasLeft: exec.gas ?? frame.gas - frame.gasUsed,
      stack: runState?.stack?.getStack(),
      memory: runState?.memory?._store,
      haltedAtLastStep: error && !NO_FRAME_OUTPUT_KINDS.has(error.kind) ? error : undefined,
      returnData: returnsData && !(frame.kind.startsWith('CREATE') && !error) ? frame.output : new Uint8Array(0),
    });
  };

  const onStep = (event: InterpreterStep, resolve?: (result?: unknown) => void): void => {
    void steps!.onStep(event, frames.current()).then(() => resolve?.(), () => resolve?.());
  };

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

  function buildHooks(): Map<number, OpcodeHook> {
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
    return hooks;
  }

  function buildGasHooks(): Map<number, GasHook> {
    const gasHooks = new Map<number, GasHook>();
    if (sentryGas !== undefined) {
      gasHooks.set(OP.SSTORE, (rs) => {
        if (rs.interpreter.getGasLeft() <= sentryGas) frames.markSentry();
      });
    }
    return gasHooks;
  }

  async function lookupTxAccounts(t: TypedTransaction, b: Block): Promise<void> {
    if (!state) return;
    const from = t.getSenderAddress();
    await state.lookupAccount(from);
    if (t.to) await state.lookupAccount(t.to, prague);
    else {
      const account = await sm.getAccount(from);
      const created = new Address(generateAddress(from.bytes, bigIntToBytes(account?.nonce ?? 0n)));
      await state.lookupAccount(created);
      state.markCreated(created);
    }
    await state.lookupAccount(b.header.coinbase);
    if (t.supports(Capability.EIP7702EOACode)) {
      const list = (t as unknown as { authorizationList: EOACode7702AuthorizationListBytesItem[] }).authorizationList;
      for (const item of list) {
        try {
          await state.lookupAccount(eoaCode7702RecoverAuthority(item), true);
        } catch {
          // An invalid authorization is skipped by the EVM too.
        }
      }
    }
  }

  let detached = false;
  function detach(): void {
    if (detached) return;
    detached = true;
    evm.events.off('beforeMessage', onBeforeMessage);
    evm.events.off('afterMessage', onAfterMessage);
    if (steps) evm.events.off('step', onStep);
    uninstall?.();
  }

  return {
    async start(t, b) {
      tx = t;
      block = b;
      await lookupTxAccounts(t, b);
      evm.events.on('beforeMessage', onBeforeMessage);
      evm.events.on('afterMessage', onAfterMessage);
      if (steps) evm.events.on('step', onStep);
      uninstall = installOpcodeProbe(evm, buildHooks(), buildGasHooks());
    },

    async finish(result) {
      detach();
      if (!tx || !block) throw new Error('recorder finished before it started');
      if (state) await state.finish();
      const root = frames.frames[0];
      return {
        tx: {
          from: tx.getSenderAddress().bytes,
          to: tx.to?.bytes,
          value: tx.value,
          gasLimit: tx.gasLimit,
          intrinsicGas: tx.getIntrinsicGas(),
          gasUsed: result.totalGasSpent,
          executionGasUsed: result.execResult.executionGasUsed,
          gasPrice: effectiveGasPrice(tx, block),
          output: root?.output ?? result.execResult.returnValue,
          error: root?.error,
          createdAddress: result.createdAddress?.bytes,
        },
        frames: frames.frames,
        logs: frames.logs,
        accounts: state?.accounts,
        steps: steps?.steps,
        frameCode: steps ? frameCode : undefined,
        hardfork: common.hardfork(),
      };
    },

    detach,
  };
}

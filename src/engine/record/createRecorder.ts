// The recorder: attaches to one VM for one transaction and produces its ExecutionRecord. Message
// events and the opcode probe are always on (they are cheap); state lookups only when a renderer
// needs touched accounts; the per-opcode `step` listener only when a renderer needs steps. A spent
// budget stops the execution: the next step event (or frame, for frame data) throws its error out
// of the EVM.
import type { Block } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Capability } from '@ethereumjs/tx';
import {
  Address,
  bigIntToBytes,
  bytesToBigInt,
  eoaCode7702RecoverAuthority,
  generateAddress,
  setLengthLeft,
  type EOACode7702AuthorizationListBytesItem,
} from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { NO_FRAME_OUTPUT_KINDS } from './frameError.js';
import { createFrameTracker } from './frameTracker.js';
import { installOpcodeProbe } from './opcodeProbe.js';
import { createProbeHooks } from './probeHooks.js';
import { createStateTracker } from './stateTracker.js';
import { createStepTracker } from './stepTracker.js';
import type { ExecutionRecord, RecordNeeds } from './types.js';
import { senderOf } from '../chain/txSender.js';

/** One recording session on one VM. */
export interface Recorder {
  /** Reads the transaction-level accounts (before gas is bought) and starts listening. */
  start(tx: TypedTransaction, block: Block): Promise<void>;
  /** Builds the record from runTx's result (reads post-state when state is recorded). */
  finish(result: RunTxResult): Promise<ExecutionRecord>;
  /** Removes every listener and restores the opcode table. Safe to call twice. */
  detach(): void;
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
  const pairingGas = common.gteHardfork(Hardfork.Byzantium) ? { base: common.param('bn254PairingGas'), perPair: common.param('bn254PairingWordGas') } : undefined;
  const frames = createFrameTracker({ frontier: !common.gteHardfork(Hardfork.Homestead), eip3541: common.isActivatedEIP(3541), pairingGas, bounds: needs.frames });
  // EIP-2200's sentry applies from Istanbul on (Constantinople's EIP-1283 had none).
  const sentryGas = common.gteHardfork(Hardfork.Istanbul) ? common.param('sstoreSentryEIP2200Gas') : undefined;
  const state = needs.state ? createStateTracker(sm) : undefined;
  const steps = needs.steps
    ? createStepTracker(needs.steps, async (address, key) => bytesToBigInt(await sm.getStorage(address, setLengthLeft(bigIntToBytes(key), 32))))
    : undefined;
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
    // A copy: a create's code is a view of its parent's memory, which the parent's next opcodes overwrite.
    frameCode[index] = message?.code instanceof Uint8Array ? Uint8Array.from(message.code) : new Uint8Array(0);
    steps.onFrameCode(frameCode[index]);
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
    // Thrown synchronously, the error rejects the EVM's step emit and ends the run (like a timeout).
    const refused = steps!.refusal();
    if (refused) throw refused;
    void steps!.onStep(event, frames.current()).then(() => resolve?.(), () => resolve?.());
  };

  async function lookupTxAccounts(t: TypedTransaction, b: Block): Promise<void> {
    if (!state) return;
    const from = senderOf(t);
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
      const probe = createProbeHooks({ frames, state, steps, prague, stipend, sentryGas, staticWriteGas: common.isActivatedEIP(2929) });
      uninstall = installOpcodeProbe(evm, probe.hooks, probe.gasHooks);
    },

    async finish(result) {
      detach();
      if (!tx || !block) throw new Error('recorder finished before it started');
      // The last steps (or frame ends) may have spent the budget with no step left to throw it.
      const refused = steps?.refusal();
      if (refused) throw refused;
      if (state) await state.finish();
      const root = frames.frames[0];
      return {
        tx: {
          from: senderOf(tx).bytes,
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
        ...(frames.incomplete() ? { incomplete: true as const } : {}),
      };
    },

    detach,
  };
}

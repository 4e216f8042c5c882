// The recorder built into the interpreter: its hooks (frame enter/exit, calls that never started,
// SELFDESTRUCT, logs and, when state is recorded, the accounts and slots each opcode touches) build
// the same ExecutionRecord as the ethereumjs recorder (record/createRecorder.ts), by the same rules:
// frames in execution order with geth's error kinds, logs with their position and index among the
// transaction's live logs, touched accounts with their state before and after the transaction.
// Steps (struct logs, vmTrace) are recorded by fastStepRecorder.ts through the same step tracker as
// ethereumjs's recorder. Halts whose geth error depends on a gas-first check ethereumjs's recorder
// makes (writes in a static context, RETURNDATACOPY past the data) are handed to ethereumjs as
// Unsupported, and so, while steps are recorded, is an opcode that fails to pay for memory near or
// past 4 GiB (ethereumjs shows its exact BigInt cost).
import { bytesToHex } from '@ethereumjs/util';
import { classifyHalt, isPairingPrecompile, type PairingGas, pairingHalt } from '../record/frameError.js';
import { createFrameDataCharge } from '../record/frameDataCharge.js';
import { selfDestructFrame } from '../record/selfDestructFrame.js';
import { slotKey } from '../record/stateTracker.js';
import type { AccountState, ExecutionRecord, FrameError, FrameKind, RecordedFrame, RecordedLog, RecordNeeds, TouchedAccount } from '../record/types.js';
import { type FastStepRecorder, type OpcodeTable, createFastStepRecorder } from './fastStepRecorder.js';
import type { FrameHooks, MessageResult, NotStartedCall, TouchHooks } from './message.js';
import type { ReplayBudget } from './replayBudget.js';
import { addressBytes, wordBytes } from './words.js';
import { Unsupported, type WorldState } from './worldState.js';

const EMPTY = new Uint8Array(0);
const SSTORE = 0x55;
const SENTRY_GAS = 2300;

export interface FastRecorderOptions {
  needs: RecordNeeds;
  /** Whether an address is an active precompile. */
  isPrecompile(address: bigint): boolean;
  /** BN254 pairing prices (a failed pairing call is classified as geth does). */
  pairingGas: PairingGas;
  /** The transaction's sender, recipient (undefined for a create) and the block's coinbase. */
  from: bigint;
  to: bigint | undefined;
  coinbase: bigint;
  /** The address a creation transaction creates. */
  created: bigint | undefined;
  /** ethereumjs's opcode table (steps only). */
  opcodes?: OpcodeTable;
  /** EIP-7702 is active (steps show a delegated frame's delegate's code). */
  delegation?: boolean;
  /**
   * The job's budget as a restarted run sees it (replayBudget.ts): `needs`' frame and step bounds
   * charge through it, so neither a restart after a state miss nor the ethereumjs run a hand-over
   * starts with it (`restart()` first) pays twice for what this run already charged.
   */
  replayBudget?: ReplayBudget;
}

/** What the driver knows once the transaction ran (runTx's figures). */
export interface FastRecordEnd {
  world: WorldState;
  gasUsed: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  intrinsicGas: bigint;
  value: bigint;
  hardfork: string;
}

export interface FastRecorder {
  hooks: FrameHooks;
  /** Builds the record; the world must already hold the transaction's post-state (refund and fee paid). */
  finish(end: FastRecordEnd): ExecutionRecord;
}

interface OpenFrame {
  index: number;
  /** The account the frame runs against (its children's `from`). */
  address: bigint;
  aliveLogsAtStart: number;
}

const isCreate = (kind: FrameKind): boolean => kind === 'CREATE' || kind === 'CREATE2';
const NOT_STARTED_TEXT: Record<NotStartedCall['reason'], string> = {
  callDepthExceeded: 'max call depth exceeded',
  insufficientBalance: 'insufficient balance for transfer',
  nonceOverflow: 'nonce uint64 overflow',
};

export function createFastRecorder(options: FastRecorderOptions): FastRecorder {
  let frames: RecordedFrame[] = [];
  let logs: RecordedLog[] = [];
  let open: OpenFrame[] = [];
  let aliveLogs = 0;
  let accounts = new Map<string, TouchedAccount>();
  let world: WorldState | undefined;
  // Traces charge frame data to the job's budget: a restarted run must not pay twice.
  const frameBounds = options.needs.frames;
  const replayBudget = options.replayBudget;
  const bounds = frameBounds?.kind === 'refuse' && replayBudget ? { ...frameBounds, budget: replayBudget } : frameBounds;
  let charge = createFrameDataCharge(bounds);
  const stepNeeds = options.needs.steps && {
    ...options.needs.steps,
    bounds: options.needs.steps.bounds && replayBudget ? { ...options.needs.steps.bounds, budget: replayBudget } : options.needs.steps.bounds,
  };
  const current = (): number => (open.length ? open[open.length - 1]!.index : -1);
  const steps: FastStepRecorder | undefined = stepNeeds && createFastStepRecorder({ needs: stepNeeds, opcodes: options.opcodes, world: () => world!, current, delegation: options.delegation === true });

  function addFrame(frame: RecordedFrame): number {
    const index = frames.length;
    frames.push(frame);
    if (frame.parent >= 0) frames[frame.parent]!.children.push(index);
    return index;
  }

  function accountEntry(address: bigint): TouchedAccount {
    const key = bytesToHex(addressBytes(address));
    let entry = accounts.get(key);
    if (!entry) {
      const base = world!.baseAccount(address);
      const pre: AccountState | undefined = base && { balance: base.balance, nonce: base.nonce, code: world!.baseCode(address, base.codeHash), codeHash: Uint8Array.from(base.codeHash) };
      entry = { address: addressBytes(address), pre, post: undefined, storage: new Map(), created: false };
      accounts.set(key, entry);
    }
    return entry;
  }

  const touches: TouchHooks = {
    account: (address) => void accountEntry(address),
    slot(address, slot, write) {
      const entry = accountEntry(address);
      const key = slotKey(slot);
      let record = entry.storage.get(key);
      const value = write ? write.current : world!.sload(world!.get(address), slot);
      if (!record) entry.storage.set(key, (record = { pre: value, post: undefined, dirty: false }));
      if (write && write.value !== write.current) record.dirty = true;
    },
    created(address) {
      accountEntry(address).created = true;
    },
  };

  function classify(result: MessageResult, frame: RecordedFrame): FrameError | undefined {
    if (result.error === undefined) return undefined;
    const halt = result.halt;
    let error = classifyHalt(
      { error: result.error },
      {
        opCode: halt?.op,
        stack: halt?.stack,
        returnDataLength: halt?.returnDataLength,
        returned: halt?.returned ?? false,
        refusedPrefix: halt?.refusedPrefix,
        isCreate: isCreate(frame.kind),
        precompile: frame.precompile,
        sentry: halt?.op === SSTORE && (halt.gasLeft ?? 0) <= SENTRY_GAS,
      },
    )!;
    // After its jump analysis ethereumjs's run state names an undefined opcode INVALID (0xfe).
    if (error.kind === 'invalidOpcode' && halt?.analysed) error.opcode = 0xfe;
    if (error.kind === 'writeProtection' || error.kind === 'returnDataOutOfBounds') throw new Unsupported('a halt geth classifies gas-first');
    if (frame.precompile && isPairingPrecompile(frame.to)) error = pairingHalt(error, frame.gas, frame.input.length, options.pairingGas);
    return error;
  }

  const hooks: FrameHooks = {
    reset() {
      frames = [];
      logs = [];
      open = [];
      aliveLogs = 0;
      accounts = new Map();
      world = undefined;
      replayBudget?.restart();
      charge = createFrameDataCharge(bounds);
      steps?.reset();
    },

    begin(w) {
      world = w;
      if (!options.needs.state) return;
      accountEntry(options.from);
      if (options.to !== undefined) accountEntry(options.to);
      else if (options.created !== undefined) touches.created(options.created);
      accountEntry(options.coinbase);
    },

    enter(message) {
      const parent = current();
      const create = message.kind === 'CREATE' || message.kind === 'CREATE2';
      const index = addFrame({
        parent,
        children: [],
        depth: message.depth,
        kind: message.kind,
        from: addressBytes(open.length ? open[open.length - 1]!.address : message.caller),
        to: create ? undefined : addressBytes(message.codeAddress),
        contextAddress: addressBytes(message.address),
        value: message.value,
        gas: BigInt(message.gas),
        gasUsed: 0n,
        input: Uint8Array.from(charge.charged(message.initCode ?? message.data, true)),
        output: EMPTY,
        error: undefined,
        precompile: false,
        started: true,
        logs: [],
        requestedGas: message.requestedGas === undefined ? undefined : BigInt(message.requestedGas),
      });
      open.push({ index, address: message.address, aliveLogsAtStart: aliveLogs });
      steps?.frameStart(index, parent);
    },

    exit(message, result) {
      const top = open.pop()!;
      const frame = frames[top.index]!;
      const create = isCreate(frame.kind);
      frame.precompile = !create && options.isPrecompile(message.codeAddress);
      frame.gasUsed = BigInt(message.gas - result.gasLeft);
      frame.output = charge.charged(result.output, false);
      if (create) frame.to = frame.contextAddress;
      const error = classify(result, frame);
      frame.error = error;
      if (error && error.kind !== 'revert') frame.output = EMPTY;
      if (error) aliveLogs = top.aliveLogsAtStart;
      steps?.frameExit(top.index, frame, message, result);
    },

    notStarted(call) {
      const parent = current();
      addFrame({
        parent,
        children: [],
        depth: call.depth,
        kind: call.kind,
        from: addressBytes(call.from),
        to: call.target === undefined ? undefined : addressBytes(call.target),
        contextAddress: undefined,
        value: call.value,
        gas: BigInt(call.gas),
        gasUsed: 0n,
        input: charge.charged(call.input, true),
        output: EMPTY,
        error: { kind: call.reason, message: NOT_STARTED_TEXT[call.reason] },
        precompile: false,
        started: false,
        logs: [],
        requestedGas: BigInt(call.requestedGas),
      });
      steps?.callNeverStarted(parent);
    },

    selfDestruct(address, beneficiary, balance) {
      const parent = current();
      addFrame(selfDestructFrame(parent, frames[parent]!.depth, addressBytes(address), addressBytes(beneficiary), balance));
    },

    log(address, topics, data) {
      const frame = current();
      const index = logs.length;
      logs.push({ frame, address: addressBytes(address), topics: topics.map(wordBytes), data, position: frames[frame]!.children.length, indexInTx: aliveLogs++ });
      frames[frame]!.logs.push(index);
    },

    touches: options.needs.state ? touches : undefined,
    steps: steps?.hooks,
  };

  function postOf(address: bigint): AccountState | undefined {
    const w = world!;
    if (!w.existsAfter(address)) return undefined;
    const account = w.get(address);
    return { balance: account.balance, nonce: account.nonce, code: w.code(account), codeHash: Uint8Array.from(w.codeHash(account)) };
  }

  return {
    hooks,
    finish(end) {
      const recorded = steps?.finish();
      const w = end.world;
      if (options.needs.state) {
        for (const entry of accounts.values()) {
          const address = BigInt(bytesToHex(entry.address));
          entry.post = postOf(address);
          const account = w.get(address);
          for (const [slot, record] of entry.storage) record.post = entry.post ? w.sload(account, BigInt(slot)) : 0n;
        }
      }
      const root = frames[0]!;
      return {
        tx: {
          from: addressBytes(options.from),
          to: options.to === undefined ? undefined : addressBytes(options.to),
          value: end.value,
          gasLimit: end.gasLimit,
          intrinsicGas: end.intrinsicGas,
          gasUsed: end.gasUsed,
          executionGasUsed: root.gasUsed,
          gasPrice: end.gasPrice,
          output: root.output,
          error: root.error,
          createdAddress: options.created === undefined ? undefined : addressBytes(options.created),
        },
        frames,
        logs,
        accounts: options.needs.state ? accounts : undefined,
        steps: recorded?.steps,
        frameCode: recorded?.frameCode,
        hardfork: end.hardfork,
        ...(charge.dropped() ? { incomplete: true as const } : {}),
      };
    },
  };
}

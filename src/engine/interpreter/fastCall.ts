// Runs a call transaction (eth_call's shape: no signature, no nonce check) on the synchronous
// interpreter over a VM's state, with ethereumjs's transaction rules (intrinsic gas, EIP-7623
// floor, up-front fee, warm sets, refund cap). State the execution needs is read through the VM's
// state manager between steps of the run, so the opcode loop never awaits: the interpreter is a
// generator, and an opcode about to read a slot, account or code not yet in memory yields that read
// (StateMiss); the driver loads it and resumes the run where it stopped. A read elsewhere that
// misses throws instead, and the execution starts again with it loaded. A long run also pauses
// every `yieldEveryMs` to give the event loop a turn, where a worker's cancel message lands.
// Returns undefined when the request needs something the core does not implement (the caller
// then runs it on ethereumjs, whose answer is the reference).
import type { Block } from '@ethereumjs/block';
import type { StateManagerInterface } from '@ethereumjs/common';
import { type Account, Address, KECCAK256_RLP, bigIntToBytes, equalsBytes, generateAddress } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { type CallFields, calldataFloorGas, fieldsInRange, intrinsicGas } from './callFields.js';
import { type ExecutionEnv, type FrameHooks, Interpreter, type SyncPrecompile, addressBytes, delegateOf, isDelegation } from './interpreter.js';
import { type BaseAccount, type BaseState, type Log, StateMiss, Unsupported, WorldState, accountLoads } from './worldState.js';
import { bytesToBig, wordBytes } from './words.js';
import { CachedStorageStateManager, type KnownAccount } from '../state/stateManagerAt.js';

const SUPPORTED_HARDFORKS = new Set(['cancun', 'prague', 'osaka']);
/** Restarts after state misses before the request goes to ethereumjs instead. */
const MAX_RESTARTS = 256;
const MAX_GAS = 2 ** 50;
const MAX_INITCODE = 49152;
const EMPTY = new Uint8Array(0);

/** The outcome in runTx's terms (CallOutcome's fields). */
export interface FastCallOutcome {
  returnValue: Uint8Array;
  gasUsed: bigint;
  gasRefund: bigint;
  /** ethereumjs's halt text (`revert`, `out of gas`, ...), undefined on success. */
  error: string | undefined;
  logs: Log[];
  createdAddress: bigint | undefined;
  /** The final view, for comparisons (fuzzer) and the recorder's post-state. */
  world: WorldState;
  /** Gas price the sender paid per unit (base fee + effective tip). */
  gasPrice: bigint;
  /** The transaction's intrinsic gas. */
  intrinsicGas: bigint;
  /** How many times the execution restarted to load state. */
  restarts: number;
  /** How many reads the execution stopped for and resumed after. */
  resumedLoads: number;
  /**
   * With `trackGasNeed`, after a success: the least gas limit at which the transaction takes the
   * same path (intrinsic gas, the EIP-7623 floor and the interpreter's gasNeed), or undefined when
   * this run cannot tell (a frame halted exceptionally).
   */
  gasNeeded?: bigint;
}

/** Base state read from a state manager ahead of each run; misses are loaded between runs. */
export class PrefetchedState implements BaseState {
  private readonly accounts = new Map<bigint, BaseAccount | undefined>();
  private readonly codes = new Map<bigint, Uint8Array>();
  private readonly slots = new Map<bigint, Map<bigint, bigint>>();

  /** The overlay's reads that skip ethereumjs's caches (this state keeps what it reads). */
  private readonly peek: CachedStorageStateManager | undefined;
  /** The accounts `peek` read, handed back when their code and slots are read. */
  private readonly known = new Map<bigint, KnownAccount>();

  constructor(private readonly stateManager: StateManagerInterface) {
    this.peek = stateManager instanceof CachedStorageStateManager ? stateManager : undefined;
  }

  account(address: bigint): BaseAccount | undefined {
    if (!this.accounts.has(address)) throw new StateMiss('account', address);
    return this.accounts.get(address);
  }

  code(address: bigint): Uint8Array {
    const code = this.codes.get(address);
    if (code === undefined) throw new StateMiss('code', address);
    return code;
  }

  storage(address: bigint, slot: bigint): bigint {
    const value = this.slots.get(address)?.get(slot);
    if (value === undefined) throw new StateMiss('storage', address, slot);
    return value;
  }

  holds(kind: StateMiss['kind'], address: bigint, slot = 0n): boolean {
    if (kind === 'account') return this.accounts.has(address);
    if (kind === 'code') return this.codes.has(address);
    return this.slots.get(address)?.has(slot) ?? false;
  }

  /** Takes an account the caller read with `peekKnown` on this state's manager, as `load` would have read it. */
  take(address: bigint, known: KnownAccount): void {
    if (this.peek === undefined) throw new Error('PrefetchedState.take needs a state manager with peek reads');
    this.known.set(address, known);
    this.setAccount(address, known.account);
  }

  private setAccount(address: bigint, account: Account | undefined): void {
    this.accounts.set(
      address,
      account && {
        nonce: account.nonce,
        balance: account.balance,
        codeHash: account.codeHash,
        storageEmpty: equalsBytes(account.storageRoot, KECCAK256_RLP),
      },
    );
  }

  async load(miss: StateMiss): Promise<void> {
    fastCallStats.loads++;
    const address = new Address(addressBytes(miss.address));
    if (miss.kind === 'account') {
      if (this.peek) this.take(miss.address, await this.peek.peekKnown(address));
      else this.setAccount(miss.address, await this.stateManager.getAccount(address));
    } else if (miss.kind === 'code') {
      this.codes.set(miss.address, await (this.peek ? this.peek.peekCode(address, this.known.get(miss.address)) : this.stateManager.getCode(address)));
    } else {
      const key = wordBytes(miss.slot);
      const value = await (this.peek ? this.peek.peekStorage(address, key, this.known.get(miss.address)) : this.stateManager.getStorage(address, key));
      let slots = this.slots.get(miss.address);
      if (!slots) this.slots.set(miss.address, (slots = new Map()));
      slots.set(miss.slot, bytesToBig(value));
    }
  }
}

export interface FastCallOptions {
  vm: VM;
  /** The transaction's fields (a call's, or a mined transaction's: callFieldsOf). */
  tx: CallFields;
  /** The sender (calls carry no signature). */
  from: Address;
  /** The sender's account as the caller read it with `peekKnown` on the VM's state manager (saves reading it again). */
  sender?: KnownAccount;
  /**
   * What earlier runs on the same, unchanged state read (eth_estimateGas's runs at one gas limit
   * after another): this run reads only what they did not. Made for the VM's state manager.
   */
  base?: PrefetchedState;
  block: Block;
  hooks?: FrameHooks;
  /** Throws to stop the run (deadline, cancellation); see InterpreterOptions.check. */
  check?: () => void;
  /** Gives the event loop a turn after this much busy time (ms); default 20. */
  yieldEveryMs?: number;
  /** Told why a request goes to ethereumjs (metrics, the fuzzer's report). */
  onFallback?: (reason: string) => void;
  /** Works out FastCallOutcome.gasNeeded (eth_estimateGas's first run). */
  trackGasNeed?: boolean;
}

const precompileMaps = new WeakMap<VM, Map<bigint, SyncPrecompile>>();

/** The VM's active precompiles by address, built once per (pooled) VM. */
function precompilesOf(vm: VM): Map<bigint, SyncPrecompile> {
  let map = precompileMaps.get(vm);
  if (map === undefined) {
    map = new Map<bigint, SyncPrecompile>();
    for (const [address, fn] of vm.evm.precompiles) map.set(BigInt('0x' + address.replace(/^0x/, '')), fn as SyncPrecompile);
    precompileMaps.set(vm, map);
  }
  return map;
}

/** What a header gives every run in its block, worked out once per header (the blob price is a BigInt series). */
interface HeaderWords {
  coinbase: bigint;
  prevRandao: bigint;
  blobBaseFee: bigint;
}
const headerWords = new WeakMap<Block['header'], HeaderWords>();

function wordsOf(header: Block['header']): HeaderWords {
  let words = headerWords.get(header);
  if (words === undefined) {
    words = { coinbase: bytesToBig(header.coinbase.bytes), prevRandao: bytesToBig(header.prevRandao), blobBaseFee: header.getBlobGasPrice() };
    headerWords.set(header, words);
  }
  return words;
}

function envOf(vm: VM, block: Block, origin: bigint, gasPrice: bigint): ExecutionEnv {
  const header = block.header;
  const words = wordsOf(header);
  return {
    origin,
    gasPrice,
    coinbase: words.coinbase,
    timestamp: header.timestamp,
    number: header.number,
    prevRandao: words.prevRandao,
    gasLimit: header.gasLimit,
    chainId: vm.common.chainId(),
    baseFee: header.baseFeePerGas ?? 0n,
    blobBaseFee: words.blobBaseFee,
    clz: vm.common.isActivatedEIP(7939),
    delegation: vm.common.isActivatedEIP(7702),
    precompiles: precompilesOf(vm),
    precompileContext: { common: vm.common, _EVM: vm.evm },
  };
}

/** Why a request cannot run on the core, or undefined when it can be tried. */
export function unsupportedReason(vm: VM, tx: CallFields): string | undefined {
  if (!SUPPORTED_HARDFORKS.has(vm.common.hardfork())) return `hardfork ${vm.common.hardfork()}`;
  if (vm.common.eips().length > 0) return 'extra EIPs';
  if (tx.type > 2) return `transaction type ${tx.type}`;
  if (tx.gasLimit > BigInt(MAX_GAS)) return 'gas limit';
  if (!fieldsInRange(tx)) return 'fields a transaction would refuse';
  if ((vm.evm.events?.listenerCount('step') ?? 0) > 0) return 'a step listener is attached';
  return undefined;
}

/**
 * runTx's end of a transaction on the run's world: the unused gas back to the sender, the tip to
 * the coinbase (for a post-state: a traced call's, or a mined transaction's).
 */
export function settleFees(outcome: FastCallOutcome, gasLimit: bigint, from: bigint, coinbase: bigint, baseFee: bigint): void {
  const world = outcome.world;
  const sender = world.get(from);
  world.setBalance(sender, sender.balance + (gasLimit - outcome.gasUsed) * outcome.gasPrice);
  const miner = world.get(coinbase);
  world.setBalance(miner, miner.balance + outcome.gasUsed * (outcome.gasPrice - baseFee));
}

/** Loads an account or code into `base` unless it holds it already. */
async function loadOnce(base: PrefetchedState, kind: 'account' | 'code', address: bigint): Promise<void> {
  if (!base.holds(kind, address)) await base.load(new StateMiss(kind, address));
}

/** Calls this thread answered on the interpreter, calls it handed to ethereumjs, and state reads its runs made. */
export const fastCallStats = { answered: 0, handedOver: 0, loads: 0 };

/** Runs the call on the interpreter; undefined when it must run on ethereumjs. */
export async function runFastCall(options: FastCallOptions): Promise<FastCallOutcome | undefined> {
  const { vm, tx } = options;
  const reason = unsupportedReason(vm, tx);
  if (reason !== undefined) {
    fastCallStats.handedOver++;
    options.onFallback?.(reason);
    return undefined;
  }
  const base = options.base ?? new PrefetchedState(vm.stateManager);
  // What every run reads first, loaded before the first run rather than one restart each.
  const from = bytesToBig(options.from.bytes);
  if (!base.holds('account', from)) {
    if (options.sender && vm.stateManager instanceof CachedStorageStateManager) base.take(from, options.sender);
    else await base.load(new StateMiss('account', from));
  }
  await loadOnce(base, 'account', bytesToBig(options.block.header.coinbase.bytes));
  if (tx.to !== undefined) {
    const to = bytesToBig(tx.to.bytes);
    await loadOnce(base, 'account', to);
    await loadOnce(base, 'code', to);
  }
  const yieldEveryMs = options.yieldEveryMs ?? 20;
  let lastYield = performance.now();
  const pause = (): boolean => performance.now() - lastYield >= yieldEveryMs;
  let resumedLoads = 0;
  for (let restarts = 0; restarts <= MAX_RESTARTS; restarts++) {
    try {
      options.hooks?.reset();
      const execution = executeTransaction(base, options, pause);
      for (;;) {
        const step = execution.next();
        if (step.done) {
          fastCallStats.answered++;
          // Set rather than spread in (`{ ...outcome, restarts }`): a key added after a spread is a
          // runtime call on Node 20, about 0.5 µs each.
          const outcome = step.value;
          outcome.restarts = restarts;
          outcome.resumedLoads = resumedLoads;
          return outcome;
        }
        if (step.value !== undefined) {
          // An opcode stopped before a read not yet in memory: load it, and go on from there.
          await base.load(step.value);
          resumedLoads++;
          options.check?.();
          continue;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
    } catch (error) {
      if (error instanceof StateMiss) {
        await base.load(error);
        continue;
      }
      // Unsupported features, and a JavaScript stack too shallow for deep recursion.
      if (error instanceof Unsupported || error instanceof RangeError) {
        fastCallStats.handedOver++;
        options.onFallback?.(error instanceof Unsupported ? error.message : 'JavaScript stack depth');
        return undefined;
      }
      throw error;
    }
  }
  fastCallStats.handedOver++;
  options.onFallback?.('too many state loads');
  return undefined;
}

function* executeTransaction(base: BaseState, options: FastCallOptions, shouldPause: () => boolean): Generator<StateMiss | undefined, FastCallOutcome, void> {
  const { vm, tx, block } = options;
  const common = vm.common;
  const baseFee = block.header.baseFeePerGas ?? 0n;
  let gasPrice: bigint;
  let maxPrice: bigint;
  if (tx.type === 2) {
    if (tx.maxFeePerGas < baseFee || tx.maxPriorityFeePerGas > tx.maxFeePerGas) throw new Unsupported('fee below base fee');
    const priority = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee;
    gasPrice = baseFee + priority;
    maxPrice = tx.maxFeePerGas;
  } else {
    if (tx.gasPrice < baseFee) throw new Unsupported('gas price below base fee');
    gasPrice = maxPrice = tx.gasPrice;
  }
  const intrinsic = intrinsicGas(tx, common);
  const floor = calldataFloorGas(tx, common);
  if (tx.gasLimit < intrinsic || tx.gasLimit < floor) throw new Unsupported('intrinsic gas too low');
  if (tx.to === undefined && tx.data.length > MAX_INITCODE) throw new Unsupported('init code too large');

  const world = new WorldState(base);
  options.hooks?.begin?.(world);
  const caller = bytesToBig(options.from.bytes);
  const env = envOf(vm, block, caller, gasPrice);
  const interpreter = new Interpreter(world, env, { hooks: options.hooks, check: options.check, shouldPause, trackGasNeed: options.trackGasNeed });
  for (const address of env.precompiles.keys()) world.warm.add(address);
  world.warm.add(caller);
  if (tx.to !== undefined) world.warm.add(bytesToBig(tx.to.bytes));
  world.warm.add(env.coinbase);
  for (const [address, slots] of tx.accessList) {
    const a = bytesToBig(address);
    world.warm.add(a);
    const account = world.get(a);
    for (const slot of slots) account.warmSlots.add(bytesToBig(slot));
  }

  const sender = world.get(caller);
  if (!world.isEmptyCode(sender)) {
    const code = world.code(sender);
    if (!(code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00)) throw new Unsupported('sender has code');
  }
  if (sender.balance < tx.gasLimit * maxPrice + tx.value) throw new Unsupported('insufficient funds');
  const nonce = sender.nonce;
  world.setBalance(sender, sender.balance - tx.gasLimit * gasPrice);
  world.setNonce(sender, nonce + 1n);
  world.refund = 0;

  const gas = Number(tx.gasLimit - intrinsic);
  let createdAddress: bigint | undefined;
  let result;
  if (tx.to !== undefined) {
    const to = bytesToBig(tx.to.bytes);
    const toCode = env.precompiles.has(to) ? EMPTY : world.code(world.get(to));
    if (env.delegation && isDelegation(toCode)) {
      // EIP-7702: a delegated callee's delegate is warm from the start, at no charge (Prague; Amsterdam's EIP-2780 charges it).
      const delegate = delegateOf(toCode);
      yield* accountLoads(world, delegate, !env.precompiles.has(delegate));
      world.warm.add(delegate);
      options.hooks?.touches?.account(delegate);
    }
    result = yield* interpreter.execute({ kind: 'CALL', caller, address: to, codeAddress: to, value: tx.value, transfer: true, data: tx.data, gas, depth: 0, isStatic: false });
  } else {
    createdAddress = bytesToBig(generateAddress(options.from.bytes, bigIntToBytes(nonce)));
    result = yield* interpreter.execute({
      kind: 'CREATE',
      caller,
      address: createdAddress,
      codeAddress: createdAddress,
      value: tx.value,
      transfer: true,
      data: new Uint8Array(0),
      initCode: tx.data,
      gas,
      depth: 0,
      isStatic: false,
    });
  }
  let gasUsed = BigInt(gas - result.gasLeft) + intrinsic;
  let gasRefund = result.error === undefined ? BigInt(world.refund) : 0n;
  if (gasRefund !== 0n) {
    const cap = gasUsed / common.param('maxRefundQuotient');
    gasUsed -= gasRefund < cap ? gasRefund : cap;
  }
  if (gasUsed < floor) {
    gasUsed = floor;
    gasRefund = 0n;
  }
  const outcome: FastCallOutcome = {
    returnValue: result.output,
    gasUsed,
    gasRefund,
    error: result.error,
    logs: result.error === undefined ? world.logs : [],
    createdAddress: result.error === undefined ? createdAddress : undefined,
    world,
    gasPrice,
    intrinsicGas: intrinsic,
    restarts: 0,
    resumedLoads: 0,
  };
  if (options.trackGasNeed && result.error === undefined && interpreter.gasNeedKnown && result.gasNeed !== undefined) {
    const needed = intrinsic + BigInt(result.gasNeed);
    outcome.gasNeeded = needed > floor ? needed : floor;
  }
  return outcome;
}

// The embedded dev chain: composes the persistent core, the block miner, admission checks, the
// pool (interval mining), calls, logs and fee data, and anvil's dev controls (snapshots, setters,
// timestamps). All writes run one at a time behind a FIFO lock, each once the blocks before it are
// written, except automine's journaled sends (eth_sendRawTransaction), which are answered once the
// transaction has run and is journaled (the turn then seals and commits its block) and may start
// while earlier blocks are still being written.
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import type { Proof } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { getMerkleStateProof } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToHex, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import { InvalidParamsError, ServerError } from '../../rpc/errors.js';
import { type BlockMiner, createBlockMiner, pendingBaseFee } from './blockMiner.js';
import { type CallGuard, type CallTarget, callEnvOfCore, executeCall } from './callExecution.js';
import { type DevChainConfig, type DevChainOptions, createPreparedCommon, resolveChainConfig } from './chainConfig.js';
import { type ChainCore, openChainCore } from './chainCore.js';
import type { DevAccount } from './devAccounts.js';
import { type DevControls, createDevControls } from './devControls.js';
import { type MinedRecordStore, createMinedRecordStore } from './minedRecordStore.js';
import { type CreatedAccessList, createAccessList } from './accessListCreation.js';
import { type FeeHistory, computeFeeHistory } from './feeHistory.js';
import { estimateGas } from './gasEstimation.js';
import { type LogEntry, type LogFilter, blockLogEntries, queryLogs } from './logQuery.js';
import type { StateOverrides } from './stateOverrides.js';
import { type TransactionRequest, requestToTransaction, requestTxType } from './transactionRequest.js';
import { checkTransactionAdmission, decodeRawTransaction, recoverSender } from './txValidation.js';
import { type PooledTransaction, type TxPool, createTxPool } from './txPool.js';
import { NO_JOURNAL, type TxJournal, openTxJournal } from './txJournal.js';
import { isImpersonatedTransaction, toImpersonatedTransaction } from './impersonatedTransaction.js';
import { type MiningSettings, createMiningSettings, isImpersonated } from './miningSettings.js';
import type { ChainView } from './types.js';

/** Time between attempts to write the chain again after a refused block write. */
const WRITE_RETRY_MS = 1000;

/** Smallest priority fee anvil suggests, and the one it fills into eth_sendTransaction (1 gwei). */
export const DEFAULT_PRIORITY_FEE_WEI = 1_000_000_000n;

/** Per-request options of DevChain.call / estimateGas. */
export interface CallOptions {
  /** Aborted when the requester is gone; the execution stops at its next guard check. */
  signal?: AbortSignal;
}

export interface DevChain extends ChainView, DevControls {
  readonly config: DevChainConfig;
  readonly accounts: readonly DevAccount[];
  /** Records of mined transactions kept for tracing (undefined when `minedRecordBytes` is 0). */
  readonly minedRecords: Pick<MinedRecordStore, 'get' | 'stats'> | undefined;
  /**
   * Read-only state at `block` (the working state for the head). The manager is shared with other
   * readers of the same root (its caches stay warm): never write to it.
   */
  stateAt(block: Block): Promise<MerkleStateManager>;
  /** Nonce the next transaction of `address` needs (account nonce plus pooled transactions). */
  pendingNonce(address: Uint8Array): Promise<bigint>;
  /** A transaction waiting in the pool (interval mining), or undefined. */
  pendingTransaction(hash: Uint8Array): TypedTransaction | undefined;
  /** Base fee of the next block. */
  nextBaseFee(): bigint;
  /**
   * Suggested priority fee, as anvil computes it: the smallest tip paid in the latest block, but at
   * least 1 gwei. eth_maxPriorityFeePerGas answers it; eth_gasPrice adds the next base fee.
   */
  suggestedPriorityFee(): Promise<bigint>;
  /**
   * Submits a signed transaction; in automine mode it is mined, and its block written, before this
   * resolves. With `journaled` (eth_sendRawTransaction), it resolves once the transaction has run
   * in its block and is in the journal (txJournal.ts), while the block is still being sealed and
   * written: readers of what it wrote wait for {@link ChainView.settled}. Returns its hash.
   */
  sendRawTransaction(raw: Uint8Array, options?: { journaled?: boolean }): Promise<Uint8Array>;
  /**
   * Fills, signs (dev accounts) or marks as impersonated (anvil_impersonateAccount) and submits a
   * transaction. Returns its hash.
   */
  sendTransaction(request: TransactionRequest): Promise<Uint8Array>;
  /** Fills and signs a transaction with a dev account's key without sending it; returns the raw bytes. */
  signTransaction(request: TransactionRequest): Promise<Uint8Array>;
  /** Transactions waiting in the pool, in arrival order. */
  pendingTransactions(): readonly PooledTransaction[];
  /** Subscribes to transactions entering the pool (also in automine mode); returns the unsubscribe function. */
  onPendingTransaction(listener: (hash: Uint8Array) => void): () => void;
  /** Fee recipient of the next block (20 bytes). */
  coinbase(): Uint8Array;
  /** Gas limit of the next block. */
  nextGasLimit(): bigint;
  /**
   * eth_call on this thread, within `config.callTimeoutMs` (ExecutionTimeoutError past it) and
   * stopped when `options.signal` aborts (ExecutionCancelledError).
   */
  call(request: TransactionRequest, block: Block, overrides?: StateOverrides, options?: CallOptions): Promise<Uint8Array>;
  /** eth_estimateGas on this thread: the whole search within `config.callTimeoutMs`, like `call`. */
  estimateGas(request: TransactionRequest, block: Block, overrides?: StateOverrides, options?: CallOptions): Promise<bigint>;
  /** eth_createAccessList on this thread, under the call guard. */
  createAccessList(request: TransactionRequest, block: Block, options?: CallOptions): Promise<CreatedAccessList>;
  feeHistory(blockCount: bigint, newest: Block, rewardPercentiles?: readonly number[]): Promise<FeeHistory>;
  getLogs(filter: LogFilter): Promise<LogEntry[]>;
  blockLogs(block: Block): Promise<LogEntry[]>;
  /** EIP-1186 proof; `slots` are 32-byte keys. */
  getProof(address: Uint8Array, slots: Uint8Array[], block: Block): Promise<Proof>;
  /** Stops interval mining and closes the database. */
  close(): Promise<void>;
}

/** Opens or creates the chain in `options.dataDir` (see {@link DevChainOptions} for defaults). */
export async function createDevChain(options: DevChainOptions): Promise<DevChain> {
  const config = resolveChainConfig(options);
  const core = await openChainCore(config);
  try {
    return await assembleDevChain(core);
  } catch (error) {
    await core.close();
    throw error;
  }
}

/**
 * The journal of acknowledged transactions, or none when its space cannot be claimed (a full disk
 * at start): the chain still opens, and its sends wait for their blocks' writes.
 */
function openJournal(file: string, logger: DevChainConfig['logger']): TxJournal {
  try {
    return openTxJournal(file);
  } catch (error) {
    logger?.warn({ err: error, file }, 'the transaction journal could not be created: eth_sendRawTransaction answers once its block is written, until a start that can create it');
    return NO_JOURNAL;
  }
}

/** Runs functions one at a time, in call order. */
function createLock(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const result = tail.then(fn, fn);
    tail = result.catch(() => undefined);
    return result;
  };
}

async function assembleDevChain(core: ChainCore): Promise<DevChain> {
  const { config } = core;
  // Records enter the store when their block becomes the head (core.commitBlock emits it) and
  // leave it when the block is rewound away.
  const records = config.minedRecordBytes > 0 ? createMinedRecordStore({ maxBytes: config.minedRecordBytes }) : undefined;
  if (records) core.onHead((event) => records.onHead(event));
  const settings: MiningSettings = createMiningSettings(config);
  const miner: BlockMiner = await createBlockMiner(core, { records, settings });
  const pool: TxPool = createTxPool();
  const journal = openJournal(join(config.dataDir, 'chain.journal'), config.logger);
  // Emptied whenever every block is written: what it held is in the chain.
  core.onHead(() => {
    if (core.settled() === undefined && !core.writeFailure()) journal.clear();
  });
  const serial = createLock();
  /** A turn of the chain's lock once every block is written (what most writes and dev controls need). */
  const locked = <T>(fn: () => Promise<T>): Promise<T> =>
    serial(async () => {
      await core.settled();
      await recoverWrites();
      return fn();
    });
  /** A turn that may start while earlier blocks are still being written (automine's journaled sends). */
  const lockedWhileWriting = <T>(fn: () => Promise<T>): Promise<T> =>
    serial(async () => {
      await recoverWrites();
      return fn();
    });
  const handle = createDevControls({ core, miner, pool, locked, settings });
  const pendingListeners = new Set<(hash: Uint8Array) => void>();
  const baseFeeOfNext = (): bigint => pendingBaseFee(core, settings);
  // Submitted transactions are built on a prepared Common (no parameter merge per transaction).
  const txCommon = createPreparedCommon(core.common);

  /** The working state, read-only (shared with other readers of the same root). */
  async function workingState(): Promise<MerkleStateManager> {
    return core.readState(core.workingRoot());
  }

  async function pendingNonce(address: Uint8Array): Promise<bigint> {
    const account = await (await workingState()).getAccount(new Address(address));
    return (account?.nonce ?? 0n) + BigInt(pool.countFrom(bytesToUnprefixedHex(address)));
  }

  /**
   * After a refused block write (a full disk), before the next write: every block mined on it was
   * dropped, so the miner starts again from the head and the journal's transactions are mined again.
   * Throws (and the caller's write is refused) while the chain still cannot be written.
   */
  async function recoverWrites(): Promise<void> {
    if (!core.writeFailure() && !journalUnmined) return;
    await core.settled();
    await miner.reset();
    core.resumeWrites();
    await mineJournal();
    journalUnmined = false;
  }

  /** A journaled transaction's block was not committed after its answer (sealing threw, or its write was refused). */
  function journaledBlockLost(): void {
    journalUnmined = true;
    retryWrites();
  }

  /**
   * After a refused write, a turn of the lock every second until the journal is mined again (the
   * transactions it holds were acknowledged; without it they would wait for the next write).
   */
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let closing = false;
  let journalUnmined = false;
  // The turn of the lock that answered a journaled send and is still sealing its block: readers
  // wait for it, then for the block's write (settled()).
  let sealing: Promise<unknown> | undefined;
  function retryWrites(): void {
    if (retryTimer !== undefined || closing) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      locked(async () => undefined).catch(() => retryWrites());
    }, WRITE_RETRY_MS);
    retryTimer.unref();
  }

  /**
   * Mines, one block each and written before the next, the journal's transactions that no written
   * block holds (after a restart, or a refused write), then empties the journal.
   */
  async function mineJournal(): Promise<void> {
    for (const raw of journal.entries()) {
      const tx = decodeRawTransaction(raw, txCommon);
      if (core.blocks.getTxLocation(tx.hash())) continue;
      const built = await handle.mineBlock([tx], { requireAll: true });
      for (const skipped of built.skipped) config.logger?.warn({ tx: bytesToHex(tx.hash()), reason: skipped.error.message }, 'a journaled transaction could not be mined again');
    }
    journal.clear();
  }

  /**
   * Admission + (automine) mining; runs under the lock. With `early`, the block's transaction is
   * journaled once it has run, and `early.answered` is told at once, before the block is sealed
   * and written.
   */
  async function submit(tx: TypedTransaction, early?: { raw: Uint8Array; answered(): void }): Promise<Uint8Array> {
    const hash = tx.hash();
    if (pool.get(hash) || core.blocks.getTxLocation(hash)) throw new ServerError('already known');
    const state = await miner.workingState();
    const sender = recoverSender(tx);
    const account = await state.getAccount(sender);
    const senderHex = bytesToUnprefixedHex(sender.bytes);
    await checkTransactionAdmission(tx, {
      state,
      baseFee: baseFeeOfNext(),
      blockGasLimit: settings.gasLimit,
      expectedNonce: (account?.nonce ?? 0n) + BigInt(pool.countFrom(senderHex)),
      allowContractSender: isImpersonatedTransaction(tx),
    });
    for (const listener of pendingListeners) listener(hash);
    if (!settings.automine) {
      pool.add(tx, senderHex);
      return hash;
    }
    const built = await handle.mineBlock([tx], { requireAll: true, journal: early && { append: () => journal.append(early.raw), answered: early.answered, refused: journaledBlockLost } });
    if (built.skipped.length > 0) throw new ServerError(built.skipped[0]!.error.message.split(' (vm hf=')[0]!);
    return hash;
  }

  const coreSettled = (): Promise<void> | undefined => core.settled();

  /**
   * eth_sendRawTransaction in automine: answered once the transaction has run in its block and is
   * journaled; the turn of the lock goes on to seal and commit the block, and readers wait for it.
   */
  function submitJournaled(tx: TypedTransaction, raw: Uint8Array): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const turn: Promise<Uint8Array> = lockedWhileWriting(() =>
        submit(tx, {
          raw,
          answered() {
            answered = true;
            sealing = turn;
            resolve(tx.hash());
          },
        }),
      );
      turn.then(resolve, (error: unknown) => {
        if (!answered) reject(error);
        // After the answer the journal holds the transaction: journaledBlockLost has it mined again.
        else config.logger?.error({ err: error }, 'a journaled transaction was answered but its block not committed; the journal mines it again');
      });
      turn.finally(() => {
        if (sealing === turn) sealing = undefined;
      }).catch(() => undefined);
    });
  }

  async function suggestedPriorityFee(): Promise<bigint> {
    const head = core.head();
    const baseFee = head.header.baseFeePerGas ?? 0n;
    const tips = (await core.getReceipts(head.hash())).map((r) => r.effectiveGasPrice - baseFee);
    const lowest = tips.length > 0 ? tips.reduce((a, b) => (b < a ? b : a)) : 0n;
    return lowest > DEFAULT_PRIORITY_FEE_WEI ? lowest : DEFAULT_PRIORITY_FEE_WEI;
  }

  function callTarget(block: Block): CallTarget {
    return { block, stateRoot: core.stateRootAt(block) };
  }

  const callEnv = callEnvOfCore(core);
  /**
   * The guard of one in-process call or estimate: the call timeout, yielding every 5 ms (this is
   * the HTTP thread: a request needs a few turns of its loop to be answered).
   */
  function callGuard(signal: AbortSignal | undefined): CallGuard {
    const now = () => performance.now();
    return { deadlineMs: now() + config.callTimeoutMs, yieldEveryMs: 5, now, timeoutMs: config.callTimeoutMs, signal };
  }

  /** Who sends `request`: a dev account (with its key) or an impersonated address (without). */
  function senderOf(request: TransactionRequest): { address: Uint8Array; key?: Uint8Array } {
    const from = request.from ?? core.accounts[0]?.address.bytes;
    const signer = from && core.accounts.find((a) => equalsBytes(a.address.bytes, from));
    if (signer) return { address: signer.address.bytes, key: signer.privateKey };
    if (from && isImpersonated(settings, from)) return { address: from };
    // anvil's code and text, with the address and the remedy.
    throw new InvalidParamsError(`No Signer available for ${from ? new Address(from).toString() : 'the request'}: eth_sendTransaction signs only for the dev accounts and impersonated addresses (anvil_impersonateAccount)`);
  }

  /** Fills nonce, gas and fees like anvil (caller holds the lock); the result is unsigned. */
  async function fillTransaction(request: TransactionRequest, from: Uint8Array): Promise<TypedTransaction> {
    if (request.chainId !== undefined && request.chainId !== core.chainId) {
      throw new ServerError(`invalid chain id: have ${request.chainId} want ${core.chainId}`);
    }
    const filledRequest = { ...request, from };
    // anvil: legacy price and fee cap are the next base fee plus the suggested tip; the tip itself is 1 gwei.
    const suggestedPrice = baseFeeOfNext() + (await suggestedPriorityFee());
    const priority = request.maxPriorityFeePerGas ?? (request.maxFeePerGas !== undefined && request.maxFeePerGas < DEFAULT_PRIORITY_FEE_WEI ? request.maxFeePerGas : DEFAULT_PRIORITY_FEE_WEI);
    const fees = {
      gasPrice: request.gasPrice ?? suggestedPrice,
      maxFeePerGas: request.maxFeePerGas ?? suggestedPrice,
      maxPriorityFeePerGas: priority,
    };
    const type = requestTxType(request);
    const gasLimit = request.gas ?? (await estimateGas(callEnv, { ...filledRequest, ...(type < 2 ? { gasPrice: fees.gasPrice } : { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: priority }) }, callTarget(core.head()), undefined, callGuard(undefined)));
    const nonce = request.nonce ?? (await pendingNonce(from));
    return requestToTransaction(filledRequest, { type, nonce, gasLimit, ...fees, chainId: core.chainId }, txCommon);
  }

  const chain: DevChain = {
    ...handle.controls,
    chainId: core.chainId,
    common: core.common,
    config,
    accounts: core.accounts,
    headNumber: () => core.headNumber(),
    settled: () => (sealing ? sealing.then(coreSettled, coreSettled) : core.settled()),
    getBlockByNumber: (n) => core.getBlockByNumber(n),
    getBlockByHash: (h) => core.getBlockByHash(h),
    resolveBlock: (id) => core.resolveBlock(id),
    getTransaction: (h) => core.getTransaction(h),
    getReceipts: (h) => core.getReceipts(h),
    preStateRoot: (block) => core.preStateRoot(block),
    parentForReplay: (block) => core.parentForReplay(block),
    createVm: (o) => core.createVm(o),
    withVm: (root, fn) => core.withReadVm(root, fn),
    stateRootAt: (block) => core.stateRootAt(block),
    onHead: (l) => core.onHead(l),
    minedRecords: records,
    minedRecord: records && ((hash) => records.get(hash)),
    stateAt: (block) => core.readState(core.stateRootAt(block)),
    pendingNonce,
    pendingTransaction: (hash) => pool.get(hash)?.tx,
    nextBaseFee: baseFeeOfNext,
    suggestedPriorityFee,
    async sendRawTransaction(raw, options) {
      const tx = decodeRawTransaction(raw, txCommon);
      if (options?.journaled && settings.automine) return submitJournaled(tx, raw);
      return locked(() => submit(tx));
    },
    sendTransaction: async (request) => {
      const sender = senderOf(request);
      return locked(async () => {
        const unsigned = await fillTransaction(request, sender.address);
        if (sender.key) return submit(unsigned.sign(sender.key));
        return submit(toImpersonatedTransaction(unsigned, sender.address, txCommon));
      });
    },
    async signTransaction(request) {
      const sender = senderOf(request);
      if (!sender.key) throw new InvalidParamsError('No Signer available');
      const key = sender.key;
      return locked(async () => (await fillTransaction(request, sender.address)).sign(key).serialize());
    },
    pendingTransactions: () => pool.all(),
    onPendingTransaction(listener) {
      pendingListeners.add(listener);
      return () => pendingListeners.delete(listener);
    },
    coinbase: () => settings.coinbase,
    nextGasLimit: () => settings.gasLimit,
    call: (request, block, overrides, options) => executeCall(callEnv, request, callTarget(block), overrides, callGuard(options?.signal)),
    estimateGas: (request, block, overrides, options) => estimateGas(callEnv, request, callTarget(block), overrides, callGuard(options?.signal)),
    createAccessList: (request, block, options) => createAccessList(callEnv, request, callTarget(block), callGuard(options?.signal)),
    feeHistory: (count, newest, percentiles) => computeFeeHistory(core, count, newest, percentiles),
    getLogs: (filter) => queryLogs(core, filter),
    blockLogs: (block) => blockLogEntries(core, block),
    async getProof(address, slots, block) {
      const state = await core.openState(core.stateRootAt(block), 'overlay');
      // Fork mode: reading the slots first loads their paths; a proof walk alone skips what is missing.
      if (core.config.fork) for (const slot of slots) await state.getStorage(new Address(address), slot);
      return getMerkleStateProof(state, new Address(address), slots);
    },
    async close() {
      closing = true;
      clearTimeout(retryTimer);
      handle.stopIntervalMining();
      await locked(async () => undefined);
      journal.close();
      await core.close();
    },
  };
  if (!journal.isEmpty()) {
    try {
      await locked(mineJournal);
    } catch (error) {
      journal.close();
      throw error;
    }
  }
  if (!settings.automine) handle.startIntervalMining(config.blockTimeSec);
  return chain;
}

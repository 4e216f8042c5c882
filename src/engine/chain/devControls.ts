// anvil-style dev controls over the chain: mining (on demand and on an interval), snapshots and
// revert, the next block's timestamp, and setters for balance, code, nonce and storage that change
// the working state immediately and persist it, as anvil does.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Block } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bytesToUnprefixedHex, hexToBytes, unpadBytes } from '@ethereumjs/util';
import { InvalidParamsError, ServerError } from '../../rpc/errors.js';
import type { BlockMiner, BuiltBlock } from './blockMiner.js';
import type { ChainCore } from './chainCore.js';
import { type MiningSettings, createMiningSettings } from './miningSettings.js';
import { type LoadedStateDump, type StateDumpDocument, applyStateDump, dumpState } from './stateDump.js';
import { reportStateWrites } from './stateKeyIndex.js';
import type { TxPool } from './txPool.js';

/** Blocks one step of anvil_reset removes in one store transaction. */
const RESET_CHUNK_BLOCKS = 20n;
/** Trie nodes (then state keys) a state load writes to SQLite per turn of the event loop (a few ms). */
const NODES_PER_TURN = 500;

export interface DevControls {
  /** Mines one block with the pooled transactions (empty in automine mode). */
  mine(options?: { timestampSec?: bigint }): Promise<Block>;
  /**
   * Mines `count` blocks (at most {@link MAX_BLOCKS_PER_CALL}) one after another, each with the pooled
   * transactions, as anvil_mine does: with `intervalSec`, the clock moves that far ahead before each
   * block (the first included) and stays ahead afterwards. Each block is one turn of the lock and
   * the event loop is given back between blocks, so other requests are served meanwhile.
   * `firstTimestampSec` sets the first block's timestamp (evm_mine's `{timestamp, blocks}`).
   */
  mineBlocks(count: bigint, options?: { intervalSec?: bigint; firstTimestampSec?: bigint }): Promise<void>;
  /** Records (head, working state, clock); returns the id for {@link DevControls.revert}. */
  snapshot(): Promise<bigint>;
  /** Live snapshots: id → the head number they return to (anvil_metadata). */
  snapshots(): ReadonlyMap<bigint, bigint>;
  /** Rewinds to a snapshot and forgets it and every later one; false for an unknown id. */
  revert(id: bigint): Promise<boolean>;
  /** Timestamp (seconds) of the next block; later blocks continue from it. */
  setNextBlockTimestamp(timestampSec: bigint): Promise<void>;
  setBalance(address: Uint8Array, wei: bigint): Promise<void>;
  setCode(address: Uint8Array, code: Uint8Array): Promise<void>;
  setNonce(address: Uint8Array, nonce: bigint): Promise<void>;
  /** `slot` and `value` are 32-byte words. */
  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void>;
  /** Moves the clock `seconds` ahead (evm_increaseTime); returns the total offset, as anvil does. */
  increaseTime(seconds: bigint): Promise<bigint>;
  /** Each next block's timestamp is its parent's plus `seconds`; undefined removes the interval. */
  setBlockTimestampInterval(seconds: bigint | undefined): Promise<void>;
  /**
   * Automine on (interval mining stops; transactions waiting in the pool are mined into a block at
   * once, so the next automined one has no nonce gap) or off (transactions wait in the pool).
   */
  setAutomine(enabled: boolean): Promise<void>;
  automine(): boolean;
  /** Mines a block every `seconds` (automine off); 0 stops interval mining. */
  setIntervalMining(seconds: number): void;
  setBlockGasLimit(gasLimit: bigint): Promise<void>;
  /** Base fee of the next block only (later blocks follow EIP-1559 from it). */
  setNextBlockBaseFee(wei: bigint): Promise<void>;
  setCoinbase(address: Uint8Array): Promise<void>;
  /** eth_sendTransaction may send from `address` without its key (anvil_impersonateAccount). */
  impersonate(address: Uint8Array): void;
  stopImpersonating(address: Uint8Array): void;
  /** Explicitly impersonated addresses, in the order they were added (anvil lists them in eth_accounts). */
  impersonatedAddresses(): Uint8Array[];
  setAutoImpersonate(enabled: boolean): void;
  /** Removes a pooled transaction; false when none has this hash. */
  dropTransaction(hash: Uint8Array): Promise<boolean>;
  /**
   * anvil_reset without a fork: back to genesis (every later block removed, the genesis state),
   * with an empty pool, no snapshots, the clock and the mining settings as configured.
   */
  reset(): Promise<void>;
  /** The working state as anvil's dump document (anvil_dumpState). */
  dumpState(): Promise<StateDumpDocument>;
  /** Merges a parsed dump into the working state (anvil_loadState). */
  loadState(dump: LoadedStateDump): Promise<void>;
}

export interface DevControlsParts {
  core: ChainCore;
  settings: MiningSettings;
  miner: BlockMiner;
  pool: TxPool;
  locked: <T>(fn: () => Promise<T>) => Promise<T>;
}

export interface MineBlockOptions {
  requireAll?: boolean;
  timestampSec?: bigint;
  /**
   * `append` is called once the transactions have run (requireAll: all of them), before the block
   * is sealed and committed: true when it has journaled them (txJournal.ts), and then `answered`
   * is called at once (the caller may answer its client while the block is sealed), and mineBlock
   * returns without waiting for the write; `refused` is told if sealing, committing or the write
   * then fails (the journal's transactions must be mined again).
   */
  journal?: { append(): boolean; answered(): void; refused(): void };
}

export interface DevControlsHandle {
  controls: DevControls;
  /**
   * Builds and commits a block of `transactions` (caller holds the lock), and waits until it is
   * written. With `requireAll`, a block whose transaction was refused is not committed and the
   * miner is reset.
   */
  mineBlock(transactions: readonly TypedTransaction[], options?: MineBlockOptions): Promise<BuiltBlock>;
  startIntervalMining(periodSec: number): void;
  /** Stops interval mining and any mineBlocks in progress (the chain is closing). */
  stopIntervalMining(): void;
}

/** Most blocks one mineBlocks call may mine, so a typo cannot keep the chain busy for hours. */
export const MAX_BLOCKS_PER_CALL = 10_000n;

interface Snapshot {
  headNumber: bigint;
  workingRoot: Uint8Array;
  timeOffsetSec: bigint;
  nextTimestampSec: bigint | undefined;
}

export function createDevControls(parts: DevControlsParts): DevControlsHandle {
  const { core, miner, pool, locked, settings } = parts;
  const { config } = core;
  let timeOffsetSec = 0n;
  let nextTimestampSec: bigint | undefined;
  let nextSnapshotId = 0n;
  const snapshots = new Map<bigint, Snapshot>();
  let timer: unknown;
  // Set when the chain closes: a multi-block mine in progress stops before its next block.
  let stopped = false;

  const nowSec = (): bigint => BigInt(Math.floor(config.clock() / 1000));

  function nextTimestamp(): bigint {
    if (nextTimestampSec !== undefined) return nextTimestampSec;
    const parent = core.tip().header.timestamp;
    if (settings.timestampIntervalSec !== undefined) return parent + settings.timestampIntervalSec;
    const now = nowSec() + timeOffsetSec;
    // Like anvil, blocks mined within the same second share a timestamp rather than drift ahead.
    return now > parent ? now : parent;
  }

  async function mineBlock(transactions: readonly TypedTransaction[], options: MineBlockOptions = {}): Promise<BuiltBlock> {
    const { journal } = options;
    let journaled = false;
    const ran =
      journal &&
      ((included: readonly TypedTransaction[]) => {
        if (options.requireAll && included.length !== transactions.length) return;
        journaled = journal.append();
        if (journaled) journal.answered();
      });
    let built: BuiltBlock;
    try {
      built = await miner.build(transactions, options.timestampSec ?? nextTimestamp(), { ran });
    } catch (error) {
      await miner.reset();
      if (journaled) journal!.refused();
      throw error;
    }
    if (options.requireAll && built.skipped.length > 0) {
      await miner.reset();
      // Journaled before a later attempt dropped it: no block holds it, the journal mines it again.
      if (journaled) journal!.refused();
      return built;
    }
    const written = core.commitBlock(built.block, built.receipts, built.preStateRoot);
    nextTimestampSec = undefined;
    settings.nextBaseFeeWei = undefined;
    if (journaled) {
      // The next turn of the lock mines the journal again (devChain.ts).
      written.catch(() => journal!.refused());
      return built;
    }
    try {
      await written;
    } catch (error) {
      // Not stored (a full disk): the miner returns to the head's state, as if never built.
      await miner.reset();
      throw error;
    }
    return built;
  }

  async function mineFromPool(timestampSec?: bigint): Promise<Block> {
    const built = await mineBlock(pool.all().map((p) => p.tx), { timestampSec });
    for (const s of built.skipped) if (!s.retryLater) config.logger?.warn({ reason: s.error.message }, 'dropped a pooled transaction');
    pool.retain(built.skipped.filter((s) => s.retryLater).map((s) => s.tx));
    return built.block;
  }

  async function modifyWorkingState(change: (state: MerkleStateManager) => Promise<void>): Promise<void> {
    await locked(async () => {
      const state = reportStateWrites(await core.openState(core.workingRoot(), 'persistent'), core.stateKeys);
      try {
        await change(state);
        core.commitWorkingRoot(await state.getStateRoot());
      } catch (error) {
        core.discardPending();
        throw error;
      }
    });
  }

  function startTimer(periodSec: number): void {
    if (timer !== undefined) config.timers.clearInterval(timer);
    timer = undefined;
    settings.intervalSec = periodSec;
    if (periodSec <= 0 || stopped) return;
    timer = config.timers.setInterval(() => {
      locked(() => mineFromPool()).catch((error: unknown) => config.logger?.error({ err: error }, 'interval mining failed'));
    }, periodSec * 1000);
  }

  const controls: DevControls = {
    mine(options = {}) {
      return locked(async () => {
        if (options.timestampSec !== undefined && options.timestampSec < core.head().header.timestamp) {
          throw new InvalidParamsError(`timestamp ${options.timestampSec} is lower than the previous block's timestamp ${core.head().header.timestamp}`);
        }
        return mineFromPool(options.timestampSec);
      });
    },
    async mineBlocks(count, options = {}) {
      if (count > MAX_BLOCKS_PER_CALL) throw new InvalidParamsError(`blocks: at most ${MAX_BLOCKS_PER_CALL} blocks per call, got ${count}`);
      const { intervalSec, firstTimestampSec } = options;
      for (let i = 0n; i < count; i++) {
        if (stopped) throw new ServerError(`the chain closed after ${i} of ${count} blocks`);
        if (i === 0n && firstTimestampSec !== undefined) {
          await controls.mine({ timestampSec: firstTimestampSec });
          continue;
        }
        await locked(async () => {
          if (intervalSec !== undefined) timeOffsetSec += intervalSec;
          await mineFromPool();
        });
        // Between blocks: timers and sockets get their turn, not just promise callbacks.
        await yieldToLoop();
      }
    },
    snapshot() {
      return locked(async () => {
        const id = nextSnapshotId++;
        snapshots.set(id, { headNumber: core.headNumber(), workingRoot: core.workingRoot(), timeOffsetSec, nextTimestampSec });
        return id;
      });
    },
    snapshots: () => new Map([...snapshots].map(([id, s]) => [id, s.headNumber])),
    revert(id) {
      return locked(async () => {
        const snapshot = snapshots.get(id);
        if (!snapshot) return false;
        core.rewindTo(snapshot.headNumber, snapshot.workingRoot);
        timeOffsetSec = snapshot.timeOffsetSec;
        nextTimestampSec = snapshot.nextTimestampSec;
        for (const key of [...snapshots.keys()]) if (key >= id) snapshots.delete(key);
        pool.clear();
        await miner.reset();
        return true;
      });
    },
    setNextBlockTimestamp(timestampSec) {
      return locked(async () => {
        const parent = core.head().header.timestamp;
        if (timestampSec < parent) {
          throw new InvalidParamsError(`timestamp ${timestampSec} is lower than the previous block's timestamp ${parent}`);
        }
        nextTimestampSec = timestampSec;
        timeOffsetSec = timestampSec - nowSec();
      });
    },
    setBalance: (address, wei) =>
      modifyWorkingState(async (state) => {
        await state.modifyAccountFields(new Address(address), { balance: wei });
      }),
    setNonce: (address, nonce) =>
      modifyWorkingState(async (state) => {
        await state.modifyAccountFields(new Address(address), { nonce });
      }),
    setCode: (address, code) =>
      modifyWorkingState(async (state) => {
        await state.putCode(new Address(address), code);
      }),
    setStorageAt: (address, slot, value) =>
      modifyWorkingState(async (state) => {
        const target = new Address(address);
        if (!(await state.getAccount(target))) await state.putAccount(target, new Account());
        await state.putStorage(target, slot, unpadBytes(value));
      }),
    increaseTime: (seconds) =>
      locked(async () => {
        timeOffsetSec += seconds;
        return timeOffsetSec;
      }),
    setBlockTimestampInterval: (seconds) =>
      locked(async () => {
        settings.timestampIntervalSec = seconds;
      }),
    setAutomine: (enabled) =>
      locked(async () => {
        if (enabled) startTimer(0);
        settings.automine = enabled;
        if (enabled && pool.all().length > 0) await mineFromPool();
      }),
    automine: () => settings.automine,
    setIntervalMining(seconds) {
      settings.automine = false;
      startTimer(seconds);
    },
    setBlockGasLimit: (gasLimit) =>
      locked(async () => {
        // anvil 1.7.1 takes any u64, 0 included: later blocks carry it and a transaction needing more
        // gas than it is refused when sent (devNodeMethods.test.ts compares the two).
        settings.gasLimit = gasLimit;
      }),
    setNextBlockBaseFee: (wei) =>
      locked(async () => {
        settings.nextBaseFeeWei = wei;
      }),
    setCoinbase: (address) =>
      locked(async () => {
        settings.coinbase = address;
      }),
    impersonate(address) {
      settings.impersonated.add(bytesToUnprefixedHex(address));
    },
    stopImpersonating(address) {
      settings.impersonated.delete(bytesToUnprefixedHex(address));
    },
    impersonatedAddresses: () => [...settings.impersonated].map((h) => hexToBytes(`0x${h}`)),
    setAutoImpersonate(enabled) {
      settings.autoImpersonate = enabled;
    },
    reset: () =>
      locked(async () => {
        // In fork mode the chain starts at the fork block, with the dev accounts funded.
        const first = core.firstBlockNumber;
        const genesis = await core.getBlockByNumber(first);
        if (!genesis) throw new ServerError('the chain has no genesis block');
        pool.clear();
        snapshots.clear();
        // From the top down, RESET_CHUNK_BLOCKS per store transaction, giving the event loop back
        // between chunks: each step leaves a whole shorter chain (crash-safe), and a reset of a long
        // chain never holds other requests for more than one chunk (10,000 blocks at once held
        // them 1.5 s).
        for (let top = core.headNumber(); top > first; ) {
          const to = top > first + RESET_CHUNK_BLOCKS ? top - RESET_CHUNK_BLOCKS : first;
          const target = to === first ? genesis : await core.getBlockByNumber(to);
          if (!target) throw new ServerError(`the chain has no block ${to}`);
          core.rewindTo(to, to === first ? core.firstWorkingRoot() : target.header.stateRoot);
          top = to;
          if (top > first) await yieldToLoop();
        }
        await miner.reset();
        timeOffsetSec = 0n;
        nextTimestampSec = undefined;
        Object.assign(settings, createMiningSettings(config));
        startTimer(config.blockTimeSec);
      }),
    dumpState: () => locked(async () => dumpState(await core.readState(core.workingRoot()), core.stateKeys)),
    loadState: (dump) =>
      modifyWorkingState(async (state) => {
        // A load's trie nodes (hundreds of thousands for a large dump) reach SQLite turn by turn
        // before the commit that refers to them, rather than piling up for that one transaction.
        // The state keys too, so the commit below writes only the last turn's.
        const writeOut = async () => {
          while (core.writeSomePending(NODES_PER_TURN) > 0) await yieldToLoop();
        };
        await applyStateDump(state, dump, writeOut);
        await state.getStateRoot();
        await writeOut();
      }),
    dropTransaction: (hash) =>
      locked(async () => {
        const entry = pool.get(hash);
        if (!entry) return false;
        pool.retain(pool.all().filter((p) => p !== entry).map((p) => p.tx));
        return true;
      }),
  };

  return {
    controls,
    mineBlock,
    startIntervalMining: startTimer,
    stopIntervalMining() {
      stopped = true;
      if (timer !== undefined) config.timers.clearInterval(timer);
      timer = undefined;
    },
  };
}

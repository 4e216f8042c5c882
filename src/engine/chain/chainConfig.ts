// Options of the embedded dev chain, their anvil-compatible defaults, and the ethereumjs `Common`
// (chain rules) built from them. Everything configurable lives here, in one place.
import { paramsBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import type { KZG } from '@ethereumjs/util';
import { paramsVM } from '@ethereumjs/vm';
import { ServiceError } from '../../rpc/errors.js';
import { chooseEcrecover } from './nativeEcrecover.js';
import { DEFAULT_CHAIN_CACHE_BYTES } from './chainCacheBudget.js';
import { keccak256 } from '../interpreter/keccak.js';
import type { ForkSetup } from './forkGenesis.js';

/** Hardforks the dev chain can run (proof-of-stake rules only, as anvil's defaults). */
export const SUPPORTED_HARDFORKS = [Hardfork.Paris, Hardfork.Shanghai, Hardfork.Cancun, Hardfork.Prague, Hardfork.Osaka] as const;

/** A minimal structured logger (pino-compatible subset). */
export interface ChainLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Timer functions, injectable so interval mining can be tested without waiting. */
export interface ChainTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface DevChainOptions {
  /** Directory holding `chain.sqlite`; created if missing. */
  dataDir: string;
  /** Default 31337 (anvil). */
  chainId?: bigint;
  /** Hardfork name (`paris`, `shanghai`, `cancun`, `prague`, `osaka`); default `prague`. */
  hardfork?: string;
  /** BIP-39 mnemonic for the dev accounts; default `test test … junk` (anvil, hardhat). */
  mnemonic?: string;
  /** Dev accounts derived at m/44'/60'/0'/0/i; default 10. */
  accountCount?: number;
  /** Genesis balance of each dev account in wei; default 10,000 ETH. */
  accountBalanceWei?: bigint;
  /** Base fee of the genesis block (and block 1), wei; default 1 gwei. */
  baseFeeWei?: bigint;
  /** Block gas limit; default 30,000,000. */
  gasLimit?: bigint;
  /** Fee recipient of mined blocks; default the zero address. */
  coinbase?: string;
  /** Interval mining period in seconds; undefined or 0 = one block per transaction (automine). */
  blockTimeSec?: number;
  /** Gas limit of eth_call / eth_estimateGas when the request gives none; default 50,000,000. */
  gasCap?: bigint;
  /**
   * Time budget of one eth_call, or of one eth_estimateGas's whole search, run in-process (also
   * eth_sendTransaction's estimate); past it the call fails with ExecutionTimeoutError. Default 5000 ms.
   */
  callTimeoutMs?: number;
  /** Largest block range eth_getLogs accepts; default 10,000. */
  maxLogBlockRange?: number;
  /**
   * Memory budget (estimated bytes) for the execution records the miner keeps of mined
   * transactions, so their first trace renders instead of replaying; 0 records nothing. Default 64 MiB.
   */
  minedRecordBytes?: number;
  /**
   * Memory budget (estimated bytes) of the chain's in-memory caches in each thread that holds the
   * chain (decoded blocks, state reads and state trie nodes, chainCacheBudget.ts). Default 80 MiB.
   */
  cacheBytes?: number;
  /** Current time in milliseconds; default `Date.now`. */
  clock?: () => number;
  timers?: ChainTimers;
  logger?: ChainLogger;
  /**
   * KZG for the point-evaluation precompile (0x0a); default the bundled one (execute/kzgSetup.ts).
   * `null` runs without one: a call into 0x0a then throws out of the VM (tests of the miner's recovery).
   */
  kzg?: KZG | null;
  /**
   * Checkpoint `chain.sqlite`'s WAL from a worker thread (the service sets it): SQLite's own
   * checkpoint runs inside the COMMIT that crosses its threshold and held the loop for up to 300 ms
   * during a long anvil_mine. Default false (SQLite checkpoints itself; tests open many chains).
   */
  checkpointInWorker?: boolean;
  /**
   * Fork mode (forkGenesis.ts): the chain continues from this remote block, reading remote state
   * on demand. Its chain id and hardfork replace `chainId` and `hardfork`.
   */
  fork?: ForkSetup;
}

/** Options with every default filled in. */
export interface DevChainConfig {
  dataDir: string;
  chainId: bigint;
  hardfork: string;
  mnemonic: string;
  accountCount: number;
  accountBalanceWei: bigint;
  baseFeeWei: bigint;
  gasLimit: bigint;
  coinbase: string;
  blockTimeSec: number;
  gasCap: bigint;
  callTimeoutMs: number;
  maxLogBlockRange: number;
  minedRecordBytes: number;
  cacheBytes: number;
  clock: () => number;
  timers: ChainTimers;
  logger: ChainLogger | undefined;
  kzg: KZG | null | undefined;
  checkpointInWorker: boolean;
  fork: ForkSetup | undefined;
}

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';
const DEFAULT_MINED_RECORD_BYTES = 64 * 1024 * 1024;
const ETHER = 10n ** 18n;

/** Fills defaults and checks values; throws ServiceError on a bad option. */
export function resolveChainConfig(options: DevChainOptions): DevChainConfig {
  const hardfork = (options.fork?.hardfork ?? options.hardfork ?? Hardfork.Prague).toLowerCase();
  if (!(SUPPORTED_HARDFORKS as readonly string[]).includes(hardfork)) {
    throw new ServiceError(`unsupported hardfork "${options.hardfork}"`, { details: `use one of ${SUPPORTED_HARDFORKS.join(', ')}` });
  }
  const coinbase = (options.coinbase ?? '0x0000000000000000000000000000000000000000').toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(coinbase)) throw new ServiceError(`invalid coinbase address "${options.coinbase}"`);
  const chainId = options.fork?.chainId ?? options.chainId ?? 31337n;
  if (chainId <= 0n) throw new ServiceError(`invalid chain id ${chainId}`);
  const accountCount = options.accountCount ?? 10;
  if (!Number.isInteger(accountCount) || accountCount < 0 || accountCount > 1000) {
    throw new ServiceError(`invalid account count ${accountCount}`);
  }
  const blockTimeSec = options.blockTimeSec ?? 0;
  if (!(blockTimeSec >= 0)) throw new ServiceError(`invalid block time ${blockTimeSec}`);
  if (!((options.callTimeoutMs ?? 1) > 0)) throw new ServiceError(`invalid call timeout ${options.callTimeoutMs} ms`);
  if (!((options.minedRecordBytes ?? 0) >= 0)) throw new ServiceError(`invalid mined record memory ${options.minedRecordBytes}`);
  if (!((options.cacheBytes ?? 1) > 0)) throw new ServiceError(`invalid chain cache memory ${options.cacheBytes}`);
  return {
    dataDir: options.dataDir,
    chainId,
    hardfork,
    mnemonic: options.mnemonic ?? DEFAULT_MNEMONIC,
    accountCount,
    accountBalanceWei: options.accountBalanceWei ?? 10_000n * ETHER,
    baseFeeWei: options.baseFeeWei ?? 1_000_000_000n,
    gasLimit: options.gasLimit ?? 30_000_000n,
    coinbase,
    blockTimeSec,
    gasCap: options.gasCap ?? 50_000_000n,
    callTimeoutMs: options.callTimeoutMs ?? 5000,
    maxLogBlockRange: options.maxLogBlockRange ?? 10_000,
    minedRecordBytes: options.minedRecordBytes ?? DEFAULT_MINED_RECORD_BYTES,
    cacheBytes: options.cacheBytes ?? DEFAULT_CHAIN_CACHE_BYTES,
    kzg: options.kzg,
    checkpointInWorker: options.checkpointInWorker ?? false,
    fork: options.fork,
    clock: options.clock ?? Date.now,
    timers: options.timers ?? {
      setInterval: (fn, ms) => setInterval(fn, ms),
      clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
    },
    logger: options.logger,
  };
}

/** libsecp256k1's native addon when it loads, else its WebAssembly build (nativeEcrecover.ts). */
const ecrecover = chooseEcrecover();

/**
 * Chain rules pinned to one hardfork. Every hardfork is declared active from block 0, so no
 * mainnet transition rule (DAO extra data, London's first-block base fee) ever applies.
 */
export function createChainCommon(chainId: bigint, hardfork: string, kzg?: KZG): Common {
  const hardforks = Mainnet.hardforks.map((h) => ({ name: h.name, block: 0, timestamp: undefined, forkHash: null }));
  return new Common({
    chain: { ...Mainnet, name: 'tracehook-dev', chainId: Number(chainId), hardforks, bootstrapNodes: [], dnsNetworks: [] },
    hardfork,
    // Without a KZG, the point-evaluation precompile (0x0a) throws out of the VM instead of running.
    customCrypto: kzg ? { ecrecover, keccak256, kzg } : { ecrecover, keccak256 },
  });
}

const skipParamsMerge = (): void => undefined;

/** Common.prototype.copy, then the copy (and through its own properties, its copies) skips merges. */
function preparedCopy(this: Common): Common {
  return Object.assign(Common.prototype.copy.call(this), { updateParams: skipParamsMerge });
}

/**
 * A copy of `common` that already holds the block, transaction, VM and EVM parameters, and whose
 * copies skip `updateParams`. Every block header and transaction constructor copies its Common and
 * merges its package's parameters into the copy (JSON copies of each EIP's entry plus a rebuild of
 * the whole parameter cache: about a tenth of the CPU of an automined transaction). Copies of a
 * Common share its parameter table, so those merges rewrite the same values; here they are done
 * once. Rules and parameter values are unchanged. The miner's VM and admitted transactions use it.
 */
export function createPreparedCommon(common: Common): Common {
  const prepared = common.copy();
  for (const params of [paramsBlock, paramsTx, paramsVM, paramsEVM]) prepared.updateParams(params);
  prepared.copy = preparedCopy;
  return prepared;
}

// The persistent core of the dev chain: opens `<dataDir>/chain.sqlite`, writes genesis once, keeps
// the head and the working state root, and commits blocks / setter changes / rewinds atomically
// (trie nodes, block, receipts, indexes, the root a block was built on and head pointer in ONE
// SQLite transaction). A mined block's transaction runs on the writer thread (chainWriter.ts): the
// miner builds on the tip (the newest mined block) at once, and readers see a block, as the head,
// once it is written. It also implements the read-only ChainView. Mining, validation and RPC
// concerns live elsewhere.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PRIVATE_DIR_MODE, preparePrivateDatabaseFile } from '../../store/sqlite/privateDatabaseFile.js';
import { type WalCheckpointer, startWalCheckpointer } from '../../store/sqlite/walCheckpointer.js';
import { recordWrites } from '../../store/sqlite/sqlWrites.js';
import { ChainWriteError, type ChainWriter, startChainWriter } from './chainWriter.js';
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { KECCAK256_RLP, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { type VM, createVM } from '@ethereumjs/vm';
import { assertEthereumjsVersions } from '../ethereumjsVersions.js';
import { ServiceError, StorageFullError, UnreadableDataFileError } from '../../rpc/errors.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import { createStateManagerAt } from '../state/stateManagerAt.js';
import { createStateReadCache } from '../state/stateReadCache.js';
import { type RemoteTrieNodes, createRemoteTrieNodes } from '../state/remoteTrieNodes.js';
import { createForkBlock, forkFingerprint, writeForkState } from './forkGenesis.js';
import { type TrieNodeStore, createTrieNodeStore } from '../state/trieNodeStore.js';
import { type BlockStore, createBlockStore } from './blockStore.js';
import { createBlockStoreReads } from './blockStoreReads.js';
import { splitChainCacheBytes } from './chainCacheBudget.js';
import { type DevChainConfig, createChainCommon } from './chainConfig.js';
import { loadKzg } from '../execute/kzgSetup.js';
import { type DevAccount, deriveDevAccounts } from './devAccounts.js';
import { CREATE2_DEPLOYER_ADDRESS, HISTORY_STORAGE_ADDRESS, createGenesisBlock, writeGenesisState } from './genesis.js';
import { allowImpersonatedContractSenders } from './impersonatedTransaction.js';
import { type StateKeyIndex, createStateKeyIndex } from './stateKeyIndex.js';
import { createReadCaches } from './readCaches.js';
import type { ReceiptRecord } from './receiptCodec.js';
import type { ChainView, CreateVmOptions, HeadEvent } from './types.js';

export interface ChainCore extends ChainView {
  /** Always present on the dev chain (the block store reads a parent's header alone). */
  parentForReplay(block: Block): Promise<Block | undefined>;
  readonly config: DevChainConfig;
  readonly accounts: readonly DevAccount[];
  readonly blocks: BlockStore;
  /** Plain addresses and slots the state was written at (for state dumps). */
  readonly stateKeys: StateKeyIndex;
  /** The current canonical head block: the newest written one, which readers see. */
  head(): Block;
  /**
   * The newest mined block, which the next block builds on: the head, or a block being written
   * (see {@link ChainCore.commitBlock}).
   */
  tip(): Block;
  /** The working root the next block builds on: the tip's state root, or the working root. */
  tipRoot(): Uint8Array;
  /** Number of the chain's first block: 0, or the fork block in fork mode. */
  readonly firstBlockNumber: bigint;
  /** Working root of the first block when the chain was created (anvil_reset returns to it). */
  firstWorkingRoot(): Uint8Array;
  /** State root `latest` reads and the next block builds on (head root plus setter changes). */
  workingRoot(): Uint8Array;
  /** State root to read for `block`: the working root for the head, else the block's own root. */
  stateRootAt(block: Block): Uint8Array;
  /** A state manager on `root`; `persistent` writes reach SQLite only via the commit methods. */
  openState(root: Uint8Array, mode: 'persistent' | 'overlay'): Promise<MerkleStateManager>;
  /** A shared, read-only state manager on `root` (LRU of recent roots); never write to it. */
  readState(root: Uint8Array): Promise<MerkleStateManager>;
  /**
   * A VM over `stateManager` with the canonical chain for BLOCKHASH and its own Common copy, or
   * `common` when given (the miner passes a prepared one, see createPreparedCommon).
   */
  createVmOn(stateManager: MerkleStateManager, common?: Common): Promise<VM>;
  /**
   * Lends a pooled overlay VM on `root` to `fn`, which must leave its state unchanged
   * (checkpoint/revert). Faster than createVm for calls and estimates.
   */
  withReadVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  /**
   * `block` with a zero base fee: the context of calls that name no fee (geth's NoBaseFee), so
   * no fee check applies. Memoised, because building a header costs milliseconds.
   */
  zeroBaseFeeBlock(block: Block): Block;
  /**
   * Makes a mined block the tip at once and sends its rows to the writer thread, with the root the
   * miner built it on (kept when dev setters made it differ from the parent's root). Settles when
   * the write does: then the block is the head (its state root the working root) and head
   * listeners are told. A refused write (a full disk) rejects with StorageFullError, and every block
   * mined on it is refused too: the tip returns to the head and {@link ChainCore.writeFailure} says
   * why until {@link ChainCore.resumeWrites}.
   */
  commitBlock(block: Block, receipts: readonly ReceiptRecord[], preStateRoot: Uint8Array): Promise<void>;
  /** Settles once every block sent to the writer so far is written or refused; undefined when none is out. */
  settled(): Promise<void> | undefined;
  /** The error of a refused block write, until resumeWrites; no block is committed meanwhile. */
  writeFailure(): Error | undefined;
  /** Lets blocks be committed again after a refused write (once {@link ChainCore.settled}). */
  resumeWrites(): void;
  /**
   * Persists buffered trie nodes and a new working root (dev setters). This and the other writes
   * below run on this thread: only once no block write is out ({@link ChainCore.settled}).
   */
  commitWorkingRoot(root: Uint8Array): void;
  /**
   * Writes up to `max` buffered trie nodes, then state keys (stateKeyIndex.ts), ahead of the commit
   * that refers to them; returns how many are left. Both are harmless unreferenced: nodes are
   * content-addressed, and the key index may name keys whose state is empty (a dump skips them).
   */
  writeSomePending(max: number): number;
  /** Drops buffered trie nodes after a failed write. */
  discardPending(): void;
  /** Makes canonical block `number` the head again with `workingRoot`; returns removed blocks. */
  rewindTo(number: bigint, workingRoot: Uint8Array): Block[];
  close(): Promise<void>;
}

const META_HEAD = 'head';
const META_WORKING_ROOT = 'working_root';
const META_CONFIG = 'config';
/** Fork mode: the fork block's state with the dev accounts funded (the first working root). */
const META_FORK_ROOT = 'fork_root';

function chainFile(dataDir: string): string {
  return join(dataDir, 'chain.sqlite');
}

function openDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = chainFile(dataDir);
  preparePrivateDatabaseFile(file); // 0600, inherited by the -wal and -shm files
  const db = new Database(file);
  try {
    // WAL + NORMAL survives a process crash (kill -9) without losing committed transactions.
    // The first pragma reads the file's header: a corrupt file fails here, named.
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    throw new UnreadableDataFileError(file, error);
  }
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Opens (or creates) the chain in `config.dataDir`. */
export async function openChainCore(config: DevChainConfig): Promise<ChainCore> {
  assertEthereumjsVersions();
  const common = createChainCommon(config.chainId, config.hardfork, config.kzg === null ? undefined : (config.kzg ?? (await loadKzg())));
  const accounts = deriveDevAccounts(config.mnemonic, config.accountCount);
  const db = openDatabase(config.dataDir);
  try {
    const { blockBytes, trieBytes } = splitChainCacheBytes(config.cacheBytes);
    const trieStore = createTrieNodeStore({ db, cacheBytes: trieBytes });
    const blocks = createBlockStore({ db, common, cacheBytes: blockBytes });
    const stateKeys = createStateKeyIndex(db);
    // Fork mode: fetched nodes join the pending buffer, so the next commit keeps them.
    const remote = config.fork && createRemoteTrieNodes({ fork: config.fork.point, client: config.fork.client, onNode: (key, value) => trieStore.put(key, value) });
    await ensureGenesis({ db, blocks, trieStore, common, config, accounts, stateKeys, remote });
    const checkpointer = config.checkpointInWorker ? startCheckpointer(db, config.dataDir) : undefined;
    return createCore({ db, blocks, trieStore, common, config, accounts, stateKeys, remote, checkpointer, writer: startChainWriter(chainFile(config.dataDir)) });
  } catch (error) {
    db.close();
    config.fork?.client.close();
    throw error;
  }
}

/** WAL checkpoints off the main thread; SQLite's own come back if the worker fails. */
function startCheckpointer(db: Database.Database, dataDir: string): WalCheckpointer {
  db.pragma('wal_autocheckpoint = 0');
  return startWalCheckpointer(chainFile(dataDir), {
    onFailure: () => {
      if (db.open) db.pragma('wal_autocheckpoint = 1000');
    },
  });
}

interface CoreParts {
  checkpointer?: WalCheckpointer;
  db: Database.Database;
  blocks: BlockStore;
  trieStore: TrieNodeStore;
  common: Common;
  config: DevChainConfig;
  accounts: readonly DevAccount[];
  stateKeys: StateKeyIndex;
  remote: RemoteTrieNodes | undefined;
}

async function ensureGenesis(parts: CoreParts): Promise<void> {
  const { db, blocks, trieStore, common, config, accounts, stateKeys, remote } = parts;
  // Genesis accounts are known keys, also for data dirs older than the key index.
  for (const address of [...accounts.map((a) => a.address.bytes), hexToBytes(CREATE2_DEPLOYER_ADDRESS), hexToBytes(HISTORY_STORAGE_ADDRESS)]) stateKeys.note(address);
  db.transaction(() => stateKeys.flushPending())();
  const fork = config.fork && forkFingerprint(config.fork.point);
  const fingerprint = JSON.stringify(fork ? { chainId: config.chainId.toString(), hardfork: config.hardfork, fork } : { chainId: config.chainId.toString(), hardfork: config.hardfork });
  const stored = blocks.getMeta(META_CONFIG);
  if (stored) {
    const text = Buffer.from(stored).toString('utf8');
    if (text !== fingerprint) {
      throw new ServiceError(`the chain in ${config.dataDir} was created with ${text}`, {
        details: `it cannot be reopened with ${fingerprint} (a fork-mode data dir keeps its remote URL, by digest, and fork block); use another data dir`,
      });
    }
    return;
  }
  if (config.fork && remote) {
    await writeForkGenesis(parts, config.fork.point.blockHash, fingerprint, remote);
    return;
  }
  const state = await createStateManagerAt({ store: trieStore, common, root: KECCAK256_RLP, mode: 'persistent' });
  const stateRoot = await writeGenesisState(state, config, accounts);
  const genesis = createGenesisBlock(common, config, stateRoot, BigInt(Math.floor(config.clock() / 1000)));
  db.transaction(() => {
    trieStore.flushPending();
    blocks.putCanonicalBlock(genesis, []);
    blocks.setMeta(META_HEAD, genesis.hash());
    blocks.setMeta(META_WORKING_ROOT, stateRoot);
    blocks.setMeta(META_CONFIG, Buffer.from(fingerprint, 'utf8'));
  })();
}

/** Fork mode's first block: the remote fork block, with the dev accounts funded on its state. */
async function writeForkGenesis(parts: CoreParts, blockHash: string, fingerprint: string, remote: RemoteTrieNodes): Promise<void> {
  const { db, blocks, trieStore, common, config, accounts } = parts;
  const block = createForkBlock(common, config.fork!);
  // The state root's own node comes with any account proof; the state manager checks it on open.
  await remote.loadAccount(new Uint8Array(20));
  const state = await createStateManagerAt({ store: trieStore, common, root: block.header.stateRoot, mode: 'persistent', remote });
  const stateRoot = await writeForkState(state, config.accountBalanceWei, accounts);
  db.transaction(() => {
    trieStore.flushPending();
    blocks.putCanonicalBlock(block, [], block.header.stateRoot);
    blocks.setMeta(META_HEAD, block.hash());
    blocks.setMeta(META_WORKING_ROOT, stateRoot);
    blocks.setMeta(META_FORK_ROOT, stateRoot);
    blocks.setMeta(META_CONFIG, Buffer.from(fingerprint, 'utf8'));
  })();
  config.logger?.info?.({ forkBlock: block.header.number.toString(), forkHash: blockHash }, 'fork mode: chain created on the remote block');
}

function createCore(parts: CoreParts & { writer: ChainWriter }): ChainCore {
  const { db, blocks, trieStore, common, config, accounts, remote } = parts;
  const forkNumber = config.fork?.point.blockNumber ?? -1n;
  const headHash = blocks.getMeta(META_HEAD);
  const storedRoot = blocks.getMeta(META_WORKING_ROOT);
  const storedHead = headHash && blocks.getBlockByHash(headHash);
  if (!storedHead || !storedRoot) throw new ServiceError(`chain database in ${config.dataDir} has no head block`);
  let head: Block = storedHead;
  let workingRoot = storedRoot;
  let tip: Block = head;
  let tipRoot = workingRoot;
  const { writer } = parts;
  // Block writes sent and not yet settled; the promise of the last one; the first refusal.
  let writesOut = 0;
  let lastWrite: Promise<void> = Promise.resolve();
  let writeFailure: Error | undefined;
  const listeners = new Set<(event: HeadEvent) => void>();
  const vmBlockchain: EVMMockBlockchainInterface = {
    async getBlock(number: number) {
      // Fork mode: blocks below the fork block are the remote's.
      const hash = blocks.canonicalHash(BigInt(number)) ?? (remote && BigInt(number) < forkNumber ? await remote.blockHash(BigInt(number)) : new Uint8Array(32));
      return { hash: () => hash };
    },
    async putBlock() {},
    shallowCopy() {
      return vmBlockchain;
    },
  };

  function emit(event: HeadEvent): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        config.logger?.error({ err: error }, 'head listener failed');
      }
    }
  }

  const storeReads = createBlockStoreReads(blocks, common);
  /** A canonical block by hash, if readers may see it (not a block still being written). */
  function getCanonicalBlockByHash(hash: Uint8Array): Block | undefined {
    const block = storeReads.canonicalByHash(hash);
    return block && block.header.number <= head.header.number ? block : undefined;
  }

  function getBlockByNumber(number: bigint): Block | undefined {
    return number > head.header.number ? undefined : storeReads.canonicalByNumber(number);
  }

  // Trie reads shared by every overlay (eth_call, estimates, in-process traces), keyed by root: a
  // root's content never changes, so nothing is ever stale. The persistent miner state keeps its own.
  const stateReads = createStateReadCache({ maxBytes: splitChainCacheBytes(config.cacheBytes).stateReadBytes });

  async function openState(root: Uint8Array, mode: 'persistent' | 'overlay'): Promise<MerkleStateManager> {
    try {
      return await createStateManagerAt({ store: trieStore, common, root, mode, reads: mode === 'overlay' ? stateReads : undefined, remote });
    } catch (error) {
      throw new ServiceError(`unknown state root ${bytesToHex(root)}`, { cause: error });
    }
  }

  async function createVmOn(stateManager: MerkleStateManager, vmCommon: Common = common.copy()): Promise<VM> {
    return allowImpersonatedContractSenders(await createVM({ common: vmCommon, stateManager, blockchain: vmBlockchain }));
  }

  const reads = createReadCaches({ common, openState, createVmOn });

  /**
   * The root whose closure a commit writes (trieNodeStore.flushPending). Not in fork mode, where the
   * buffer also holds nodes fetched from the remote for reads at other roots, kept to spare fetches.
   */
  const committedRootFilter = (root: Uint8Array): Uint8Array | undefined => (remote ? undefined : root);

  /** One write transaction of the chain; a full disk is a StorageFullError naming chain.sqlite, nothing written. */
  function writeChain(write: () => void): void {
    if (writesOut > 0 || writeFailure) throw new ServiceError('a chain write on this thread while block writes are out (wait for settled(), then resumeWrites())');
    try {
      db.transaction(write)();
    } catch (error) {
      throw StorageFullError.from(error, 'chain.sqlite');
    }
  }

  const core: ChainCore = {
    chainId: config.chainId,
    common,
    config,
    accounts,
    blocks,
    stateKeys: parts.stateKeys,
    firstBlockNumber: config.fork ? forkNumber : 0n,
    firstWorkingRoot() {
      const forkRoot = config.fork && blocks.getMeta(META_FORK_ROOT);
      if (forkRoot) return forkRoot;
      const first = getBlockByNumber(config.fork ? forkNumber : 0n);
      if (!first) throw new ServiceError('the chain has no first block');
      return first.header.stateRoot;
    },
    head: () => head,
    headNumber: () => head.header.number,
    workingRoot: () => workingRoot,
    stateRootAt: (block) => (equalsBytes(block.hash(), head.hash()) ? workingRoot : block.header.stateRoot),
    async getBlockByNumber(number) {
      return getBlockByNumber(number);
    },
    async getBlockByHash(hash) {
      return getCanonicalBlockByHash(hash);
    },
    async resolveBlock(id: BlockId) {
      if (id.kind === 'number') return getBlockByNumber(id.number);
      if (id.kind === 'hash') return getCanonicalBlockByHash(Buffer.from(id.hash.slice(2), 'hex'));
      return id.tag === 'earliest' ? getBlockByNumber(0n) : head;
    },
    async getTransaction(hash) {
      const found = await storeReads.getTransaction(hash);
      return found && found.block.header.number <= head.header.number ? found : undefined;
    },
    async getReceipts(blockHash) {
      return getCanonicalBlockByHash(blockHash) ? storeReads.getReceipts(blockHash) : [];
    },
    preStateRoot: storeReads.preStateRoot,
    parentForReplay: storeReads.parentForReplay,
    async createVm(options: CreateVmOptions) {
      return createVmOn(await openState(options.stateRoot, 'overlay'));
    },
    onHead(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    openState,
    readState: reads.readState,
    createVmOn,
    withReadVm: reads.withReadVm,
    withVm: reads.withReadVm,
    zeroBaseFeeBlock: reads.zeroBaseFeeBlock,
    tip: () => tip,
    tipRoot: () => tipRoot,
    commitBlock(block, receipts, preStateRoot) {
      if (writeFailure) return Promise.reject(writeFailure);
      const writes = recordWrites();
      const root = block.header.stateRoot;
      const nodeKeys = trieStore.flushPending(committedRootFilter(root), writes) ?? [];
      parts.stateKeys.flushPending(writes);
      blocks.putCanonicalBlock(block, receipts, preStateRoot, writes);
      blocks.setMeta(META_HEAD, block.hash(), writes);
      blocks.setMeta(META_WORKING_ROOT, root, writes);
      tip = block;
      tipRoot = root;
      writesOut++;
      const written = writer.write(writes.encoded()).then(
        () => {
          writesOut--;
          trieStore.written(nodeKeys);
          blocks.written(block);
          head = block;
          workingRoot = root;
          emit({ block, removed: [] });
        },
        (error: unknown) => {
          writesOut--;
          trieStore.unwritten(nodeKeys);
          blocks.unwritten(block);
          tip = head;
          tipRoot = workingRoot;
          const refusal = StorageFullError.from(error, 'chain.sqlite') as Error;
          if (!writeFailure) {
            writeFailure = refusal;
            config.logger?.error({ err: error }, 'a block write was refused; blocks mined on it are dropped until the chain is written again');
          }
          throw error instanceof ChainWriteError && error.skipped ? writeFailure : refusal;
        },
      );
      lastWrite = written.catch(() => undefined);
      return written;
    },
    settled: () => (writesOut > 0 ? lastWrite : undefined),
    writeFailure: () => writeFailure,
    resumeWrites() {
      if (!writeFailure) return;
      if (writesOut > 0) throw new ServiceError('resumeWrites while block writes are out');
      writeFailure = undefined;
      writer.resume();
    },
    writeSomePending(max) {
      const nodesLeft = trieStore.flushSome(max);
      return nodesLeft > 0 ? nodesLeft : parts.stateKeys.flushSome(max);
    },
    commitWorkingRoot(root) {
      writeChain(() => {
        trieStore.flushPending(committedRootFilter(root));
        parts.stateKeys.flushPending();
        blocks.setMeta(META_WORKING_ROOT, root);
      });
      workingRoot = root;
      tipRoot = root;
    },
    discardPending() {
      trieStore.discardPending();
      parts.stateKeys.discardPending();
    },
    rewindTo(number, root) {
      const target = getBlockByNumber(number);
      if (!target) throw new ServiceError(`cannot rewind to unknown block ${number}`);
      let removed: Block[] = [];
      writeChain(() => {
        trieStore.flushPending();
        removed = blocks.removeCanonicalAbove(number);
        blocks.setMeta(META_HEAD, target.hash());
        blocks.setMeta(META_WORKING_ROOT, root);
      });
      head = target;
      workingRoot = root;
      tip = target;
      tipRoot = root;
      emit({ block: target, removed });
      return removed;
    },
    async close() {
      listeners.clear();
      reads.clear();
      stateReads.clear();
      await lastWrite;
      await writer.close();
      await parts.checkpointer?.close();
      config.fork?.client.close();
      db.close();
    },
  };
  return core;
}

// The read interface of the embedded dev chain, for the tracing engine and the chain follower.
// It exposes blocks, receipts and isolated VMs at any state root; writing belongs to the chain itself.
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { VM } from '@ethereumjs/vm';
import type { BlockId } from '../../rpc/schema/primitives.js';
import type { MinedRecord } from './minedRecordStore.js';

/** A log as stored with its receipt. `logIndex` is the position in the block (not in the tx). */
export interface ChainLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Index of the log within its block, counting every earlier transaction's logs. */
  logIndex: number;
}

/** A transaction receipt with the derived fields the JSON-RPC receipt object needs. */
export interface ChainReceipt {
  transactionHash: Uint8Array;
  transactionIndex: number;
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** EIP-2718 type: 0 legacy, 1 access list, 2 EIP-1559, 4 EIP-7702. */
  type: number;
  from: Uint8Array;
  /** Recipient; undefined for contract creation. */
  to: Uint8Array | undefined;
  /** 1 success, 0 failure (EIP-658). */
  status: 0 | 1;
  /** Gas used in the block up to and including this transaction. */
  cumulativeGasUsed: bigint;
  /** Gas this transaction paid for (after refunds). */
  gasUsed: bigint;
  /** Price per gas actually paid, wei (base fee + effective tip for 1559-style transactions). */
  effectiveGasPrice: bigint;
  /** Address of the created contract, for creation transactions that succeeded or failed alike. */
  contractAddress: Uint8Array | undefined;
  logs: ChainLog[];
  /** 256-byte bloom of this receipt's logs. */
  logsBloom: Uint8Array;
}

/** A transaction located on the canonical chain. */
export interface ChainTransaction {
  tx: TypedTransaction;
  block: Block;
  /** Position of the transaction in its block. */
  index: number;
}

/** Emitted after the canonical head changes (a mined block, or a rewind by `evm_revert`). */
export interface HeadEvent {
  /** The new canonical head. */
  block: Block;
  /**
   * Blocks that left the canonical chain with this change, newest first (non-empty only after
   * `evm_revert`). Their numbers are above `block.header.number`.
   */
  removed: Block[];
}

/** Options of {@link ChainView.createVm}. */
export interface CreateVmOptions {
  /** State root the VM starts from (e.g. {@link ChainView.preStateRoot} to replay a block). */
  stateRoot: Uint8Array;
}

/**
 * Read access to the canonical chain. Every method answers from persisted data, so answers survive
 * a restart. Hashes and addresses are raw bytes; quantities are bigint.
 */
export interface ChainView {
  readonly chainId: bigint;
  /** Chain rules at the configured hardfork (shared, do not mutate; `copy()` it to change the fork). */
  readonly common: Common;
  /** Number of the current canonical head block. */
  headNumber(): bigint;
  /**
   * Settles once every transaction acknowledged so far is in a block readers see (or its write was
   * refused); undefined when nothing is being written. The embedded chain's read methods wait for it.
   */
  settled?(): Promise<void> | undefined;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
  /**
   * Resolves an RPC block id. `latest`, `pending`, `safe` and `finalized` are the head (a dev
   * chain has no reorgs and no pending block), `earliest` is genesis. A hash that is not on the
   * canonical chain resolves to undefined.
   */
  resolveBlock(id: BlockId): Promise<Block | undefined>;
  /** A canonical transaction by hash, or undefined. */
  getTransaction(hash: Uint8Array): Promise<ChainTransaction | undefined>;
  /** Receipts of a canonical block in transaction order ([] for an unknown block). */
  getReceipts(blockHash: Uint8Array): Promise<ChainReceipt[]>;
  /**
   * An isolated VM on the given state root: its own state manager over the persisted trie nodes,
   * so whatever it runs never reaches the live chain. Its blockchain answers BLOCKHASH from the
   * canonical chain. Throws if the root is unknown.
   */
  createVm(options: CreateVmOptions): Promise<VM>;
  /**
   * Lends a pooled isolated VM on `stateRoot` to `fn`, which must leave its state as it found it
   * (checkpoint before, revert after). Much cheaper than createVm: no new VM, Common copy or
   * opcode table per request. A VM whose `fn` threw is not reused.
   */
  withVm<T>(stateRoot: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  /**
   * State root `block` was built on, which a replay of it must start from: its parent's state root
   * plus whatever dev setters changed before it was mined (kept per block hash, so it survives a
   * restart and a re-mined block after `evm_revert` has its own). ResourceNotFoundError without a
   * stored parent (genesis).
   */
  preStateRoot(block: Block): Promise<Uint8Array>;
  /**
   * The parent of `block` as a block with its header only (no transactions), all a replay's block
   * builder reads of it: decoding a stored parent's transactions cost tens of µs each for nothing.
   * Absent where a view has no cheaper way than {@link ChainView.getBlockByHash}.
   */
  parentForReplay?(block: Block): Promise<Block | undefined>;
  /**
   * The block with this hash as the store holds it, without the canonical check of
   * {@link ChainView.getBlockByHash}: for a trace job whose block the chain's owner has just
   * resolved on the canonical chain (a trace worker's reader would otherwise query SQLite for the
   * canonical hash again on every job). Absent where that check costs nothing.
   */
  storedBlock?(hash: Uint8Array): Promise<Block | undefined>;
  /** State root to read at `block`: the working root for the head (dev setters apply), else the block's own. */
  stateRootAt(block: Block): Uint8Array;
  /** Subscribes to head changes; returns the unsubscribe function. */
  onHead(listener: (event: HeadEvent) => void): () => void;
  /**
   * The execution record the miner kept of mined transaction `txHash` (frames and logs only: no
   * state, no steps) with the canonical block it was recorded in and its place there; undefined
   * when none is kept (disabled, evicted, or a chain that does not mine, such as a trace worker's
   * reader). A block that leaves the chain takes its records with it.
   */
  minedRecord?(txHash: Uint8Array): MinedRecord | undefined;
}

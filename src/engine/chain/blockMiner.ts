// Builds the next block on the chain core's tip (its newest mined block) from a list of signed
// transactions, using ethereumjs' BlockBuilder on a long-lived "miner" VM whose trie writes are
// buffered until the core commits the block. Each transaction runs on the interpreter where it can
// (fastMinedTransaction.ts), else through the builder on ethereumjs. Header rules follow anvil (see
// nextBaseFee). With a record store, each included transaction runs with the recorder (frames and
// logs) and the block's records are staged there until the core commits the block. Transactions
// run under an execution guard without a deadline (a block must include a transaction's whole
// run), which only yields to the event loop.
import { Block } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Capability } from '@ethereumjs/tx';
import { bigIntToBytes, bigIntToUnpaddedBytes, concatBytes, equalsBytes, generateAddress, hexToBytes } from '@ethereumjs/util';
import { type RunTxResult, type VM, buildBlock, encodeReceipt } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { installExecutionGuard } from '../execute/executionGuard.js';
import { attachRecorder } from '../record/createRecorder.js';
import type { ExecutionRecord } from '../record/types.js';
import type { ChainCore } from './chainCore.js';
import { createPreparedCommon } from './chainConfig.js';
import type { MiningSettings } from './miningSettings.js';
import { reportStateWrites } from './stateKeyIndex.js';
import { MINED_RECORD_NEEDS, type MinedRecordStore } from './minedRecordStore.js';
import { builderBlock, runMinedOnInterpreter } from './fastMinedTransaction.js';
import type { ReceiptRecord } from './receiptCodec.js';
import { orderedTrieRoot } from '../state/orderedTrieRoot.js';
import { senderOf } from './txSender.js';

/**
 * Yield every 5 ms, never time out: mining runs on the HTTP thread, where a request needs a few
 * turns of the loop to be answered (p50 of eth_blockNumber while a 30M-gas loop is mined: 44 ms
 * with 20 ms slices, 15 ms with 5 ms slices).
 */
const MINER_GUARD = { deadlineMs: undefined, yieldEveryMs: 5, now: () => performance.now() };

/** A transaction the builder refused, with the reason. */
export interface SkippedTransaction {
  tx: TypedTransaction;
  error: Error;
  /** True when the tx did not fit the remaining block gas and may fit a later block. */
  retryLater: boolean;
}

export interface BuiltBlock {
  block: Block;
  /** State root the block was built on: the working root, i.e. the parent's root plus dev setter changes. */
  preStateRoot: Uint8Array;
  receipts: ReceiptRecord[];
  results: RunTxResult[];
  /** Execution record of each included transaction, when the miner records (else undefined). */
  records: ExecutionRecord[] | undefined;
  skipped: SkippedTransaction[];
}

/**
 * Base fee of the block after `parent`. Like anvil, block 1 keeps the genesis base fee; later
 * blocks follow EIP-1559 from their parent.
 */
export function nextBaseFee(parent: Block, genesisBaseFee: bigint): bigint {
  return parent.header.number === 0n ? genesisBaseFee : parent.header.calcNextBaseFee();
}

/** Price per gas a transaction pays in a block with `baseFee`. */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if (tx.supports(Capability.EIP1559FeeMarket)) return baseFee + tx.getEffectivePriorityFee(baseFee);
  return (tx as TypedTransaction & { gasPrice: bigint }).gasPrice;
}

function isBlockGasError(error: unknown): boolean {
  return error instanceof Error && error.message.includes('higher gas limit than the remaining gas in the block');
}

export interface BuildOptions {
  /**
   * Called once the transactions have run, before the block is sealed (its state root, tries and
   * header): with the ones included, so far as they are known (a later throw may still restart
   * the build without one).
   */
  ran?(included: readonly TypedTransaction[]): void;
}

export interface BlockMiner {
  /**
   * Executes `transactions` in order on the working state and returns the sealed block (not yet
   * committed). Transactions that fail validation are skipped, not fatal.
   */
  build(transactions: readonly TypedTransaction[], timestampSec: bigint, options?: BuildOptions): Promise<BuiltBlock>;
  /** Resets the miner after a build that will not be committed. */
  reset(): Promise<void>;
  /**
   * The miner's own state, on the working root: admission reads the sender there (under the
   * chain's lock), where the next build finds it cached, instead of opening a state per new root.
   * Read only.
   */
  workingState(): Promise<MerkleStateManager>;
}

export interface BlockMinerOptions {
  /** Where built blocks' records are staged; without it nothing is recorded. */
  records?: MinedRecordStore;
  /** Gas limit, coinbase and base fee of the next blocks (default: the chain's config). */
  settings?: Pick<MiningSettings, 'gasLimit' | 'coinbase' | 'nextBaseFeeWei'>;
}

/** Base fee of the block after the head: a dev override (anvil_setNextBlockBaseFeePerGas) or the 1559 rule. */
export function pendingBaseFee(core: ChainCore, settings: Pick<MiningSettings, 'nextBaseFeeWei'> | undefined): bigint {
  return settings?.nextBaseFeeWei ?? nextBaseFee(core.tip(), core.config.baseFeeWei);
}

/** Creates the miner over the core's persistent state. */
export async function createBlockMiner(core: ChainCore, options: BlockMinerOptions = {}): Promise<BlockMiner> {
  const store = options.records;
  // The headers and blocks the builder constructs copy the VM's Common: a prepared one spares
  // each of them the parameter merge.
  const createMinerVm = async (): Promise<VM> => core.createVmOn(reportStateWrites(await core.openState(core.tipRoot(), 'persistent'), core.stateKeys), createPreparedCommon(core.common));
  let vm: VM = await createMinerVm();
  const settings = options.settings ?? { gasLimit: core.config.gasLimit, coinbase: hexToBytes(core.config.coinbase as `0x${string}`), nextBaseFeeWei: undefined };

  async function syncToWorkingRoot(root: Uint8Array): Promise<void> {
    if (!equalsBytes(await vm.stateManager.getStateRoot(), root)) await vm.stateManager.setStateRoot(root);
  }

  /**
   * One attempt at the block. A transaction the builder refuses for block gas leaves the state as
   * it was and is skipped; any other throw may come from inside the EVM (a precompile or the
   * interpreter throwing), which leaves the journal's per-call checkpoints unbalanced, so the
   * attempt stops and hands back that transaction: the caller discards the state and tries again
   * without it.
   */
  async function attempt(transactions: readonly TypedTransaction[], timestampSec: bigint, options: BuildOptions): Promise<BuiltBlock | SkippedTransaction> {
    const preStateRoot = core.tipRoot();
    await syncToWorkingRoot(preStateRoot);
    const parent = core.tip();
    const baseFee = pendingBaseFee(core, settings);
    const number = parent.header.number + 1n;
    const headerData = {
      number,
      coinbase: settings.coinbase,
      gasLimit: settings.gasLimit,
      timestamp: timestampSec,
      baseFeePerGas: baseFee,
      // Deterministic PREVRANDAO so a replay of the block sees the same value.
      mixHash: keccak_256(concatBytes(parent.hash(), bigIntToBytes(number))),
      parentBeaconBlockRoot: core.common.isActivatedEIP(4788) ? new Uint8Array(32) : undefined,
    };
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData,
      // No withdrawals (a dev chain has no beacon chain). Left out rather than passed as [], the
      // header and block take their EIP-4895 defaults (the empty trie's root, []), as build() would
      // compute them, without the MerklePatriciaTrie it makes for them (83 µs of a block, profiled).
      blockOpts: { putBlockIntoBlockchain: false },
    });
    // The header being built (as the builder passes it to runTx): the interpreter's environment,
    // and the recorder reads its base fee (gas price) and coinbase.
    const pendingBlock = builderBlock(builder, vm.common);
    const results: RunTxResult[] = [];
    const included: TypedTransaction[] = [];
    const records: ExecutionRecord[] = [];
    const skipped: SkippedTransaction[] = [];
    // A looping transaction with a large gas limit runs for seconds: other requests are served meanwhile.
    const unguard = installExecutionGuard(vm, MINER_GUARD, 0);
    try {
      for (const tx of transactions) {
        const fast = await runMinedOnInterpreter({ vm, builder, tx, block: pendingBlock, record: store !== undefined, yieldEveryMs: MINER_GUARD.yieldEveryMs });
        if (fast) {
          results.push(fast.result);
          included.push(tx);
          if (fast.record) records.push(fast.record);
          continue;
        }
        const recorder = store && attachRecorder(vm, MINED_RECORD_NEEDS);
        let result: RunTxResult;
        try {
          await recorder?.start(tx, pendingBlock);
          result = await builder.addTransaction(tx);
        } catch (error) {
          const refusal = { tx, error: error instanceof Error ? error : new Error(String(error)), retryLater: isBlockGasError(error) };
          if (!refusal.retryLater) return refusal;
          skipped.push(refusal);
          continue;
        } finally {
          recorder?.detach();
        }
        results.push(result);
        included.push(tx);
        if (recorder) records.push(await recorder.finish(result));
      }
    } finally {
      unguard();
    }
    options.ran?.(included);
    // The transactions and receipts tries in memory (ethereumjs's build() makes a trie object for each).
    builder.transactionsTrie = async () => orderedTrieRoot(included.map((tx) => tx.serialize()));
    builder.receiptTrie = async () => orderedTrieRoot(builder.transactionReceipts.map((receipt, i) => encodeReceipt(receipt, included[i]!.type)));
    const built = (await builder.build()).block;
    // build() re-creates every transaction from its fields; the block keeps the admitted objects
    // instead, which carry their hash and recovered sender (receipts, the index and the webhook
    // follower read both again, and a fresh object would recover the sender a second time).
    const block = new Block(built.header, included, built.uncleHeaders, built.withdrawals);
    const receipts = builder.transactionReceipts.map((receipt, i): ReceiptRecord => {
      const tx = included[i]!;
      const result = results[i]!;
      const from = senderOf(tx).bytes;
      return {
        status: 'status' in receipt ? receipt.status : 1,
        cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
        gasUsed: result.totalGasSpent,
        effectiveGasPrice: effectiveGasPrice(tx, baseFee),
        contractAddress: tx.to === undefined ? (result.createdAddress?.bytes ?? generateAddress(from, bigIntToUnpaddedBytes(tx.nonce))) : undefined,
        from,
        logs: receipt.logs.map(([address, topics, data]) => ({ address, topics, data })),
      };
    });
    store?.stage(block, records, receipts);
    return { block, preStateRoot, receipts, results, records: store && records, skipped };
  }

  async function reset(): Promise<void> {
    store?.discardStaged();
    core.discardPending();
    vm = await createMinerVm();
  }

  return {
    async build(transactions, timestampSec, options = {}) {
      const refused: SkippedTransaction[] = [];
      let candidates = transactions;
      for (;;) {
        const result = await attempt(candidates, timestampSec, options);
        if ('block' in result) return refused.length ? { ...result, skipped: [...refused, ...result.skipped] } : result;
        refused.push(result);
        candidates = candidates.filter((tx) => tx !== result.tx);
        await reset();
      }
    },
    reset,
    async workingState() {
      await syncToWorkingRoot(core.tipRoot());
      return vm.stateManager as MerkleStateManager;
    },
  };
}

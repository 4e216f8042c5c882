// Replays a mined block on the state the miner built it on, exactly as it built it: ethereumjs's
// BlockBuilder applies the block-start system updates (EIP-4788 beacon root, EIP-2935 block hash)
// and runs the transactions in order. Transactions before the traced ones run without a
// recorder; each traced one runs with a recorder for its needs. Nothing is written back, and unless
// asked to keep it, the VM's state is reverted afterwards (so pooled VMs can replay). The last traced
// transaction, whose state changes nothing later needs, runs on the synchronous interpreter with its
// built-in recorder when the core takes it (frames, state and steps; whatever the core does not
// implement runs on ethereumjs, the reference).
import type { Block } from '@ethereumjs/block';
import { buildBlock, type VM } from '@ethereumjs/vm';
import { RpcError, ServerError } from '../../rpc/errors.js';
import { attachRecorder } from '../record/createRecorder.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import { fastCallsEnabled } from '../interpreter/fastCallSwitch.js';
import { callFieldsOf } from '../interpreter/callFields.js';
import { runFastRecorded } from '../interpreter/fastTrace.js';
import { guardCheck, installExecutionGuard, type ExecutionGuardOptions } from './executionGuard.js';
import { installFastEipLookup } from './fastEipLookup.js';
import { senderOf } from '../chain/txSender.js';

export interface ReplayBlockOptions {
  /** A VM on the block's pre-state root (ChainView.preStateRoot: the parent's root plus dev setter changes). */
  vm: VM;
  block: Block;
  parent: Block;
  /** Needs per transaction index; transactions after the last recorded one are not run. */
  needsAt: (index: number) => RecordNeeds | undefined;
  guard?: ExecutionGuardOptions & { timeoutMs: number };
  /** Leave the state after the last replayed transaction in the VM (to run calls on it); default false. */
  keepState?: boolean;
}

/** Records of the requested transactions, by index. */
export async function replayBlock(options: ReplayBlockOptions): Promise<Map<number, ExecutionRecord>> {
  const { vm, block, parent } = options;
  const txs = block.transactions;
  let last = -1;
  for (let i = 0; i < txs.length; i++) if (options.needsAt(i)) last = i;
  const out = new Map<number, ExecutionRecord>();
  if (last < 0) return out;
  const guard = options.guard ?? { deadlineMs: undefined, yieldEveryMs: 20, now: () => performance.now(), timeoutMs: 0 };
  installFastEipLookup(vm);
  const uninstall = installExecutionGuard(vm, guard, guard.timeoutMs);
  try {
    const builder = await startBuilder(vm, block, parent);
    try {
      for (let i = 0; i <= last; i++) {
        const tx = txs[i]!;
        let needs = options.needsAt(i);
        if (!needs) {
          await builder.addTransaction(tx, { skipHardForkValidation: true, allowNoBlobs: true });
          continue;
        }
        if (i === last && !options.keepState && fastCallsEnabled()) {
          const fast = await runFastRecorded({ vm, tx: callFieldsOf(tx), from: senderOf(tx), block, needs, check: guardCheck(guard), yieldEveryMs: guard.yieldEveryMs });
          if (fast.record) {
            out.set(i, fast.record);
            continue;
          }
          needs = fast.fallbackNeeds;
        }
        const recorder = attachRecorder(vm, needs);
        try {
          await recorder.start(tx, block);
          const result = await builder.addTransaction(tx, { skipHardForkValidation: true, allowNoBlobs: true });
          out.set(i, await recorder.finish(result));
        } finally {
          recorder.detach();
        }
      }
    } finally {
      if (!options.keepState) await builder.revert();
    }
    return out;
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw new ServerError('replaying the block failed', { details: error instanceof Error ? error.message : String(error), cause: error });
  } finally {
    uninstall();
  }
}

/** A block builder on `vm` for `block` (block-start system updates applied, inside a checkpoint). */
function startBuilder(vm: VM, block: Block, parent: Block) {
  const h = block.header;
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: {
      number: h.number,
      coinbase: h.coinbase,
      gasLimit: h.gasLimit,
      timestamp: h.timestamp,
      difficulty: h.difficulty,
      baseFeePerGas: h.baseFeePerGas,
      mixHash: h.mixHash,
      extraData: h.extraData,
      parentBeaconBlockRoot: h.parentBeaconBlockRoot,
      excessBlobGas: h.excessBlobGas,
    },
    blockOpts: { putBlockIntoBlockchain: false },
  });
}

// Per-process caches that make reads cheap: shared read-only state managers per recent root, a
// pool of read VMs per root for calls, and zero-base-fee copies of blocks used as call context.
import { type Block, createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { CachedStorageStateManager } from '../state/stateManagerAt.js';
import { createReadVmPool } from './readVmPool.js';

export interface ReadCachesOptions {
  common: Common;
  openState(root: Uint8Array, mode: 'overlay'): Promise<MerkleStateManager>;
  createVmOn(stateManager: MerkleStateManager): Promise<VM>;
  /** Read-only state managers kept (LRU by root); default 16. */
  maxStates?: number;
  /** Zero-base-fee blocks kept; default 64. */
  maxBlocks?: number;
}

export interface ReadCaches {
  readState(root: Uint8Array): Promise<MerkleStateManager>;
  withReadVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  zeroBaseFeeBlock(block: Block): Block;
  clear(): void;
}

/** Moves `key` to the newest end of an insertion-ordered map used as an LRU, evicting beyond `max`. */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

export function createReadCaches(options: ReadCachesOptions): ReadCaches {
  const states = new Map<string, Promise<MerkleStateManager>>();
  const blocks = new Map<string, Block>();
  const vms = createReadVmPool({
    createVm: async (root) => options.createVmOn(await options.openState(root, 'overlay')),
    async repoint(vm, root) {
      const state = vm.stateManager;
      if (state instanceof CachedStorageStateManager) return state.repoint(root);
      // Caches first: setStateRoot flushes them into the old root before switching.
      const merkle = state as MerkleStateManager;
      merkle.clearCaches();
      merkle.originalStorageCache.clear();
      await merkle.setStateRoot(root);
    },
  });
  return {
    readState(root) {
      const key = bytesToHex(root);
      let state = states.get(key);
      if (!state) {
        state = options.openState(root, 'overlay');
        state.catch(() => states.delete(key));
      }
      touch(states, key, state, options.maxStates ?? 16);
      return state;
    },
    withReadVm: (root, fn) => vms.withVm(root, fn),
    zeroBaseFeeBlock(block) {
      const key = bytesToHex(block.hash());
      let cached = blocks.get(key);
      if (!cached) {
        const h = block.header;
        cached = createBlock(
          {
            header: {
              parentHash: h.parentHash,
              coinbase: h.coinbase,
              number: h.number,
              gasLimit: h.gasLimit,
              timestamp: h.timestamp,
              mixHash: h.mixHash,
              difficulty: h.difficulty,
              baseFeePerGas: 0n,
              excessBlobGas: h.excessBlobGas,
              parentBeaconBlockRoot: h.parentBeaconBlockRoot,
            },
          },
          { common: options.common },
        );
      }
      touch(blocks, key, cached, options.maxBlocks ?? 64);
      return cached;
    },
    clear() {
      states.clear();
      blocks.clear();
      vms.clear();
    },
  };
}

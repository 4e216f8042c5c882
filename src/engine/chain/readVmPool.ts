// A small pool of read-only VMs keyed by state root, so eth_call / eth_estimateGas and traces do not
// build a fresh VM and state manager per request (building one costs about a millisecond: Common
// copy, parameter and opcode tables). Each borrower must leave the state as it found it
// (checkpoint + revert around every run), and a VM is used by one borrower at a time. With no idle
// VM on the requested root, an idle VM on another root is re-pointed rather than a new one built.
import type { VM } from '@ethereumjs/vm';
import { flatHex } from '../state/flatHex.js';
import { CachedStorageStateManager } from '../state/stateManagerAt.js';

export interface ReadVmPool {
  /** Runs `fn` with a VM on `root` (from the pool or new) and returns it to the pool afterwards. */
  withVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  clear(): void;
}

export interface ReadVmPoolOptions {
  createVm(root: Uint8Array): Promise<VM>;
  /** Idle VMs kept across all roots; default 8. */
  maxIdle?: number;
  /**
   * A VM is dropped after this many borrows (its overlay collects garbage nodes); default 1000.
   * On an overlay that counts its checkpoints (CachedStorageStateManager) only borrows that took one
   * count: a borrower that took none wrote nothing (a traced call the interpreter answered), and
   * building a VM costs a millisecond or more, which every job queued behind it waits for.
   */
  maxUses?: number;
  /** Moves an idle VM to another root (fresh caches); without it, a missing root gets a new VM. */
  repoint?(vm: VM, root: Uint8Array): Promise<void>;
}

interface Pooled {
  vm: VM;
  uses: number;
}

export function createReadVmPool(options: ReadVmPoolOptions): ReadVmPool {
  const maxIdle = options.maxIdle ?? 8;
  const maxUses = options.maxUses ?? 1000;
  // Insertion order = age, so the first key is the least recently returned root.
  const idle = new Map<string, Pooled[]>();
  let idleCount = 0;

  function take(key: string): Pooled | undefined {
    const list = idle.get(key);
    const entry = list?.pop();
    if (entry) {
      idleCount--;
      if (list!.length === 0) idle.delete(key);
    }
    return entry;
  }

  /** The least recently returned idle VM on any root. */
  function takeOldest(): Pooled | undefined {
    const first = idle.keys().next();
    return first.done ? undefined : take(first.value);
  }

  async function acquire(key: string, root: Uint8Array): Promise<Pooled> {
    const same = take(key);
    if (same) return same;
    const other = options.repoint ? takeOldest() : undefined;
    if (other) {
      // A failed re-point (unknown root) drops that VM, like any failed borrow.
      await options.repoint!(other.vm, root);
      return other;
    }
    return { vm: await options.createVm(root), uses: 0 };
  }

  function give(key: string, entry: Pooled): void {
    if (entry.uses >= maxUses) return;
    const list = idle.get(key) ?? [];
    idle.delete(key);
    idle.set(key, [...list, entry]);
    idleCount++;
    while (idleCount > maxIdle) {
      const [oldestKey, oldest] = idle.entries().next().value as [string, Pooled[]];
      oldest.shift();
      idleCount--;
      if (oldest.length === 0) idle.delete(oldestKey);
    }
  }

  return {
    async withVm(root, fn) {
      // A flat string: noble's hex (ethereumjs's) is a chain of joined pieces, flattened for every lookup.
      const key = flatHex(root);
      const entry = await acquire(key, root);
      const state = entry.vm.stateManager;
      const counted = state instanceof CachedStorageStateManager ? state.checkpointsTaken : undefined;
      let healthy = false;
      try {
        const result = await fn(entry.vm);
        healthy = true;
        return result;
      } finally {
        if (counted === undefined || (state as CachedStorageStateManager).checkpointsTaken !== counted) entry.uses++;
        // A VM whose run threw midway may hold open checkpoints: never reuse it.
        if (healthy) give(key, entry);
      }
    },
    clear() {
      idle.clear();
      idleCount = 0;
    },
  };
}

// A small pool of read-only VMs keyed by state root, so eth_call / eth_estimateGas do not build a
// fresh VM and state manager per request. Each borrower must leave the state as it found it
// (checkpoint + revert around every run), and a VM is used by one borrower at a time.
import type { VM } from '@ethereumjs/vm';
import { bytesToUnprefixedHex } from '@ethereumjs/util';

export interface ReadVmPool {
  /** Runs `fn` with a VM on `root` (from the pool or new) and returns it to the pool afterwards. */
  withVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  clear(): void;
}

export interface ReadVmPoolOptions {
  createVm(root: Uint8Array): Promise<VM>;
  /** Idle VMs kept across all roots; default 8. */
  maxIdle?: number;
  /** A VM is dropped after this many borrows (its overlay collects garbage nodes); default 1000. */
  maxUses?: number;
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
      const key = bytesToUnprefixedHex(root);
      const entry = take(key) ?? { vm: await options.createVm(root), uses: 0 };
      entry.uses++;
      let healthy = false;
      try {
        const result = await fn(entry.vm);
        healthy = true;
        return result;
      } finally {
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

// Test support: a dev chain on a fresh temporary data dir, and signing with its dev keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TypedTransaction, type TypedTxData, createTx } from '@ethereumjs/tx';
import type { DevChainOptions } from '../chainConfig.js';
import { type DevChain, createDevChain } from '../devChain.js';

export interface TempChain {
  chain: DevChain;
  dataDir: string;
  /** Closes the chain (if open) and deletes the data dir. */
  dispose(): Promise<void>;
}

/** A new temporary data dir (deleted by the caller). */
export function makeTempDir(prefix = 'tracehook-chain-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Opens a chain on a new temporary data dir with a fixed clock unless one is given. */
export async function openTempChain(options: Partial<DevChainOptions> = {}): Promise<TempChain> {
  const dataDir = options.dataDir ?? makeTempDir();
  const chain = await createDevChain({ clock: () => 1_700_000_000_000, ...options, dataDir });
  let closed = false;
  return {
    chain,
    dataDir,
    async dispose() {
      if (!closed) await chain.close();
      closed = true;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs `data` with dev account `index` of `chain` (chain id and rules of the chain). */
export function signWithDevKey(chain: DevChain, index: number, data: TypedTxData): TypedTransaction {
  return createTx(data, { common: chain.common }).sign(chain.accounts[index]!.privateKey);
}

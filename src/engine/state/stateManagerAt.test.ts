// Overlay state managers keep SSTOREs in their storage cache until a flush: the state root must
// come out exactly as with ethereumjs's write-through, reads must see the pending values, and
// checkpoints must revert them.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Account, Address, KECCAK256_RLP, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createChainCommon } from '../chain/chainConfig.js';
import { CachedStorageStateManager, createStateManagerAt } from './stateManagerAt.js';
import { createTrieNodeStore } from './trieNodeStore.js';

const common = createChainCommon(31337n, 'prague');
const contracts = [1, 2, 3].map((i) => new Address(setLengthLeft(new Uint8Array([0xc0, i]), 20)));
const slot = (n: number) => setLengthLeft(new Uint8Array([n >> 8, n & 0xff]), 32);
const word = (n: number) => setLengthLeft(new Uint8Array([(n * 7919) >> 8, (n * 7919) & 0xff]), 32);
const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

/** A persisted root with three contracts, two of them holding some storage already. */
async function seededStore() {
  const db = new Database(':memory:');
  dbs.push(db);
  const store = createTrieNodeStore({ db });
  const seed = await createStateManagerAt({ store, common, root: KECCAK256_RLP, mode: 'persistent' });
  for (const a of contracts) await seed.putAccount(a, new Account(1n, 10n ** 18n));
  for (let i = 0; i < 20; i++) await seed.putStorage(contracts[i % 2]!, slot(i), word(i));
  const root = await seed.getStateRoot();
  db.transaction(() => store.flushPending())();
  return { store, root };
}

/** SSTORE-like writes: new slots, overwrites, zeroing (deletes), across contracts. */
async function writeMix(sm: MerkleStateManager): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const a = contracts[i % 3]!;
    const value = i % 5 === 0 ? new Uint8Array(32) : word(i + 1);
    await sm.putStorage(a, slot(i % 40), value);
  }
}

describe('overlay state manager (cached SSTOREs)', () => {
  it('default: overlays use the cached-storage manager, the live chain does not', async () => {
    const { store, root } = await seededStore();
    expect(await createStateManagerAt({ store, common, root, mode: 'overlay' })).toBeInstanceOf(CachedStorageStateManager);
    expect(await createStateManagerAt({ store, common, root, mode: 'persistent' })).not.toBeInstanceOf(CachedStorageStateManager);
  });

  it('behavior: the state root equals the write-through one, and reads see pending writes', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    const reference = await createStateManagerAt({ store, common, root, mode: 'persistent' });
    await writeMix(overlay);
    await writeMix(reference);
    for (let i = 0; i < 40; i++) {
      for (const a of contracts) expect(bytesToHex(await overlay.getStorage(a, slot(i)))).toBe(bytesToHex(await reference.getStorage(a, slot(i))));
    }
    const expected = await reference.getStateRoot();
    expect(bytesToHex(await overlay.getStateRoot())).toBe(bytesToHex(expected));
    expect(bytesToHex(expected)).not.toBe(bytesToHex(root));
  });

  it('behavior: a reverted checkpoint drops its writes; a committed one keeps them', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    const before = bytesToHex(await overlay.getStorage(contracts[0]!, slot(0)));
    await overlay.checkpoint();
    await writeMix(overlay);
    await overlay.revert();
    expect(bytesToHex(await overlay.getStorage(contracts[0]!, slot(0)))).toBe(before);
    expect(bytesToHex(await overlay.getStateRoot())).toBe(bytesToHex(root));
    await overlay.checkpoint();
    await overlay.putStorage(contracts[2]!, slot(1), hexToBytes('0x2a'));
    await overlay.commit();
    expect(bytesToHex(await overlay.getStorage(contracts[2]!, slot(1)))).toBe('0x2a');
    expect(bytesToHex(await overlay.getStateRoot())).not.toBe(bytesToHex(root));
  });

  it('error: the same argument checks as ethereumjs', async () => {
    const { store, root } = await seededStore();
    const overlay = await createStateManagerAt({ store, common, root, mode: 'overlay' });
    await expect(overlay.putStorage(contracts[0]!, new Uint8Array(31), word(1))).rejects.toThrow('Storage key must be 32 bytes long');
    await expect(overlay.putStorage(contracts[0]!, slot(1), new Uint8Array(33))).rejects.toThrow('Storage value cannot be longer than 32 bytes');
    const nobody = new Address(setLengthLeft(new Uint8Array([0xde, 0xad]), 20));
    await expect(overlay.putStorage(nobody, slot(1), word(1))).rejects.toThrow('putStorage() called on non-existing account');
  });
});

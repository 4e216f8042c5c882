// Attaches fork mode's remote source (remoteTrieNodes.ts) to a Merkle state manager: every read or
// write of an account or slot whose trie path meets a missing node first loads the key's proof,
// then walks again; code missing for a contract account is fetched by address. A path still
// incomplete after its proof (a remote that sent a wrong proof, or an account delete that must
// read a sibling no proof holds) fails with ForkStateReadError, never reads as absent; a storage
// delete in that case fetches the proof of a slot under the sibling, or where none is found keeps
// the slot as an explicit empty value (see guardStorageTrie).
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { type Address, bytesToHex } from '@ethereumjs/util';
import { ForkStateReadError } from '../../rpc/errors.js';
import type { RemoteTrieNodes } from './remoteTrieNodes.js';
import { collapsedSiblingPath, slotUnderPath } from './collapseProbe.js';
import type { TrieNodeStore } from './trieNodeStore.js';

const guarded = new WeakSet<MerklePatriciaTrie>();

function isMissingNode(error: unknown): boolean {
  return error instanceof Error && error.message === 'Missing node in DB';
}

/** A store whose misses are answered by nodes the remote source fetched on this thread. */
export function withRemoteNodes(store: TrieNodeStore, remote: RemoteTrieNodes): TrieNodeStore {
  return { ...store, get: (keyHex) => store.get(keyHex) ?? remote.node(keyHex) };
}

/**
 * Wraps `trie`'s get/put/del (keys as the state manager passes them: an address or a slot) so a
 * missing node loads `load(key)` once and the walk is repeated. Writes walk first, because
 * @ethereumjs/mpt writes through a path with a missing node as if the rest were empty.
 */
export function guardTrie(
  trie: MerklePatriciaTrie,
  load: (key: Uint8Array) => Promise<void>,
  what: (key: Uint8Array) => string,
  forkHash: string,
  fetched: (keyHex: string) => boolean,
  /** What a delete that needs a node outside every proof writes instead (none: it fails). */
  deleteFallback?: Uint8Array,
  /** Loads the node a delete's collapse needs; false when it cannot be found (collapseProbe.ts). */
  loadCollapsed?: (key: Uint8Array) => Promise<boolean>,
): MerklePatriciaTrie {
  if (guarded.has(trie)) return trie;
  guarded.add(trie);
  const get = trie.get.bind(trie);
  const put = trie.put.bind(trie);
  const del = trie.del.bind(trie);
  const read = async (key: Uint8Array): Promise<Uint8Array | null> => {
    try {
      return await get(key, true);
    } catch (error) {
      if (!isMissingNode(error)) throw error;
    }
    await load(key);
    forgetMisses(trie, fetched);
    try {
      return await get(key, true);
    } catch (error) {
      throw isMissingNode(error) ? new ForkStateReadError(what(key), forkHash, new Error('the proof does not hold the path')) : error;
    }
  };
  /** @ethereumjs/mpt's put/del hold the trie's lock and leave it held when they throw. */
  const unlock = () => (trie as unknown as { _lock: { release(): void } })._lock.release();
  const write = async <T>(key: Uint8Array, op: () => Promise<T>): Promise<T> => {
    await read(key);
    try {
      return await op();
    } catch (error) {
      if (isMissingNode(error)) unlock();
      throw isMissingNode(error) ? new ForkStateReadError(what(key), forkHash, new Error('the write needs a trie node outside its proof (a branch collapsed onto a sibling not fetched)')) : error;
    }
  };
  trie.get = (key: Uint8Array) => read(key);
  trie.put = (key: Uint8Array, value: Uint8Array | null, skipKeyTransform?: boolean) => write(key, () => put(key, value, skipKeyTransform));
  trie.del = async (key: Uint8Array, skipKeyTransform?: boolean) => {
    if (deleteFallback === undefined) return write(key, () => del(key, skipKeyTransform));
    await read(key);
    for (let attempt = 0; ; attempt++) {
      try {
        return await del(key, skipKeyTransform);
      } catch (error) {
        if (!isMissingNode(error)) throw error;
        unlock();
      }
      // The delete failed before the root moved. Once: fetch the node its collapse needs, retry.
      if (attempt > 0 || !loadCollapsed || !(await loadCollapsed(key))) break;
      forgetMisses(trie, fetched);
    }
    // Not found: the key is written as an explicit empty value.
    return write(key, () => put(key, deleteFallback, skipKeyTransform));
  };
  return trie;
}

interface CheckpointLevels {
  checkpoints?: { keyValueMap: Map<string, Uint8Array | undefined> }[];
}

/**
 * Inside a checkpoint, @ethereumjs/mpt's CheckpointDB remembers a miss as `undefined` and answers
 * it again without asking the store: those of nodes fetched since are dropped. (Nothing else is
 * undefined there: the tries never delete nodes, pruning is off.)
 */
function forgetMisses(trie: MerklePatriciaTrie, fetched: (keyHex: string) => boolean): void {
  for (const level of (trie.database() as unknown as CheckpointLevels).checkpoints ?? []) {
    for (const [keyHex, value] of level.keyValueMap) if (value === undefined && fetched(keyHex)) level.keyValueMap.delete(keyHex);
  }
}

/** RLP of the empty string: a storage value that reads as zero. */
const EMPTY_VALUE = new Uint8Array([0x80]);

/**
 * Guards a storage trie of `address`. Clearing a slot may have to merge its branch's last other
 * child, whose node no proof of a slot read here holds (nodes cannot be asked for by hash): the
 * proof of a slot found under that child's path is fetched (collapseProbe.ts). Where the child is
 * too deep for that search, the slot is kept as an explicit empty value, which reads as zero like
 * an absent slot, and only the storage root (so the block's state root) differs from a full node's.
 */
export function guardStorageTrie(trie: MerklePatriciaTrie, address: Uint8Array, remote: RemoteTrieNodes): MerklePatriciaTrie {
  const appliedKey = (slot: Uint8Array) => (trie as unknown as { appliedKey(key: Uint8Array): Uint8Array }).appliedKey(slot);
  const loadCollapsed = async (slot: Uint8Array) => {
    const path = await collapsedSiblingPath(trie, appliedKey(slot));
    const probe = path && (await slotUnderPath(path));
    if (!probe) return false;
    await remote.loadSlot(address, probe);
    return true;
  };
  return guardTrie(trie, (slot) => remote.loadSlot(address, slot), (slot) => `slot ${bytesToHex(slot)} of ${bytesToHex(address)}`, remote.fork.blockHash, (keyHex) => remote.node(keyHex) !== undefined, EMPTY_VALUE, loadCollapsed);
}

interface StateManagerInternals {
  _trie: MerklePatriciaTrie;
  _getStorageTrie(addressOrHash: Address | Uint8Array, rootAccount?: unknown): MerklePatriciaTrie;
  _caches?: { code?: { put(address: Address, code: Uint8Array): void } };
}

/** Makes `stateManager` load what it lacks from `remote` (see the module comment). */
export function attachRemoteState(stateManager: MerkleStateManager, remote: RemoteTrieNodes): void {
  const internals = stateManager as unknown as StateManagerInternals;
  const forkHash = remote.fork.blockHash;
  guardTrie(internals._trie, (address) => remote.loadAccount(address), (address) => `the account ${bytesToHex(address)}`, forkHash, (keyHex) => remote.node(keyHex) !== undefined);
  const storageTrie = internals._getStorageTrie.bind(stateManager);
  internals._getStorageTrie = (addressOrHash, rootAccount) => {
    const trie = storageTrie(addressOrHash, rootAccount);
    // Only dumps pass a hashed address; they read what is local.
    return addressOrHash instanceof Uint8Array ? trie : guardStorageTrie(trie, addressOrHash.bytes, remote);
  };
  const getCode = stateManager.getCode.bind(stateManager);
  stateManager.getCode = async (address: Address) => {
    const code = await getCode(address);
    if (code.length > 0) return code;
    const account = await stateManager.getAccount(address);
    if (!account?.isContract()) return code;
    const fetched = await remote.code(address.bytes, account.codeHash);
    internals._caches?.code?.put(address, fetched);
    return fetched;
  };
}

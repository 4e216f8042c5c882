// Fork mode's state source (issue 13 item 3): the dev chain's tries start at a remote block's real
// state root, and a trie walk that meets a node the data dir lacks asks the remote for the proof of
// the key it was after (`eth_getProof` at the fork block, pinned by hash) and keeps the proof's
// nodes, which are the missing ones: they hash to the references the walk followed. So reads,
// mining (real state roots), calls and traces run on ordinary tries, on any thread. Code is read
// by `eth_getCode` and checked against the account's code hash. A failed read fails the request
// (ForkStateReadError); nothing is ever read as empty in its place.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import { ForkStateReadError } from '../../rpc/errors.js';

/** The remote block a fork-mode chain starts from. */
export interface ForkPoint {
  /** Remote JSON-RPC URL (may hold a key: never logged or stored). */
  url: string;
  blockNumber: bigint;
  blockHash: string;
}

export interface RemoteTrieNodes {
  readonly fork: ForkPoint;
  /** A node fetched earlier by this thread, by unprefixed hex hash. */
  node(keyHex: string): Uint8Array | undefined;
  /** Fetches the account proof of `address` (20 bytes) and keeps its nodes. */
  loadAccount(address: Uint8Array): Promise<void>;
  /** Fetches the storage proof of `slot` (32 bytes) of `address` and keeps its nodes. */
  loadSlot(address: Uint8Array, slot: Uint8Array): Promise<void>;
  /** The code of `address` at the fork block; throws unless it hashes to `codeHash`. */
  code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array>;
  /** Hash of remote block `number` (below the fork), for BLOCKHASH. */
  blockHash(number: bigint): Promise<Uint8Array>;
  stats(): { proofs: number; nodes: number };
}

/** One JSON-RPC call to the remote (the service passes its JSON-RPC client, backends/upstream). */
export interface RemoteCaller {
  call(method: string, params: unknown[]): Promise<unknown>;
}

export interface RemoteTrieNodesOptions {
  fork: ForkPoint;
  client: RemoteCaller;
  /** Called with every node fetched (the chain's writer buffers them for its next commit). */
  onNode?: (keyHex: string, value: Uint8Array) => void;
}

function hexBytes(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new Error(`${what} is not hex data`);
  return Uint8Array.from(Buffer.from(value.slice(2), 'hex'));
}

export function createRemoteTrieNodes(options: RemoteTrieNodesOptions): RemoteTrieNodes {
  const { fork, client } = options;
  const at = { blockHash: fork.blockHash };
  const nodes = new Map<string, Uint8Array>();
  const inflight = new Map<string, Promise<void>>();
  const hashes = new Map<bigint, Uint8Array>();
  let proofs = 0;

  const keep = (list: unknown, what: string) => {
    if (!Array.isArray(list)) throw new Error(`${what} is not a list`);
    for (const item of list) {
      const value = hexBytes(item, what);
      const keyHex = bytesToUnprefixedHex(keccak_256(value));
      if (nodes.has(keyHex)) continue;
      nodes.set(keyHex, value);
      options.onNode?.(keyHex, value);
    }
  };

  /** One eth_getProof per key at a time; a failure is not kept, so the next read asks again. */
  const once = (key: string, what: string, fetchProof: () => Promise<void>): Promise<void> => {
    let pending = inflight.get(key);
    if (pending === undefined) {
      proofs++;
      pending = fetchProof()
        .catch((error: unknown) => {
          throw new ForkStateReadError(what, fork.blockHash, error);
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, pending);
    }
    return pending;
  };

  return {
    fork,
    node: (keyHex) => nodes.get(keyHex),
    loadAccount(address) {
      const hex = bytesToHex(address);
      return once(hex, `the account ${hex}`, async () => {
        const proof = (await client.call('eth_getProof', [hex, [], at])) as { accountProof?: unknown };
        keep(proof?.accountProof, 'eth_getProof accountProof');
      });
    },
    loadSlot(address, slot) {
      const hex = bytesToHex(address);
      const slotHex = bytesToHex(slot);
      return once(`${hex}_${slotHex}`, `slot ${slotHex} of ${hex}`, async () => {
        const proof = (await client.call('eth_getProof', [hex, [slotHex], at])) as { accountProof?: unknown; storageProof?: { proof?: unknown }[] };
        keep(proof?.accountProof, 'eth_getProof accountProof');
        keep(proof?.storageProof?.[0]?.proof, 'eth_getProof storageProof');
      });
    },
    async code(address, codeHash) {
      const hex = bytesToHex(address);
      let code: Uint8Array;
      try {
        code = hexBytes(await client.call('eth_getCode', [hex, at]), 'eth_getCode');
      } catch (error) {
        throw new ForkStateReadError(`the code of ${hex}`, fork.blockHash, error);
      }
      if (!equalsBytes(keccak_256(code), codeHash)) {
        throw new ForkStateReadError(`the code of ${hex}`, fork.blockHash, new Error(`its hash is not the account's code hash ${bytesToHex(codeHash)}`));
      }
      return code;
    },
    async blockHash(number) {
      const known = hashes.get(number);
      if (known) return known;
      let hash: Uint8Array;
      try {
        const block = (await client.call('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { hash?: unknown } | null;
        if (!block) throw new Error('the remote has no such block');
        hash = hexBytes(block.hash, 'block hash');
        if (hash.length !== 32) throw new Error('the block hash is not 32 bytes');
      } catch (error) {
        throw new ForkStateReadError(`the hash of block ${number}`, fork.blockHash, error);
      }
      hashes.set(number, hash);
      return hash;
    },
    stats: () => ({ proofs, nodes: nodes.size }),
  };
}

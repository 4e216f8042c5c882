// State of upstream blocks for fork execution (issue 13 item 2), read lazily from an archive
// upstream at a block pinned by hash (EIP-1898 `{blockHash}`): an account is its balance, nonce
// and code (one batch of eth_getBalance, eth_getTransactionCount and eth_getCode), a slot is one
// eth_getStorageAt. Reads are kept per block hash and shared by every request on that block,
// within bounds (blocks kept, entries per block); a read that failed is forgotten, never kept as
// zero. The state manager that executes on it is forkStateManager.ts's.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { KECCAK256_NULL, unpadBytes } from '@ethereumjs/util';
import { ForkStateReadError, UpstreamAbortedError, UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { hexToBytes, type Hex } from '../../rpc/hex.js';
import type { BackendCall, CallOutcome } from '../backend.js';
import type { Upstream } from '../translate/index.js';

export interface ForkAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** One request's view of one block's state (its reads go through that request's upstream). */
export interface ForkStateReader {
  /** The account after block `blockHash`; undefined when it has no nonce, balance or code. */
  account(address: Hex): Promise<ForkAccount | undefined>;
  /** The slot's value after the block, without leading zeros (empty for zero). */
  storage(address: Hex, slot: Hex): Promise<Uint8Array>;
}

/** How one request reads the upstream: single calls, and batches when the backend takes them. */
export interface ForkUpstream {
  call: Upstream;
  batch?: (calls: readonly BackendCall[]) => Promise<CallOutcome[]>;
}

export interface ForkStateCacheOptions {
  /** Blocks whose reads are kept (least recently used leaves first). Default 32. */
  maxBlocks?: number;
  /** Reads kept per block; past it reads still work but are not kept. Default 100,000. */
  maxEntriesPerBlock?: number;
  /**
   * Estimated bytes kept over all blocks (code and a fixed overhead per entry): past it the least
   * recently used blocks leave, and a block alone over it keeps no more. Default 128 MiB.
   */
  maxBytes?: number;
}

export interface ForkStateStats {
  /** Reads answered from the shared cache. */
  hits: number;
  /** Reads sent to an upstream (an account counts once, for its three calls). */
  reads: number;
  blocks: number;
  /** Estimated bytes kept. */
  bytes: number;
}

export interface ForkStateCache {
  reader(blockHash: Hex, upstream: ForkUpstream): ForkStateReader;
  stats(): ForkStateStats;
}

interface BlockReads {
  accounts: Map<string, Promise<ForkAccount | undefined>>;
  storage: Map<string, Promise<Uint8Array>>;
  bytes: number;
}

/** Estimated bytes of one kept entry besides an account's code (keys, promise, value). */
const ENTRY_BYTES = 200;

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw new UpstreamTraceMalformedError(what, 'is not a quantity');
  return BigInt(value);
}

function data(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new UpstreamTraceMalformedError(what, 'is not hex data');
  return hexToBytes(value as Hex);
}

/**
 * Sends the calls made in the same microtask as one batch when the backend takes batches (an
 * account's three reads), else one by one.
 */
function batching(upstream: ForkUpstream): Upstream {
  if (!upstream.batch) return upstream.call;
  let queue: { call: BackendCall; resolve(v: unknown): void; reject(e: unknown): void }[] = [];
  const flush = () => {
    const sent = queue;
    queue = [];
    if (sent.length === 1) {
      upstream.call(sent[0]!.call.method, sent[0]!.call.params as unknown[]).then(sent[0]!.resolve, sent[0]!.reject);
      return;
    }
    upstream.batch!(sent.map((s) => s.call)).then(
      (outcomes) => sent.forEach((s, i) => (outcomes[i]?.ok ? s.resolve(outcomes[i].result) : s.reject(outcomes[i] ? (outcomes[i] as { error: unknown }).error : new UpstreamTraceMalformedError('batch', 'an answer is missing')))),
      (error: unknown) => sent.forEach((s) => s.reject(error)),
    );
  };
  return (method, params) =>
    new Promise((resolve, reject) => {
      if (queue.length === 0) queueMicrotask(flush);
      queue.push({ call: { method, params }, resolve, reject });
    });
}

export function createForkStateCache(options: ForkStateCacheOptions = {}): ForkStateCache {
  const maxBlocks = options.maxBlocks ?? 32;
  const maxEntries = options.maxEntriesPerBlock ?? 100_000;
  const maxBytes = options.maxBytes ?? 128 * 1024 * 1024;
  const blocks = new Map<string, BlockReads>();
  let hits = 0;
  let reads = 0;
  let bytes = 0;

  /** Drops the least recently used blocks (never `current`) while over a bound. */
  const evict = (current: BlockReads) => {
    for (const [hash, block] of blocks) {
      if (bytes <= maxBytes && blocks.size <= maxBlocks) return;
      if (block === current) continue;
      blocks.delete(hash);
      bytes -= block.bytes;
    }
  };

  const blockReads = (hash: string): BlockReads => {
    let found = blocks.get(hash);
    if (found) {
      blocks.delete(hash);
      blocks.set(hash, found);
      return found;
    }
    found = { accounts: new Map(), storage: new Map(), bytes: 0 };
    blocks.set(hash, found);
    evict(found);
    return found;
  };

  /** Counts an entry's bytes against its block (if the block is still kept) and the whole. */
  const charge = (block: BlockReads, hash: string, size: number) => {
    if (blocks.get(hash) !== block) return;
    block.bytes += size;
    bytes += size;
    evict(block);
  };

  /** A shared read: kept while it is pending or succeeded, forgotten when it fails. */
  function shared<T>(block: BlockReads, hash: string, map: Map<string, Promise<T>>, key: string, what: string, read: () => Promise<T>, sizeOf: (value: T) => number): Promise<T> {
    const kept = map.get(key);
    if (kept) {
      hits++;
      return kept;
    }
    reads++;
    const promise = read().catch((error: unknown) => {
      // The caller leaving is not a failed read; anything else names what could not be read.
      throw error instanceof UpstreamAbortedError || error instanceof UpstreamTraceMalformedError ? error : new ForkStateReadError(what, hash, error);
    });
    // A block alone over the byte bound keeps nothing more (its reads still answer).
    if (map.size < maxEntries && block.bytes < maxBytes) {
      map.set(key, promise);
      promise.then(
        (value) => charge(block, hash, ENTRY_BYTES + sizeOf(value)),
        () => {
          if (map.get(key) === promise) map.delete(key);
        },
      );
    }
    return promise;
  }

  return {
    reader(blockHash, upstream) {
      const at = { blockHash };
      const send = batching(upstream);
      const hash = blockHash.toLowerCase();
      const block = blockReads(hash);
      return {
        account(address) {
          const read = async () => {
            const [balance, nonce, code] = await Promise.all([send('eth_getBalance', [address, at]), send('eth_getTransactionCount', [address, at]), send('eth_getCode', [address, at])]);
            const account = { balance: quantity(balance, 'eth_getBalance'), nonce: quantity(nonce, 'eth_getTransactionCount'), code: data(code, 'eth_getCode'), codeHash: KECCAK256_NULL };
            if (account.code.length > 0) account.codeHash = keccak_256(account.code);
            return account.balance === 0n && account.nonce === 0n && account.code.length === 0 ? undefined : account;
          };
          return shared(block, hash, block.accounts, address.toLowerCase(), `the account ${address}`, read, (a) => a?.code.length ?? 0);
        },
        storage(address, slot) {
          const read = async () => {
            const value = data(await send('eth_getStorageAt', [address, slot, at]), 'eth_getStorageAt');
            if (value.length > 32) throw new UpstreamTraceMalformedError('eth_getStorageAt', 'the value is longer than 32 bytes');
            return unpadBytes(value);
          };
          return shared(block, hash, block.storage, `${address.toLowerCase()}_${slot}`, `slot ${slot} of ${address}`, read, () => 0);
        },
      };
    },
    stats: () => ({ hits, reads, blocks: blocks.size, bytes }),
  };
}

// State of upstream blocks for fork execution (issue 13 item 2), read lazily from an archive
// upstream at a block pinned by hash (EIP-1898 `{blockHash}`): an account is its balance, nonce
// and code (one batch of eth_getBalance, eth_getTransactionCount and eth_getCode), a slot is one
// eth_getStorageAt. Reads are kept per block hash and shared by every request on that block,
// within bounds (blocks kept, entries per block); a read that failed is forgotten, never kept as
// zero. The state manager that executes on it is forkStateManager.ts's.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { KECCAK256_NULL, unpadBytes } from '@ethereumjs/util';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
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
  /** Reads kept per block; past it reads still work but are not kept. Default 200,000. */
  maxEntriesPerBlock?: number;
}

export interface ForkStateStats {
  /** Reads answered from the shared cache. */
  hits: number;
  /** Reads sent to an upstream (an account counts once, for its three calls). */
  reads: number;
  blocks: number;
}

export interface ForkStateCache {
  reader(blockHash: Hex, upstream: ForkUpstream): ForkStateReader;
  stats(): ForkStateStats;
}

interface BlockReads {
  accounts: Map<string, Promise<ForkAccount | undefined>>;
  storage: Map<string, Promise<Uint8Array>>;
}

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
  const maxEntries = options.maxEntriesPerBlock ?? 200_000;
  const blocks = new Map<string, BlockReads>();
  let hits = 0;
  let reads = 0;

  const blockReads = (hash: string): BlockReads => {
    let found = blocks.get(hash);
    if (found) {
      blocks.delete(hash);
      blocks.set(hash, found);
      return found;
    }
    found = { accounts: new Map(), storage: new Map() };
    blocks.set(hash, found);
    if (blocks.size > maxBlocks) blocks.delete(blocks.keys().next().value!);
    return found;
  };

  /** A shared read: kept while it is pending or succeeded, forgotten when it fails. */
  function shared<T>(map: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
    const kept = map.get(key);
    if (kept) {
      hits++;
      return kept;
    }
    reads++;
    const promise = read();
    if (map.size < maxEntries) {
      map.set(key, promise);
      promise.catch(() => {
        if (map.get(key) === promise) map.delete(key);
      });
    }
    return promise;
  }

  return {
    reader(blockHash, upstream) {
      const at = { blockHash };
      const send = batching(upstream);
      const block = blockReads(blockHash.toLowerCase());
      return {
        account(address) {
          return shared(block.accounts, address.toLowerCase(), async () => {
            const [balance, nonce, code] = await Promise.all([send('eth_getBalance', [address, at]), send('eth_getTransactionCount', [address, at]), send('eth_getCode', [address, at])]);
            const account = { balance: quantity(balance, 'eth_getBalance'), nonce: quantity(nonce, 'eth_getTransactionCount'), code: data(code, 'eth_getCode'), codeHash: KECCAK256_NULL };
            if (account.code.length > 0) account.codeHash = keccak_256(account.code);
            return account.balance === 0n && account.nonce === 0n && account.code.length === 0 ? undefined : account;
          });
        },
        storage(address, slot) {
          return shared(block.storage, `${address.toLowerCase()}_${slot}`, async () => {
            const value = data(await send('eth_getStorageAt', [address, slot, at]), 'eth_getStorageAt');
            if (value.length > 32) throw new UpstreamTraceMalformedError('eth_getStorageAt', 'the value is longer than 32 bytes');
            return unpadBytes(value);
          });
        },
      };
    },
    stats: () => ({ hits, reads, blocks: blocks.size }),
  };
}

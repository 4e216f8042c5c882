// The engine's ChainView over an upstream network, for fork execution: blocks, transactions and
// receipts come from the upstream (through the routed backend, with one request's context), and a
// "state root" is the hash of the block whose post-state it names, so the tracer's own replay
// and call machinery (engine/trace/createTracer.ts) runs unchanged on upstream state: a call at a
// block runs on that block's hash, a replay on its parent's hash with the block's earlier
// transactions first. BLOCKHASH reads the upstream's headers. One view serves one request; the
// state it reads is shared across requests by forkState.ts.
import { createBlockFromRPC, type Block, type JSONRPCBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { equalsBytes } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import type { ChainReceipt, ChainTransaction, ChainView } from '../../engine/chain/types.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { bytesToHex, hexToBytes, quantityToHex, type Hex } from '../../rpc/hex.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import type { ForkStateCache, ForkUpstream } from './forkState.js';
import { ForkStateManager } from './forkStateManager.js';
import type { RemoteHeader } from './remoteHardfork.js';

export interface ForkChainViewOptions {
  upstream: ForkUpstream;
  states: ForkStateCache;
  /** The network's rules at its configured hardfork (ChainView.common: raw transactions, blocks of no known header). */
  common: Common;
  /**
   * The rules a block of the upstream ran under (remoteHardfork.ts: the chain's schedule or its
   * header fields); default `common` for every block.
   */
  commonFor?: (header: RemoteHeader) => Common;
  /**
   * Read blocks with their transactions (a block trace, a call after some of a block's
   * transactions); false for calls on a block's post-state, which need its header only.
   */
  fullBlocks: boolean;
}

type RpcBlock = JSONRPCBlock & { hash: string; transactions: unknown[] };

function isBlock(value: unknown): value is RpcBlock {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as { hash?: unknown; number?: unknown; transactions?: unknown };
  return typeof b.hash === 'string' && typeof b.number === 'string' && Array.isArray(b.transactions);
}

/**
 * An ethereumjs Block of an upstream block JSON, whose hash() is the upstream's (the header is
 * rebuilt under our rules, which need not hash the same). Each transaction must hash as the
 * upstream says, or the block is refused rather than replayed wrong.
 */
function blockFromRpc(json: RpcBlock, common: Common, full: boolean): Block {
  const transactions = full ? json.transactions : [];
  let block: Block;
  try {
    block = createBlockFromRPC({ ...json, transactions } as JSONRPCBlock, [], { common, skipConsensusFormatValidation: true, freeze: false });
  } catch (error) {
    throw new UpstreamTraceMalformedError('eth_getBlockByHash', `the block cannot be read: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300));
  }
  const hash = hexToBytes(json.hash as Hex);
  Object.defineProperty(block, 'hash', { value: () => hash });
  Object.defineProperty(block.header, 'hash', { value: () => hash });
  block.transactions.forEach((tx, i) => {
    const expected = (transactions[i] as { hash?: unknown }).hash;
    if (typeof expected !== 'string' || bytesToHex(tx.hash()) !== expected.toLowerCase()) {
      throw new UpstreamTraceMalformedError('eth_getBlockByHash', `transaction ${i} does not hash to the hash the upstream gives it (a transaction type this engine cannot replay?)`);
    }
  });
  return block;
}

export function createForkChainView(options: ForkChainViewOptions): ChainView {
  const { upstream, states, common, fullBlocks } = options;
  const rulesOf = (json: RpcBlock): Common => (options.commonFor ? options.commonFor(json as unknown as RemoteHeader) : common);
  const call = upstream.call;
  /** Blocks this request read, by hash: with transactions when a replay needed them. */
  const blocks = new Map<string, { block: Block; full: boolean }>();
  let head = 0n;

  const keep = (json: unknown, full: boolean): Block | undefined => {
    if (json === null || json === undefined) return undefined;
    if (!isBlock(json)) throw new UpstreamTraceMalformedError('eth_getBlockByNumber', 'the answer is not a block');
    const block = blockFromRpc(json, rulesOf(json), full);
    blocks.set(json.hash.toLowerCase(), { block, full });
    parents.add(bytesToHex(block.header.parentHash));
    if (block.header.number > head) head = block.header.number;
    return block;
  };
  /** Parents of the blocks read: a replay needs only their headers. */
  const parents = new Set<string>();
  const byHash = async (hash: Hex, wantFull: boolean): Promise<Block | undefined> => {
    const full = wantFull && !parents.has(hash.toLowerCase());
    const kept = blocks.get(hash.toLowerCase());
    if (kept && (kept.full || !full)) return kept.block;
    return keep(await call('eth_getBlockByHash', [hash, full]), full);
  };

  const blockchain = {
    /** BLOCKHASH: the upstream's canonical hash at `number` (the EVM asks only within the last 256 blocks). */
    async getBlock(number: number) {
      const json = (await call('eth_getBlockByNumber', [quantityToHex(BigInt(number)), false])) as { hash?: unknown } | null;
      if (!json || typeof json.hash !== 'string') throw new UpstreamTraceMalformedError('eth_getBlockByNumber', `block ${number} for BLOCKHASH is missing`);
      const hash = hexToBytes(json.hash as Hex);
      return { hash: () => hash };
    },
    async putBlock() {},
    shallowCopy() {
      return blockchain;
    },
  };

  /**
   * The rules of an execution on `stateRoot` (a block hash): a call on a block's post-state runs
   * under that block's rules, a replay on its parent's state under the replayed block's.
   */
  const rulesAt = (stateRoot: Uint8Array): Common => {
    const root = bytesToHex(stateRoot).toLowerCase();
    const own = blocks.get(root);
    if (own) return own.block.common;
    for (const { block } of blocks.values()) if (bytesToHex(block.header.parentHash).toLowerCase() === root) return block.common;
    return common;
  };
  const vmOn = async (stateRoot: Uint8Array): Promise<VM> => {
    const rules = rulesAt(stateRoot);
    return createVM({ common: rules.copy(), stateManager: new ForkStateManager(states.reader(bytesToHex(stateRoot), upstream), rules), blockchain: blockchain as never });
  };

  const view: ChainView = {
    chainId: common.chainId(),
    common,
    headNumber: () => head,
    getBlockByNumber: async (number) => keep(await call('eth_getBlockByNumber', [quantityToHex(number), fullBlocks]), fullBlocks),
    getBlockByHash: async (hash) => byHash(bytesToHex(hash), fullBlocks),
    async resolveBlock(id: BlockId) {
      if (id.kind === 'hash') return byHash(id.hash, fullBlocks);
      // The pending block has no hash to pin reads to: calls on it run on the head, as the embedded chain runs them.
      const tag = id.kind === 'number' ? quantityToHex(id.number) : id.tag === 'pending' ? 'latest' : id.tag;
      return keep(await call('eth_getBlockByNumber', [tag, fullBlocks]), fullBlocks);
    },
    async getTransaction(hash): Promise<ChainTransaction | undefined> {
      const tx = (await call('eth_getTransactionByHash', [bytesToHex(hash)])) as { blockHash?: unknown } | null;
      if (!tx || typeof tx.blockHash !== 'string') return undefined;
      const block = await byHash(tx.blockHash as Hex, true);
      if (!block) return undefined;
      const index = block.transactions.findIndex((t) => equalsBytes(t.hash(), hash));
      if (index < 0) throw new UpstreamTraceMalformedError('eth_getBlockByHash', 'the block does not hold the transaction that names it (the chain moved?)');
      return { tx: block.transactions[index]!, block, index };
    },
    async getReceipts(blockHash): Promise<ChainReceipt[]> {
      const receipts = await call('eth_getBlockReceipts', [bytesToHex(blockHash)]);
      if (!Array.isArray(receipts)) throw new UpstreamTraceMalformedError('eth_getBlockReceipts', 'the answer is not a list');
      // Only the logs are read (log index offsets of a block's transactions).
      return receipts.map((r) => ({ logs: Array.isArray((r as { logs?: unknown }).logs) ? (r as { logs: unknown[] }).logs : [] }) as unknown as ChainReceipt);
    },
    createVm: ({ stateRoot }) => vmOn(stateRoot),
    async withVm(stateRoot, fn) {
      return fn(await vmOn(stateRoot));
    },
    preStateRoot: async (block) => block.header.parentHash,
    stateRootAt: (block) => block.hash(),
    onHead: () => () => undefined,
  };
  return view;
}

// A read-only ChainView over `<dataDir>/chain.sqlite` opened by another thread or process than the
// chain's writer (trace workers). WAL lets it read beside the writer and see each committed block;
// it never writes, keeps no head of its own (the canonical table is read each time), and emits no
// head events: whoever hands it work passes the block hashes and state roots to use.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Block } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import { allowImpersonatedContractSenders } from './impersonatedTransaction.js';
import { ServiceError } from '../../rpc/errors.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import { createStateManagerAt } from '../state/stateManagerAt.js';
import { createStateReadCache } from '../state/stateReadCache.js';
import type { RemoteTrieNodes } from '../state/remoteTrieNodes.js';
import { createTrieNodeStore } from '../state/trieNodeStore.js';
import { createBlockStore } from './blockStore.js';
import { createBlockStoreReads } from './blockStoreReads.js';
import { splitChainCacheBytes } from './chainCacheBudget.js';
import { createChainCommon } from './chainConfig.js';
import type { KZG } from '@ethereumjs/util';
import { createReadCaches } from './readCaches.js';
import type { ChainView } from './types.js';

export interface ChainReaderOptions {
  dataDir: string;
  /** The chain's rules: must be those it was created with (the writer checks, the reader trusts). */
  chainId: bigint;
  hardfork: string;
  /** For the point-evaluation precompile (kzgSetup.ts); without it a replay that calls 0x0a fails. */
  kzg?: KZG;
  /** Fork mode: loads what the data dir lacks from the remote (remoteTrieNodes.ts). */
  remote?: RemoteTrieNodes;
  /** Budget of this reader's decoded blocks, state reads and trie nodes, estimated bytes (chainCacheBudget.ts); default 80 MiB. */
  cacheBytes?: number;
}

export interface ChainReader extends ChainView {
  /** `block` with a zero base fee, memoised like the live chain's (calls that name no fee). */
  zeroBaseFeeBlock(block: Block): Block;
  close(): void;
}

/** Opens the chain in `options.dataDir` read-only; throws if it does not exist. */
export function openChainReader(options: ChainReaderOptions): ChainReader {
  const db = new Database(join(options.dataDir, 'chain.sqlite'), { readonly: true, fileMustExist: true });
  const common = createChainCommon(options.chainId, options.hardfork, options.kzg);
  const { blockBytes, stateReadBytes, trieBytes } = splitChainCacheBytes(options.cacheBytes);
  const trieStore = createTrieNodeStore({ db, cacheBytes: trieBytes });
  // Shared by every VM of this reader: values are keyed by root, so a new block or setter root
  // simply misses, and nothing needs invalidating.
  const stateReads = createStateReadCache({ maxBytes: stateReadBytes });
  const blocks = createBlockStore({ db, common, cacheBytes: blockBytes });
  const vmBlockchain: EVMMockBlockchainInterface = {
    async getBlock(number: number) {
      // Fork mode: blocks below the fork block are the remote's.
      const { remote } = options;
      const hash = blocks.canonicalHash(BigInt(number)) ?? (remote && BigInt(number) < remote.fork.blockNumber ? await remote.blockHash(BigInt(number)) : new Uint8Array(32));
      return { hash: () => hash };
    },
    async putBlock() {},
    shallowCopy() {
      return vmBlockchain;
    },
  };

  const headNumber = (): bigint => blocks.highestCanonical();

  const storeReads = createBlockStoreReads(blocks, common);
  const canonicalByHash = storeReads.canonicalByHash;
  const byNumber = storeReads.canonicalByNumber;

  async function openState(root: Uint8Array): Promise<MerkleStateManager> {
    try {
      return await createStateManagerAt({ store: trieStore, common, root, mode: 'overlay', reads: stateReads, remote: options.remote });
    } catch (error) {
      throw new ServiceError(`unknown state root ${bytesToHex(root)}`, { cause: error });
    }
  }

  const createVmOn = async (stateManager: MerkleStateManager) => allowImpersonatedContractSenders(await createVM({ common: common.copy(), stateManager, blockchain: vmBlockchain }));
  const reads = createReadCaches({ common, openState, createVmOn });

  return {
    chainId: options.chainId,
    common,
    headNumber,
    getBlockByNumber: async (number) => byNumber(number),
    getBlockByHash: async (hash) => canonicalByHash(hash),
    storedBlock: async (hash) => blocks.getBlockByHash(hash),
    async resolveBlock(id: BlockId) {
      if (id.kind === 'number') return byNumber(id.number);
      if (id.kind === 'hash') return canonicalByHash(Buffer.from(id.hash.slice(2), 'hex'));
      return byNumber(id.tag === 'earliest' ? 0n : headNumber());
    },
    getTransaction: storeReads.getTransaction,
    getReceipts: storeReads.getReceipts,
    preStateRoot: storeReads.preStateRoot,
    parentForReplay: storeReads.parentForReplay,
    createVm: async ({ stateRoot }) => createVmOn(await openState(stateRoot)),
    withVm: (root, fn) => reads.withReadVm(root, fn),
    // Without the writer's working root, a block's own root; callers pass the working root explicitly.
    stateRootAt: (block) => block.header.stateRoot,
    onHead: () => () => undefined,
    zeroBaseFeeBlock: (block) => reads.zeroBaseFeeBlock(block),
    close() {
      reads.clear();
      stateReads.clear();
      db.close();
    },
  };
}

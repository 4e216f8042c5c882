// The ChainView reads that only need the block store: canonical blocks by hash and number, mined
// transactions, receipts and pre-state roots. Shared by the live chain (chainCore.ts) and the
// read-only reader the trace workers open (chainReader.ts).
import { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { equalsBytes } from '@ethereumjs/util';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import type { BlockStore } from './blockStore.js';
import { receiptRecordsToChainReceipts } from './receiptCodec.js';
import type { ChainView } from './types.js';

export interface BlockStoreReads extends Pick<ChainView, 'getTransaction' | 'getReceipts' | 'preStateRoot'>, Required<Pick<ChainView, 'parentForReplay'>> {
  /** The block with this hash if it is canonical. */
  canonicalByHash(hash: Uint8Array): Block | undefined;
  /** The canonical block at `number`, if any (no upper bound: callers cap it at their head). */
  canonicalByNumber(number: bigint): Block | undefined;
}

export function createBlockStoreReads(blocks: BlockStore, common: Common): BlockStoreReads {
  function canonicalByHash(hash: Uint8Array): Block | undefined {
    const block = blocks.getBlockByHash(hash);
    const canonical = block && blocks.canonicalHash(block.header.number);
    return canonical && equalsBytes(canonical, hash) ? block : undefined;
  }
  return {
    canonicalByHash,
    canonicalByNumber(number) {
      const hash = number >= 0n ? blocks.canonicalHash(number) : undefined;
      return hash && blocks.getBlockByHash(hash);
    },
    async getTransaction(hash) {
      const location = blocks.getTxLocation(hash);
      const block = location && blocks.getBlockByHash(location.blockHash);
      const tx = block?.transactions[location!.index];
      return block && tx ? { tx, block, index: location!.index } : undefined;
    },
    async getReceipts(blockHash) {
      const block = canonicalByHash(blockHash);
      const records = block && blocks.getReceiptRecords(blockHash);
      return block && records ? receiptRecordsToChainReceipts(block, records, common) : [];
    },
    async parentForReplay(block) {
      const header = blocks.getHeaderByHash(block.header.parentHash);
      // No transactions; withdrawals empty where EIP-4895 requires the field (a builder reads neither).
      return header && new Block(header, [], [], header.common.isActivatedEIP(4895) ? [] : undefined);
    },
    async preStateRoot(block) {
      const root = blocks.preStateRoot(block);
      if (!root) throw new ResourceNotFoundError(`parent of block ${block.header.number} not found`);
      return root;
    },
  };
}

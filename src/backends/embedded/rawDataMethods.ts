// debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts and debug_getRawTransaction: the
// consensus encodings (RLP; EIP-2718 envelopes for typed transactions and receipts), as geth serves them.
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, concatBytes, intToBytes } from '@ethereumjs/util';
import { bytesToHex, hexToBytes } from '../../rpc/hex.js';
import type { rawDataSchema } from '../../rpc/schema/txpool.js';
import type { ChainReceipt } from '../../engine/chain/types.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { HandlersFor } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

/** A receipt's consensus encoding: rlp([status, cumulativeGasUsed, bloom, logs]), type-prefixed when typed. */
export function encodeReceipt(receipt: ChainReceipt): Uint8Array {
  const body = RLP.encode([
    receipt.status === 1 ? intToBytes(1) : new Uint8Array(),
    bigIntToUnpaddedBytes(receipt.cumulativeGasUsed),
    receipt.logsBloom,
    receipt.logs.map((log) => [log.address, log.topics, log.data]),
  ]);
  return receipt.type === 0 ? body : concatBytes(intToBytes(receipt.type), body);
}

export function createRawDataHandlers({ chain }: ChainMethodDeps): HandlersFor<typeof rawDataSchema> {
  return {
    debug_getRawHeader: async ([id]) => bytesToHex((await requireBlock(chain, id)).header.serialize()),
    debug_getRawBlock: async ([id]) => bytesToHex((await requireBlock(chain, id)).serialize()),
    async debug_getRawReceipts([id]) {
      const block = await requireBlock(chain, id);
      return (await chain.getReceipts(block.hash())).map((r) => bytesToHex(encodeReceipt(r)));
    },
    async debug_getRawTransaction([hash]) {
      const bytes = hexToBytes(hash);
      const tx = (await chain.getTransaction(bytes))?.tx ?? chain.pendingTransaction(bytes);
      return tx ? bytesToHex(tx.serialize()) : null;
    },
  };
}

// Test data for query budgets: a recorded block grown to many transactions and logs (same header,
// so it still extends its parent), as a busy mainnet block would be.
import type { Hex } from '../../../rpc/hex.js';
import type { BlockData, RpcLog } from '../../extract/blockData.js';

const word = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const quantity = (n: number): Hex => `0x${n.toString(16)}`;

/** `base` with `transactions` copies of its first transaction, each with `logsPerTransaction` logs; no call frames. */
export function largeBlock(base: BlockData, transactions: number, logsPerTransaction: number): BlockData {
  const { header } = base;
  const tx0 = base.transactions[0]!;
  const receipt0 = base.receipts[0]!;
  let logIndex = 0;
  const block: BlockData = { header, transactions: [], receipts: [], callFrames: null };
  for (let i = 0; i < transactions; i++) {
    const hash = word(0xb10c0000 + i);
    block.transactions.push({ ...tx0, hash, transactionIndex: quantity(i), nonce: quantity(i) });
    const logs: RpcLog[] = [];
    for (let k = 0; k < logsPerTransaction; k++) {
      logs.push({
        address: tx0.to ?? tx0.from,
        topics: [word(0xe7e47), word(i), word(k)],
        data: word(logIndex),
        blockNumber: header.number,
        transactionHash: hash,
        transactionIndex: quantity(i),
        blockHash: header.hash,
        logIndex: quantity(logIndex++),
        removed: false,
      });
    }
    block.receipts.push({ ...receipt0, transactionHash: hash, transactionIndex: quantity(i), blockHash: header.hash, logs });
  }
  return block;
}

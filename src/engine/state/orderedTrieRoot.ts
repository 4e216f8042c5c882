// The root of a block's transactions or receipts trie: values keyed by the RLP of their index, in a
// plain (unhashed-key) trie, built in memory by trieUpdate and hashed once. ethereumjs's
// BlockBuilder makes a MerklePatriciaTrie for each (a debug logger, a checkpoint database, an
// asynchronous put per key), which cost the miner about 0.2 ms a block for one transaction.
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { type TrieWrite, updateTrie } from './trieUpdate.js';

const noNodes = (): undefined => undefined;
const keepNothing = (): void => {};

/** The trie root of `values` under keys RLP(0), RLP(1), … (every value non-empty, as encoded transactions and receipts are). */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return KECCAK256_RLP;
  const writes = values.map((value, i): TrieWrite => [RLP.encode(i), value]);
  return updateTrie(noNodes, KECCAK256_RLP, writes, keepNothing, false);
}

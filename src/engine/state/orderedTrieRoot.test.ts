// orderedTrieRoot against ethereumjs's MerklePatriciaTrie with the same puts (what BlockBuilder's
// transactionsTrie and receiptTrie do): generated lists of values from none to several hundred,
// short ones (embedded nodes) and long ones, equal roots.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { orderedTrieRoot } from './orderedTrieRoot.js';

async function ethereumjsRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (const [i, value] of values.entries()) await trie.put(RLP.encode(i), value);
  return trie.root();
}

describe('orderedTrieRoot', () => {
  it('behavior: the root ethereumjs\'s trie gives for the same values under RLP(index) keys', async () => {
    const value = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.uint8Array({ minLength: 1, maxLength: 200 }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(value, { maxLength: 20 }), fc.array(value, { minLength: 100, maxLength: 400 })), async (values) => {
        expect(bytesToHex(orderedTrieRoot(values))).toBe(bytesToHex(await ethereumjsRoot(values)));
      }),
      { numRuns: 60, seed: 1129 },
    );
  });
});

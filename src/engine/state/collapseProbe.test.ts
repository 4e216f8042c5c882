// The collapse probe: the path of the sibling a delete's branch collapses onto, and a slot whose
// hashed key runs under that path (so its proof holds the sibling), on real tries.
import { describe, expect, it } from 'vitest';
import { MerklePatriciaTrie, bytesToNibbles, createMerkleProof } from '@ethereumjs/mpt';
import { keccak_256 as keccak256 } from '@noble/hashes/sha3.js';
import { setLengthLeft } from '@ethereumjs/util';
import { MAX_PROBE_NIBBLES, collapsedSiblingPath, slotUnderPath } from './collapseProbe.js';

const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
const nibblesOf = (n: number) => [...bytesToNibbles(keccak256(slot(n)))];

async function trieOf(slots: number[]): Promise<MerklePatriciaTrie> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  for (const n of slots) await trie.put(slot(n), Uint8Array.of(n + 1));
  return trie;
}

describe('collapseProbe', () => {
  it('two slots: deleting one collapses the root branch onto the other, whose first nibble is the path', async () => {
    const trie = await trieOf([0, 7]);
    const path = await collapsedSiblingPath(trie, keccak256(slot(0)));
    expect(path).toEqual([nibblesOf(7)[0]]);
    const probe = (await slotUnderPath(path!))!;
    expect(nibblesOf(7)[0]).toBe([...bytesToNibbles(keccak256(probe))][0]);
    // A proof of the probe holds slot 7's leaf: the node the collapse needs.
    const proof = await createMerkleProof(trie, probe);
    const leafOf7 = (await createMerkleProof(trie, slot(7))).at(-1)!;
    expect(proof.some((node) => Buffer.from(node).equals(Buffer.from(leafOf7)))).toBe(true);
  });

  it('no collapse when the branch keeps two other children; a path deeper than the bound gives no probe', async () => {
    // Slots whose hashed keys start with three different nibbles: the root branch keeps two.
    const firsts = new Map<number, number>();
    for (let n = 0; firsts.size < 3; n++) if (!firsts.has(nibblesOf(n)[0]!)) firsts.set(nibblesOf(n)[0]!, n);
    const slots = [...firsts.values()];
    const trie = await trieOf(slots);
    expect(await collapsedSiblingPath(trie, keccak256(slot(slots[0]!)))).toBeUndefined();
    expect(await slotUnderPath(new Array(MAX_PROBE_NIBBLES + 1).fill(0))).toBeUndefined();
  });

  it('a longer path: every probe found starts with it', async () => {
    for (const path of [[0xa, 0x3], [0xf, 0x0, 0x1], [0x1, 0x2, 0x3, 0x4]]) {
      const probe = (await slotUnderPath(path))!;
      expect([...bytesToNibbles(keccak256(probe))].slice(0, path.length)).toEqual(path);
    }
  });
});

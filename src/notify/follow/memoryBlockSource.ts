// A BlockSource over BlockData held in memory: recorded blocks (fixtures, benchmarks) or blocks
// handed over by another component. `setChain` swaps the canonical chain, which is how a reorg
// reaches the follower; blocks ever seen stay reachable by hash, as on a node.
import type { Hex } from '../../rpc/hex.js';
import type { BlockData } from '../extract/blockData.js';
import type { ReadCall } from '../extract/tokenMetadata.js';
import type { BlockSource } from './blockSource.js';

export interface MemoryBlockSource extends BlockSource {
  /** Replaces the canonical chain (index = block number) and notifies subscribers. */
  setChain(blocks: readonly BlockData[]): void;
  /** Appends one block on top of the canonical chain (its parent must be the head). */
  append(block: BlockData): void;
  /** Whole blocks handed out so far (blockByNumber and blockByHash answers). */
  blocksRead(): number;
}

export interface MemoryBlockSourceOptions {
  /** Canonical chain from genesis: `blocks[n]` is block n. */
  blocks: readonly BlockData[];
  /** Answers read-only calls; default: every call reverts (no token metadata). */
  call?: ReadCall;
}

export function createMemoryBlockSource(options: MemoryBlockSourceOptions): MemoryBlockSource {
  let chain: BlockData[] = [];
  const byHash = new Map<string, BlockData>();
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const check = (blocks: readonly BlockData[]) => {
    blocks.forEach((block, n) => {
      if (BigInt(block.header.number) !== BigInt(n)) throw new RangeError(`block at index ${n} has number ${block.header.number}`);
      if (n > 0 && block.header.parentHash !== blocks[n - 1]!.header.hash) throw new RangeError(`block ${n} does not extend block ${n - 1}`);
    });
  };
  const setChain = (blocks: readonly BlockData[]) => {
    check(blocks);
    chain = [...blocks];
    for (const block of blocks) byHash.set(block.header.hash.toLowerCase(), block);
  };
  setChain(options.blocks);
  const top = () => chain[chain.length - 1]!;
  let blocksRead = 0;
  const read = (block: BlockData | undefined) => (block && blocksRead++, block);
  return {
    async head() {
      return { number: BigInt(top().header.number), hash: top().header.hash };
    },
    async canonicalHash(number) {
      return chain[Number(number)]?.header.hash;
    },
    async headerByNumber(number) {
      const block = number >= 0n ? chain[Number(number)] : undefined;
      return block && { number: BigInt(block.header.number), hash: block.header.hash, parentHash: block.header.parentHash };
    },
    async blockByNumber(number) {
      return read(number >= 0n ? chain[Number(number)] : undefined);
    },
    async blockByHash(hash: Hex) {
      return read(byHash.get(hash.toLowerCase()));
    },
    blocksRead: () => blocksRead,
    call: options.call ?? (async () => null),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setChain(blocks) {
      setChain(blocks);
      notify();
    },
    append(block) {
      if (BigInt(block.header.number) !== BigInt(chain.length) || block.header.parentHash !== top().header.hash) {
        throw new RangeError(`block ${block.header.number} does not extend the head`);
      }
      chain.push(block);
      byHash.set(block.header.hash.toLowerCase(), block);
      notify();
    },
  };
}

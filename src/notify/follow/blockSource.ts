// What the chain follower needs from a network: the canonical head, canonical blocks with receipts
// and call frames as BlockData, blocks by hash, and read-only calls. The embedded chain implements
// it in-process (chainBlockSource.ts); an upstream JSON-RPC node implements the same interface.
import type { Hex } from '../../rpc/hex.js';
import type { BlockData } from '../extract/blockData.js';
import type { ReadCall } from '../extract/tokenMetadata.js';
import type { BlockRef } from './followerStore.js';

/** A block's place in the chain. */
export interface BlockHeaderRef extends BlockRef {
  parentHash: Hex;
}

export interface BlockSource {
  /** Current canonical head. */
  head(): Promise<BlockRef>;
  /** Hash of the canonical block at `number`; undefined above the head. */
  canonicalHash(number: bigint): Promise<Hex | undefined>;
  /** The canonical block at `number` with receipts and call frames; undefined above the head. */
  blockByNumber(number: bigint): Promise<BlockData | undefined>;
  /**
   * The canonical block at `number` as its number, hash and parent hash only; undefined above the
   * head. Optional: what the follower asks when no webhook can want the block (a source without it
   * is asked for the whole block instead).
   */
  headerByNumber?(number: bigint): Promise<BlockHeaderRef | undefined>;
  /** A block by hash while the source still has it (canonical or not); for GraphQL `parent`. */
  blockByHash(hash: Hex): Promise<BlockData | undefined>;
  /** Read-only call at a block's state (token symbol and decimals). */
  call: ReadCall;
  /**
   * Calls `listener` whenever the head may have changed (new block, rewind); returns the
   * unsubscribe function. Sources without push leave it out and the follower polls.
   */
  subscribe?(listener: () => void): () => void;
}

// Wire-level value schemas shared by every namespace: addresses, quantities, data, hashes, block ids.
import { z } from 'zod';
import { type Hex, hexToBigInt, hexToBytes } from '../hex.js';
import { withFastPath } from './fastPath.js';

/** 20-byte address; checksummed or not on input, lowercase after parsing. */
export const Address = z
  .string({ error: 'expected an address string' })
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'expected a 20-byte hex address' })
  .transform((s) => s.toLowerCase() as Hex);

/** Hex quantity without leading zeros (`0x0`, `0x1f`), decoded to bigint. */
export const Quantity = z
  .string({ error: 'expected a hex quantity string' })
  .regex(/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/, { error: 'expected a hex quantity without leading zeros' })
  .transform(hexToBigInt);

/** Even-length hex byte string, decoded to bytes. */
export const Data = z
  .string({ error: 'expected a hex data string' })
  .regex(/^0x([0-9a-fA-F]{2})*$/, { error: 'expected 0x-prefixed even-length hex data' })
  .transform(hexToBytes);

/** What a 32-byte hash string looks like (Hash32's check). */
export const HASH32_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/** 32-byte hash, lowercase after parsing. */
export const Hash32 = z
  .string({ error: 'expected a 32-byte hash string' })
  .regex(HASH32_PATTERN, { error: 'expected a 32-byte hex hash' })
  .transform((s) => s.toLowerCase() as Hex);

/** A storage slot: any hex up to 32 bytes (leading zeros allowed, as geth accepts). */
export const StorageSlot = z
  .string({ error: 'expected a storage slot hex string' })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex storage slot of at most 32 bytes' })
  .transform(hexToBigInt);

export const BlockTagName = z.enum(['latest', 'earliest', 'pending', 'safe', 'finalized']);
export type BlockTagName = z.infer<typeof BlockTagName>;

/** A block tag or hex number. */
export const BlockTag = z.union([BlockTagName, Quantity], {
  error: 'expected a block number (hex) or one of latest, earliest, pending, safe, finalized',
});
export type BlockTag = z.output<typeof BlockTag>;

/** What a method that takes "a block" resolves: by tag/number or by hash (EIP-1898). */
export type BlockId =
  | { kind: 'tag'; tag: BlockTagName }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Hex; requireCanonical: boolean };

function tagToId(tag: BlockTag): BlockId {
  return typeof tag === 'bigint' ? { kind: 'number', number: tag } : { kind: 'tag', tag };
}

const TAG_NAMES: ReadonlySet<string> = new Set(BlockTagName.options);

/** The fast path of the block parameters (fastPath.ts): a tag name, the usual case. */
function fastTag(value: unknown): BlockId | undefined {
  return typeof value === 'string' && TAG_NAMES.has(value) ? { kind: 'tag', tag: value as BlockTagName } : undefined;
}

const MAX_UINT64 = 2n ** 64n - 1n;
const BLOCK_NUMBER_OR_TAG_ERROR = 'expected a block number (hex or decimal) or one of latest, earliest, pending, safe, finalized';

/**
 * A decimal block number, as a JSON number or a string of digits: anvil (1.7.1) accepts both where
 * it takes a block number or tag (not where it takes an EIP-1898 block id), and `cast rpc
 * trace_block 5` sends the JSON number 5.
 */
const DecimalBlockNumber = z.union(
  [
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).transform(BigInt),
    z
      .string()
      .regex(/^[0-9]{1,20}$/)
      .transform(BigInt)
      .refine((n) => n <= MAX_UINT64, { error: BLOCK_NUMBER_OR_TAG_ERROR }),
  ],
  { error: BLOCK_NUMBER_OR_TAG_ERROR },
);

/**
 * A block tag or number only (no hash): `eth_getBlockByNumber`, `trace_block`, `trace_call`, ...
 * Besides hex, a decimal number (JSON number or digit string) as anvil accepts it.
 */
export const BlockNumberOrTag = withFastPath(
  z.union([BlockTagName, Quantity, DecimalBlockNumber], { error: BLOCK_NUMBER_OR_TAG_ERROR }).transform(tagToId),
  fastTag,
);

/** EIP-1898 block parameter: tag, number, hash string, `{blockNumber}` or `{blockHash, requireCanonical}`. */
export const BlockNumberOrHash = withFastPath(
  z.union(
    [
      // The hash goes first: a 32-byte hex string also matches the quantity pattern (geth reads it as a hash).
      Hash32.transform((hash): BlockId => ({ kind: 'hash', hash, requireCanonical: false })),
      BlockTag.transform(tagToId),
      z.object({ blockNumber: BlockTag }).transform(({ blockNumber }) => tagToId(blockNumber)),
      z
        .object({ blockHash: Hash32, requireCanonical: z.boolean().optional() })
        .transform(({ blockHash, requireCanonical }): BlockId => ({
          kind: 'hash',
          hash: blockHash,
          requireCanonical: requireCanonical ?? false,
        })),
    ],
    { error: 'expected a block number, tag, block hash, or {blockNumber}/{blockHash} object' },
  ),
  fastTag,
);

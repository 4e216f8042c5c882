// Decoded-block cache: the byte budget holds whatever the blocks' sizes, least recently used first out.
import { describe, expect, it } from 'vitest';
import { type Block, createBlock } from '@ethereumjs/block';
import { createTx } from '@ethereumjs/tx';
import { hexToBytes } from '@ethereumjs/util';
import { createChainCommon } from './chainConfig.js';
import { createDecodedBlockCache, estimateDecodedBlockBytes } from './decodedBlockCache.js';
import { deriveDevAccounts } from './devAccounts.js';

const common = createChainCommon(31337n, 'prague');
const [alice] = deriveDevAccounts('test test test test test test test test test test test junk', 1);
const A = hexToBytes(`0x${'aa'.repeat(20)}`);

function block(number: bigint, txCount: number): Block {
  const transactions = Array.from({ length: txCount }, (_, nonce) =>
    createTx({ type: 2, nonce: BigInt(nonce), gasLimit: 21_000n, to: A, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n }, { common }).sign(alice!.privateKey),
  );
  return createBlock({ header: { number, baseFeePerGas: 1n, gasLimit: 30_000_000n }, transactions, withdrawals: [] }, { common });
}

const size = (b: Block): number => estimateDecodedBlockBytes(b, b.serialize().length);

describe('decoded block cache', () => {
  it('default: the estimate grows with the transactions, and the budget is bytes, not blocks', () => {
    const small = block(1n, 1);
    const large = block(2n, 50);
    expect(size(large)).toBeGreaterThan(size(small) + 49 * 12 * 1024);
    const cache = createDecodedBlockCache();
    expect(cache.stats().maxBytes).toBe(16 * 1024 * 1024);
  });

  it('behavior: a run of blocks of any size never holds more than the budget, and keeps the newest', () => {
    const sizes = [1, 1, 30, 2, 1, 80, 1, 5, 1, 1, 40, 1];
    const blocks = sizes.map((n, i) => block(BigInt(i + 1), n));
    const maxBytes = size(blocks[5]!) + size(blocks[6]!) + 1;
    const cache = createDecodedBlockCache({ maxBytes });
    blocks.forEach((b, i) => {
      cache.set(`b${i}`, b, b.serialize().length);
      expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
      expect(cache.get(`b${i}`)).toBe(b);
    });
    // The bytes it counts are those of the blocks it holds.
    const held = blocks.filter((_, i) => cache.get(`b${i}`) !== undefined);
    expect(cache.stats().blocks).toBe(held.length);
    expect(cache.stats().bytes).toBe(held.reduce((n, b) => n + size(b), 0));
  });

  it('behavior: a hit makes a block the most recent, so the oldest untouched one goes first', () => {
    const [b1, b2, b3] = [block(1n, 1), block(2n, 1), block(3n, 1)];
    const cache = createDecodedBlockCache({ maxBytes: size(b1!) * 2 });
    cache.set('1', b1!, b1!.serialize().length);
    cache.set('2', b2!, b2!.serialize().length);
    expect(cache.get('1')).toBe(b1);
    cache.set('3', b3!, b3!.serialize().length);
    expect(cache.get('2')).toBeUndefined();
    expect(cache.get('1')).toBe(b1);
    expect(cache.get('3')).toBe(b3);
  });

  it('behavior: a block larger than the whole budget is not kept and evicts nothing; delete and replace keep the count right', () => {
    const small = block(1n, 1);
    const cache = createDecodedBlockCache({ maxBytes: size(small) * 3 });
    cache.set('s', small, small.serialize().length);
    cache.set('big', block(2n, 10), 0);
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('s')).toBe(small);
    cache.set('s', small, small.serialize().length);
    expect(cache.stats()).toMatchObject({ blocks: 1, bytes: size(small) });
    cache.delete('s');
    expect(cache.stats()).toMatchObject({ blocks: 0, bytes: 0 });
  });
});

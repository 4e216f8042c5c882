import { describe, it, expect } from 'vitest';
import { hexToBytes } from '../../rpc/hex.js';
import { extractTransfers } from './transfers.js';
import { asRemoved, unitsToNumber, type ActivityContext } from './activityPayload.js';
import { createAddressActivityBuilder, createNftMatcher, selectAddressActivity, selectNftActivity } from './matchActivity.js';
import { decodeDecimals, decodeSymbol, type TokenMetadata } from './tokenMetadata.js';
import { loadActivityFixture, scenarioBlock } from './testing/activityFixture.js';
import type { Hex } from '../../rpc/hex.js';

const fixture = loadActivityFixture();
const { a, b, c } = fixture.accounts;
const { token, nft, multi, router1 } = fixture.contracts;

/** Token metadata decoded from the real eth_call answers recorded with the blocks. */
const tokens = new Map<Hex, TokenMetadata>(
  Object.entries(fixture.tokenCalls).map(([contract, calls]) => [
    contract as Hex,
    { symbol: calls.symbol ? decodeSymbol(hexToBytes(calls.symbol)) : null, decimals: calls.decimals ? decodeDecimals(hexToBytes(calls.decimals)) : null },
  ]),
);

function context(blockNumber: bigint): ActivityContext {
  return { blockNumber, nativeAsset: 'ETH', nativeDecimals: 18, tokens };
}

function addressActivity(scenario: Parameters<typeof scenarioBlock>[1], watched: string[]) {
  const block = scenarioBlock(fixture, scenario);
  const builder = createAddressActivityBuilder(context(BigInt(block.header.number)));
  return { block, activity: selectAddressActivity(extractTransfers(block), new Set(watched), builder) };
}

describe('address activity payload', () => {
  it('default: token metadata decodes from the recorded symbol() and decimals() answers', () => {
    expect(tokens.get(token)).toEqual({ symbol: 'ATK', decimals: 6 });
    expect(tokens.get(nft)).toEqual({ symbol: 'ANFT', decimals: null });
    expect(tokens.get(multi)).toEqual({ symbol: 'AMULTI', decimals: null });
  });

  it('behavior: an external ETH transfer has every field of the hosted provider', () => {
    const { block, activity } = addressActivity('ethExternal', [b]);
    expect(activity).toEqual([
      {
        fromAddress: a,
        toAddress: b,
        blockNum: '0x2',
        hash: block.transactions[0]!.hash,
        value: 1.5,
        asset: 'ETH',
        category: 'external',
        rawContract: { rawValue: '0x14d1120d7b160000', address: null, decimals: 18 },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: null,
        log: null,
      },
    ]);
  });

  it('behavior: an internal transfer carries typeTraceAddress and matches on the receiving side', () => {
    const { block, activity } = addressActivity('split', [c]);
    expect(activity).toEqual([
      {
        fromAddress: router1,
        toAddress: c,
        blockNum: '0x4',
        hash: block.transactions[0]!.hash,
        value: 2,
        asset: 'ETH',
        category: 'internal',
        rawContract: { rawValue: '0x1bc16d674ec80000', address: null, decimals: 18 },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: 'call_1',
        log: null,
      },
    ]);
  });

  it('behavior: an ERC-20 transfer is decimal-adjusted and carries its log', () => {
    const { block, activity } = addressActivity('erc20', [b]);
    const log = block.receipts[1]!.logs[0]!;
    expect(activity).toEqual([
      {
        fromAddress: a,
        toAddress: b,
        blockNum: '0x3',
        hash: block.transactions[1]!.hash,
        value: 1.234567,
        asset: 'ATK',
        category: 'token',
        rawContract: { rawValue: '0x000000000000000000000000000000000000000000000000000000000012d687', address: token, decimals: 6 },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: null,
        log: {
          address: token,
          topics: log.topics,
          data: '0x000000000000000000000000000000000000000000000000000000000012d687',
          blockNumber: '0x3',
          transactionHash: block.transactions[1]!.hash,
          transactionIndex: '0x1',
          blockHash: block.header.hash,
          logIndex: log.logIndex,
          removed: false,
        },
      },
    ]);
  });

  it('behavior: a watched sender sees its mint, transfer and burn in block order', () => {
    const { activity } = addressActivity('erc20', [a]);
    expect(activity.map((x) => [x.fromAddress, x.toAddress, x.value])).toEqual([
      ['0x0000000000000000000000000000000000000000', a, 5],
      [a, b, 1.234567],
      [a, '0x0000000000000000000000000000000000000000', 0.5],
    ]);
  });

  it('behavior: ERC-721 and ERC-1155 batch transfers carry ids, symbol and raw log data', () => {
    const erc721 = addressActivity('erc721', [b]).activity;
    expect(erc721.map((x) => ({ category: x.category, from: x.fromAddress, id: x.erc721TokenId, asset: x.asset, value: x.value, raw: x.rawContract }))).toEqual([
      { category: 'erc721', from: a, id: '0x7', asset: 'ANFT', value: null, raw: { rawValue: '0x', address: nft, decimals: null } },
      { category: 'erc721', from: '0x0000000000000000000000000000000000000000', id: '0x8', asset: 'ANFT', value: null, raw: { rawValue: '0x', address: nft, decimals: null } },
      { category: 'erc721', from: b, id: '0x8', asset: 'ANFT', value: null, raw: { rawValue: '0x', address: nft, decimals: null } },
    ]);
    const { block, activity } = addressActivity('erc1155', [c]);
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({
      fromAddress: a,
      toAddress: c,
      category: 'erc1155',
      asset: 'AMULTI',
      value: null,
      erc721TokenId: null,
      erc1155Metadata: [
        { tokenId: '0x2', value: '0x5' },
        { tokenId: '0x3', value: '0x6' },
      ],
      rawContract: { rawValue: block.receipts[3]!.logs[0]!.data, address: multi, decimals: null },
      typeTraceAddress: null,
    });
    expect(activity[0]!.log!.topics[0]).toBe('0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb');
  });

  it('behavior: nothing matches an address that took no part', () => {
    expect(addressActivity('erc1155', ['0x000000000000000000000000000000000000dead']).activity).toEqual([]);
  });

  it('behavior: a removed copy marks the entry and its log, leaving the original intact', () => {
    const { activity } = addressActivity('erc20', [b]);
    const removed = asRemoved(activity[0]!);
    expect(removed.removed).toBe(true);
    expect(removed.log!.removed).toBe(true);
    expect(activity[0]!.log!.removed).toBe(false);
    expect('removed' in activity[0]!).toBe(false);
    const eth = asRemoved(addressActivity('ethExternal', [b]).activity[0]!);
    expect(eth).toMatchObject({ removed: true, log: null });
  });

  it('args: unitsToNumber adjusts by decimals exactly before rounding to a double', () => {
    expect(unitsToNumber(1_234_567n, 6)).toBe(1.234567);
    expect(unitsToNumber(5n, 18)).toBe(5e-18);
    expect(unitsToNumber(10n ** 30n, 18)).toBe(1e12);
    expect(unitsToNumber(140316n, 0)).toBe(140316);
  });
});

describe('NFT activity payload', () => {
  const nftActivity = (scenario: Parameters<typeof scenarioBlock>[1], matcher: ReturnType<typeof createNftMatcher>) => {
    const block = scenarioBlock(fixture, scenario);
    return { block, activity: selectNftActivity(extractTransfers(block), matcher, BigInt(block.header.number)) };
  };

  it('behavior: a contract filter yields every transfer of the contract with the provider fields', () => {
    const { block, activity } = nftActivity('erc721', createNftMatcher([{ contractAddress: nft.toUpperCase().replace('0X', '0x'), tokenId: null }]));
    expect(activity).toHaveLength(4);
    expect(activity[1]).toEqual({
      fromAddress: a,
      toAddress: b,
      contractAddress: nft,
      blockNum: '0x7',
      hash: block.transactions[1]!.hash,
      erc721TokenId: '0x7',
      erc1155Metadata: null,
      category: 'erc721',
      log: {
        address: nft,
        topics: block.receipts[1]!.logs[0]!.topics,
        data: '0x',
        blockNumber: '0x7',
        transactionHash: block.transactions[1]!.hash,
        transactionIndex: '0x1',
        blockHash: block.header.hash,
        logIndex: block.receipts[1]!.logs[0]!.logIndex,
        removed: false,
      },
    });
  });

  it('behavior: a token-id filter keeps only that token, and only its entries of a batch', () => {
    expect(nftActivity('erc721', createNftMatcher([{ contractAddress: nft, tokenId: '8' }])).activity.map((x) => x.erc721TokenId)).toEqual(['0x8', '0x8']);
    const batch = nftActivity('erc1155', createNftMatcher([{ contractAddress: multi, tokenId: '3' }])).activity;
    expect(batch.map((x) => x.erc1155Metadata)).toEqual([
      [{ tokenId: '0x3', value: '0x1e' }],
      [{ tokenId: '0x3', value: '0x6' }],
      [{ tokenId: '0x3', value: '0x1' }],
    ]);
  });

  it('behavior: a whole-contract filter wins over a token filter for the same contract', () => {
    const matcher = createNftMatcher([
      { contractAddress: multi, tokenId: '3' },
      { contractAddress: multi, tokenId: null },
      { contractAddress: multi, tokenId: '9' },
    ]);
    expect(nftActivity('erc1155', matcher).activity).toHaveLength(5);
  });

  it('behavior: the every-NFT matcher takes all ERC-721 and ERC-1155 transfers, no ERC-20', () => {
    expect(nftActivity('erc1155', createNftMatcher([], true)).activity).toHaveLength(5);
    expect(nftActivity('erc20', createNftMatcher([], true)).activity).toEqual([]);
  });

  it('behavior: an unrelated contract filter matches nothing', () => {
    expect(nftActivity('erc721', createNftMatcher([{ contractAddress: multi, tokenId: null }])).activity).toEqual([]);
  });
});

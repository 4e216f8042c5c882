// Test notifications carry a realistic sample, about the webhook's own address or NFT filter, shaped
// as the follower's real events are (same builders), with random hashes.
import { describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC } from '../extract/transfers.js';
import { testNotificationEvent } from './testNotification.js';

// The activity entries, loosely typed for the assertions.
type Entry = { rawContract: { rawValue: string }; hash: string; log: { data: string; topics: string[] } } & Record<string, unknown>;

const WATCHED = '0x00000000000000000000000000000000000000A1';
const HASH = /^0x[0-9a-f]{64}$/;

describe('testNotificationEvent', () => {
  it('ADDRESS_ACTIVITY: ETH received by the watched address and a token sent from it, with the token log and the 32-byte raw value', () => {
    const event = testNotificationEvent('ADDRESS_ACTIVITY', 'ETH_SEPOLIA', { address: WATCHED }) as { network: string; test: boolean; activity: Entry[] };
    expect(event).toMatchObject({ network: 'ETH_SEPOLIA', test: true });
    const [eth, token] = event.activity;
    expect(eth).toEqual({
      fromAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      toAddress: WATCHED.toLowerCase(),
      blockNum: expect.stringMatching(/^0x[1-9a-f][0-9a-f]*$/),
      hash: expect.stringMatching(HASH),
      value: 1.5,
      asset: 'ETH',
      category: 'external',
      rawContract: { rawValue: '0x14d1120d7b160000', address: null, decimals: 18 },
      erc721TokenId: null,
      erc1155Metadata: null,
      typeTraceAddress: null,
      log: null,
    });
    expect(token).toMatchObject({ fromAddress: WATCHED.toLowerCase(), category: 'token', asset: 'USDC', value: 25.5, rawContract: { decimals: 6 } });
    expect(token!.rawContract.rawValue).toBe(token!.log.data);
    expect(BigInt(token!.log.data)).toBe(25_500_000n);
    expect(token!.log.topics).toEqual([TRANSFER_TOPIC, `0x${'0'.repeat(24)}${WATCHED.slice(2).toLowerCase()}`, expect.stringMatching(HASH)]);
    expect(token!.log).toMatchObject({ transactionHash: token!.hash, blockNumber: token!.blockNum, removed: false });
    expect(eth!.hash).not.toBe(token!.hash);
  });

  it('NFT_ACTIVITY: an ERC-721 transfer of the filter’s contract and token id', () => {
    const event = testNotificationEvent('NFT_ACTIVITY', 'ETH_MAINNET', { nft: { contractAddress: '0x00000000000000000000000000000000000000B2', tokenId: '255' } }) as { activity: Entry[] };
    expect(event.activity).toEqual([
      expect.objectContaining({ contractAddress: '0x00000000000000000000000000000000000000b2', erc721TokenId: '0xff', category: 'erc721', erc1155Metadata: null }),
    ]);
    expect(BigInt(event.activity[0]!.log.topics[3])).toBe(255n);
  });

  it('without a subject: samples on placeholder addresses; GRAPHQL: a block with hash, number and timestamp', () => {
    const address = testNotificationEvent('ADDRESS_ACTIVITY', 'LOCAL') as { activity: unknown[] };
    expect(address.activity).toHaveLength(2);
    const custom = testNotificationEvent('GRAPHQL', 'LOCAL') as { data: { block: { hash: string; number: number; timestamp: number } }; sequenceNumber: string; test: boolean };
    expect(custom).toMatchObject({ sequenceNumber: '0', test: true, data: { block: { hash: expect.stringMatching(HASH), number: expect.any(Number) } } });
    expect(Math.abs(custom.data.block.timestamp - Date.now() / 1000)).toBeLessThan(60);
    // Random hashes: two samples never name the same transaction.
    expect(testNotificationEvent('GRAPHQL', 'LOCAL')).not.toEqual(custom);
  });
});

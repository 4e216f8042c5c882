import { describe, it, expect } from 'vitest';
import { hexToBytes, type Hex } from '../../rpc/hex.js';
import { createCallTokenMetadataSource, createTokenMetadataCache, decodeDecimals, decodeSymbol, type TokenMetadata, type TokenMetadataStore } from './tokenMetadata.js';
import { loadActivityFixture } from './testing/activityFixture.js';

const fixture = loadActivityFixture();
const at = { number: 11n, hash: fixture.canonical[11]!.header.hash };

/** Answers calls from the recorded eth_call results and counts them. */
function recordedCalls() {
  const calls: string[] = [];
  const source = createCallTokenMetadataSource(async (to, data) => {
    calls.push(`${to}:${data}`);
    const recorded = fixture.tokenCalls[to];
    const answer = data === '0x95d89b41' ? recorded?.symbol : recorded?.decimals;
    return answer ? hexToBytes(answer) : null;
  });
  return { calls, source };
}

describe('token metadata', () => {
  it('default: reads symbol and decimals through the call function', async () => {
    const { source } = recordedCalls();
    expect(await source.read(fixture.contracts.token, at)).toEqual({ symbol: 'ATK', decimals: 6 });
    expect(await source.read(fixture.contracts.nft, at)).toEqual({ symbol: 'ANFT', decimals: null });
    expect(await source.read(fixture.accounts.a, at)).toEqual({ symbol: null, decimals: null });
  });

  it('behavior: decodes bytes32 symbols (pre-standard tokens) and rejects garbage', () => {
    const mkr = new Uint8Array(32);
    mkr.set(new TextEncoder().encode('MKR'));
    expect(decodeSymbol(mkr)).toBe('MKR');
    expect(decodeSymbol(new Uint8Array(32))).toBeNull();
    expect(decodeSymbol(hexToBytes(`0x${'00'.repeat(31)}01`))).toBeNull();
    expect(decodeSymbol(new Uint8Array(5))).toBeNull();
    // Offset pointing past the end of the data.
    expect(decodeSymbol(hexToBytes(`0x${'00'.repeat(31)}ff${'00'.repeat(32)}`))).toBeNull();
    expect(decodeDecimals(hexToBytes(`0x${'00'.repeat(30)}0100`))).toBeNull();
    expect(decodeDecimals(hexToBytes('0x12'))).toBeNull();
  });

  it('behavior: the cache asks the chain once per contract and then the store answers after a restart', async () => {
    const saved = new Map<Hex, TokenMetadata>();
    const store: TokenMetadataStore = {
      async load(contracts) {
        return new Map(contracts.filter((c) => saved.has(c)).map((c) => [c, saved.get(c)!]));
      },
      async save(contract, metadata) {
        saved.set(contract, metadata);
      },
    };
    const first = recordedCalls();
    const cache = createTokenMetadataCache({ source: first.source, store });
    const upper = fixture.contracts.token.toUpperCase().replace('0X', '0x') as Hex;
    const answer = await cache.resolve([fixture.contracts.token, upper, fixture.contracts.multi], at);
    expect(answer.get(fixture.contracts.token)).toEqual({ symbol: 'ATK', decimals: 6 });
    await cache.resolve([fixture.contracts.token], at);
    expect(first.calls).toHaveLength(4);

    const afterRestart = recordedCalls();
    const again = createTokenMetadataCache({ source: afterRestart.source, store });
    expect((await again.resolve([fixture.contracts.multi], at)).get(fixture.contracts.multi)).toEqual({ symbol: 'AMULTI', decimals: null });
    expect(afterRestart.calls).toEqual([]);
  });

  it('error: a transport failure propagates and is not cached as "no symbol"', async () => {
    let fail = true;
    const source = createCallTokenMetadataSource(async (_to, data) => {
      if (fail) throw new Error('upstream down');
      return hexToBytes(data === '0x95d89b41' ? fixture.tokenCalls[fixture.contracts.token]!.symbol! : fixture.tokenCalls[fixture.contracts.token]!.decimals!);
    });
    const cache = createTokenMetadataCache({ source });
    await expect(cache.resolve([fixture.contracts.token], at)).rejects.toThrow('upstream down');
    fail = false;
    expect((await cache.resolve([fixture.contracts.token], at)).get(fixture.contracts.token)).toEqual({ symbol: 'ATK', decimals: 6 });
  });
});

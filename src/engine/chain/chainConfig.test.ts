// The prepared Common: same rules and parameter values as an ordinary copy, no merge per copy.
import { describe, expect, it } from 'vitest';
import { paramsBlock } from '@ethereumjs/block';
import { paramsEVM } from '@ethereumjs/evm';
import { createFeeMarket1559Tx, paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';
import { createChainCommon, createPreparedCommon } from './chainConfig.js';

const PARAM_SETS = [paramsBlock, paramsTx, paramsVM, paramsEVM];

/** Every parameter name any of the four packages declares. */
const paramNames = [...new Set(PARAM_SETS.flatMap((set) => Object.values(set).flatMap((entry) => Object.keys(entry ?? {}))))];

describe('createPreparedCommon', () => {
  it('default: copies hold the value an ordinary copy gets after every package merged its parameters', () => {
    const ordinary = createChainCommon(31337n, 'prague').copy();
    for (const set of PARAM_SETS) ordinary.updateParams(set);
    const copy = createPreparedCommon(createChainCommon(31337n, 'prague')).copy();
    expect(paramNames.length).toBeGreaterThan(50);
    for (const name of paramNames) {
      const expected = (() => {
        try {
          return ordinary.param(name);
        } catch {
          return 'missing';
        }
      })();
      const actual = (() => {
        try {
          return copy.param(name);
        } catch {
          return 'missing';
        }
      })();
      expect([name, actual]).toEqual([name, expected]);
    }
    expect(copy.hardfork()).toBe('prague');
    expect(copy.chainId()).toBe(31337n);
  });

  it('behavior: copies (and copies of copies) skip the merge and keep their own state', () => {
    const prepared = createPreparedCommon(createChainCommon(31337n, 'prague'));
    const copy = prepared.copy();
    const cacheBefore = (copy as unknown as { _paramsCache: object })._paramsCache;
    copy.updateParams(paramsTx);
    expect((copy as unknown as { _paramsCache: object })._paramsCache).toBe(cacheBefore);
    copy.setHardfork('cancun');
    const nested = copy.copy();
    expect(nested.hardfork()).toBe('cancun');
    expect(prepared.hardfork()).toBe('prague');
    nested.updateParams(paramsBlock);
    expect((nested as unknown as { _paramsCache: object })._paramsCache).toBe((copy as unknown as { _paramsCache: object })._paramsCache);
  });

  it('behavior: a transaction built on it has the same hash, intrinsic gas and fee rules as one on the plain Common', () => {
    const data = { type: 2, nonce: 3n, gasLimit: 60_000n, maxFeePerGas: 9n, maxPriorityFeePerGas: 2n, data: new Uint8Array([0, 1, 2, 0]), accessList: [] };
    const key = new Uint8Array(32).fill(7);
    const plain = createFeeMarket1559Tx(data, { common: createChainCommon(31337n, 'prague') }).sign(key);
    const prepared = createFeeMarket1559Tx(data, { common: createPreparedCommon(createChainCommon(31337n, 'prague')) }).sign(key);
    expect(prepared.getSenderAddress().equals(plain.getSenderAddress())).toBe(true);
    expect(prepared.hash()).toEqual(plain.hash());
    expect(prepared.getIntrinsicGas()).toBe(plain.getIntrinsicGas());
    expect(prepared.getMinimumGasLimit()).toBe(plain.getMinimumGasLimit());
  });
});

// classifyHalt on real ethereumjs precompile failures: a precompile never reverts, whatever
// message ethereumjs gives its failure (found by the anvil trace fuzzer: a call to ecMul with a
// point off the curve was traced as "execution reverted" / "Reverted").
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { createAddressFromString } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { gethErrorText, parityErrorText } from '../render/errorText.js';
import { classifyHalt, pairingHalt } from './frameError.js';

async function runPrecompile(address: string, data: Uint8Array) {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
  const result = await evm.runCall({ to: createAddressFromString(address), data, gasLimit: 100_000n });
  const halt = { opCode: undefined, stack: undefined, returnDataLength: undefined, returned: false, isCreate: false, precompile: true, sentry: false };
  const error = classifyHalt(result.execResult.exceptionError, halt);
  return { error, gethText: error && gethErrorText(error), parityText: error && parityErrorText(error), gasUsed: result.execResult.executionGasUsed };
}

describe('classifyHalt', () => {
  it('behavior: ecMul with a point off the curve is a failed precompile, not a revert, and uses all gas', async () => {
    const out = await runPrecompile('0x0000000000000000000000000000000000000007', Uint8Array.of(0x8c));
    expect(out.error?.kind).toBe('precompileFailed');
    expect(out).toMatchObject({ gethText: 'bn256: malformed point', parityText: 'Built-in failed', gasUsed: 100_000n });
  });

  it('behavior: a BLS precompile with a short input keeps its own text', async () => {
    const out = await runPrecompile('0x0000000000000000000000000000000000000010', Uint8Array.of(0));
    expect(out).toMatchObject({ error: { kind: 'precompileFailed' }, gethText: 'invalid input length', parityText: 'Built-in failed' });
  });

  it('behavior: a precompile out of gas stays out of gas', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
    const result = await evm.runCall({ to: createAddressFromString('0x0000000000000000000000000000000000000001'), data: new Uint8Array(128), gasLimit: 2300n });
    const error = classifyHalt(result.execResult.exceptionError, { opCode: undefined, stack: undefined, returnDataLength: undefined, returned: false, isCreate: false, precompile: true, sentry: false });
    expect(error?.kind).toBe('outOfGas');
  });
});

describe('pairingHalt', () => {
  const PAIRING = '0x0000000000000000000000000000000000000008';
  const cost = { base: 45_000n, perPair: 34_000n };

  it('behavior: a bad pairing length with too little gas for its pairs is out of gas (geth charges gas first)', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
    const result = await evm.runCall({ to: createAddressFromString(PAIRING), data: Uint8Array.of(0), gasLimit: 4600n });
    const halt = { opCode: undefined, stack: undefined, returnDataLength: undefined, returned: false, isCreate: false, precompile: true, sentry: false };
    const error = pairingHalt(classifyHalt(result.execResult.exceptionError, halt)!, 4600n, 1, cost);
    expect(error.kind).toBe('outOfGas');
    expect(gethErrorText(error)).toBe('out of gas');
  });

  it('behavior: a bad pairing length with enough gas is geth\'s pairing-size error', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
    const result = await evm.runCall({ to: createAddressFromString(PAIRING), data: new Uint8Array(193), gasLimit: 100_000n });
    const halt = { opCode: undefined, stack: undefined, returnDataLength: undefined, returned: false, isCreate: false, precompile: true, sentry: false };
    const error = pairingHalt(classifyHalt(result.execResult.exceptionError, halt)!, 100_000n, 193, cost);
    expect(error).toMatchObject({ kind: 'precompileFailed' });
    expect([gethErrorText(error), parityErrorText(error)]).toEqual(['bad elliptic curve pairing size', 'Built-in failed']);
  });
});

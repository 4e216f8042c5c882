// Recorded frame errors where ethereumjs refuses an op before charging gas and geth charges first
// (found by the anvil trace fuzzer): a write in a static context and a RETURNDATACOPY past the
// return data, each with too little gas for geth's charge, fail `outOfGas` as in geth; with
// enough gas they keep their own error.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createBlock } from '@ethereumjs/block';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, createAddressFromString, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { attachRecorder } from './createRecorder.js';

const KEY = hexToBytes(`0x${'11'.repeat(32)}`);
const CALLER = createAddressFromString('0x00000000000000000000000000000000000000c0');
const CALLEE = createAddressFromString('0x00000000000000000000000000000000000000c1');

/** Runs CALLER, which calls CALLEE (code as hex) with `gas` by `kind`; returns the callee frame's error kind. */
async function calleeError(kind: 'STATICCALL' | 'CALL', gas: number, callee: string): Promise<string | undefined> {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  const vm = await createVM({ common });
  const sender = createAddressFromString(`0x${Buffer.from(privateToAddress(KEY)).toString('hex')}`);
  await vm.stateManager.putAccount(sender, new Account(0n, 10n ** 18n));
  // PUSH0 ×4 (out, in), [PUSH0 value], PUSH20 callee, PUSH3 gas, CALL (f1) / STATICCALL (fa), STOP
  const caller = `5f5f5f5f${kind === 'CALL' ? '5f' : ''}73${CALLEE.toString().slice(2)}62${gas.toString(16).padStart(6, '0')}${kind === 'CALL' ? 'f1' : 'fa'}00`;
  await vm.stateManager.putCode(CALLER, hexToBytes(`0x${caller}`));
  await vm.stateManager.putCode(CALLEE, hexToBytes(`0x${callee}`));
  const tx = createLegacyTx({ to: CALLER, gasLimit: 200_000n, gasPrice: 10n }, { common }).sign(KEY);
  const block = createBlock({ header: { baseFeePerGas: 1n, gasLimit: 30_000_000n } }, { common });
  const recorder = attachRecorder(vm, { state: true, steps: undefined });
  await recorder.start(tx, block);
  const record = await recorder.finish(await runTx(vm, { tx, block, skipBlockGasLimitValidation: true }));
  return record.frames[1]?.error?.kind;
}

describe('geth gas-first halts', () => {
  const sstore = '60015f5500'; // SSTORE(0, 1)
  const log = '60205fa000'; // LOG0(0, 32)
  const create = '5f5f5ff000'; // CREATE(0, 0, 0)

  it('behavior: a static SSTORE with at most 2300 gas is the reentrancy sentry, with more it is write protection', async () => {
    expect(await calleeError('STATICCALL', 2000, sstore)).toBe('reentrancySentry');
    expect(await calleeError('STATICCALL', 50_000, sstore)).toBe('writeProtection');
  });

  it('behavior: a static LOG0 or CREATE without the gas geth charges first is out of gas', async () => {
    expect(await calleeError('STATICCALL', 300, log)).toBe('outOfGas');
    expect(await calleeError('STATICCALL', 10_000, log)).toBe('writeProtection');
    expect(await calleeError('STATICCALL', 20_000, create)).toBe('outOfGas');
    expect(await calleeError('STATICCALL', 60_000, create)).toBe('writeProtection');
  });

  it('behavior: RETURNDATACOPY past the data is out of gas when its memory does not fit, else out of bounds', async () => {
    const copy = '60015f6101003e00'; // RETURNDATACOPY(0x100, 0, 1) after no call: no return data
    expect(await calleeError('CALL', 20, copy)).toBe('outOfGas');
    expect(await calleeError('CALL', 1000, copy)).toBe('returnDataOutOfBounds');
  });
});

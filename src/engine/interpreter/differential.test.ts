// The interpreter against ethereumjs on generated programs (see testing/differential.ts), plus the
// edges a random program rarely reaches: the call-depth limit, a loop to the last unit of gas,
// state loaded between runs, and what must go to ethereumjs.
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { runTx } from '@ethereumjs/vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { impersonate } from '../chain/transactionRequest.js';
import { callFieldsOf } from './callFields.js';
import { runFastCall } from './fastCall.js';
import { addressBytes } from './interpreter.js';
import { runFastRecorded } from './fastTrace.js';
import { ALL_STEPS, type FuzzVm, compareRecords, createFuzzVm, fuzz } from './testing/differential.js';
import { CONTRACTS, SENDER } from './testing/programs.js';

describe('interpreter vs ethereumjs, generated programs', () => {
  it('Prague: 1600 programs agree (gas, refund, output, error, logs, state, and the whole ExecutionRecord: frames, logs, touched state)', async () => {
    const result = await fuzz(await createFuzzVm('prague'), 1, 1600);
    expect(result.mismatches).toEqual([]);
    // Most cases run on the core; what falls back is named (too little gas for the intrinsic cost, KZG/BLS precompiles, BLOCKHASH).
    expect(result.equal).toBeGreaterThan(1400);
    expect([...result.fallbackReasons.keys()].every((r) => /intrinsic gas|asynchronous precompile|BLOCKHASH|EOF init code|0xef data|post-state read/.test(r))).toBe(true);
  }, 120_000);

  it('Prague with every step recorded: 600 programs agree, steps included (struct logs\' and vmTrace\'s fields)', async () => {
    // Some programs end a frame with REVERT on a short stack, where ethereumjs emits no step.
    const result = await fuzz(await createFuzzVm('prague'), 105_401, 600, 10, ALL_STEPS);
    expect(result.mismatches).toEqual([]);
    // What falls back adds memory priced at 2^43 gas or more (its step shows ethereumjs's exact BigInt cost).
    expect(result.equal).toBeGreaterThan(400);
  }, 120_000);

  it('Osaka with every step recorded: 500 programs agree (CLZ\'s stack words, MODEXP\'s EIP-7823/7883 rules, P256VERIFY handed over)', async () => {
    // A CLZ result shows only in later stack words (the records hold no stack), so steps are compared.
    const result = await fuzz(await createFuzzVm('osaka'), 900_001, 500, 10, ALL_STEPS);
    expect(result.mismatches).toEqual([]);
    expect(result.equal).toBeGreaterThan(350);
  }, 120_000);

  it('Cancun: 400 programs agree', async () => {
    const result = await fuzz(await createFuzzVm('cancun'), 700_001, 400);
    expect(result.mismatches).toEqual([]);
    expect(result.equal).toBeGreaterThan(340);
  }, 60_000);
});

describe('compareRecords', () => {
  it('error: a record that differs in one frame field is reported with its path', async () => {
    const { vm } = await createFuzzVm('prague');
    const sm = vm.stateManager;
    const target = new Address(addressBytes(CONTRACTS[1]!));
    const sender = new Address(addressBytes(SENDER));
    await sm.checkpoint();
    try {
      await sm.putAccount(sender, new Account(0n, 10n ** 24n));
      await sm.putAccount(target, new Account(1n, 0n));
      // PUSH1 1 PUSH1 0 SSTORE, LOG0 of nothing, STOP.
      await sm.putCode(target, Uint8Array.from([0x60, 0x01, 0x60, 0x00, 0x55, 0x5f, 0x5f, 0xa0, 0x00]));
      const tx = impersonate(createLegacyTx({ gasLimit: 100_000n, to: target, gasPrice: 0n }, { common: vm.common, freeze: false }), sender);
      const { createBlock } = await import('@ethereumjs/block');
      const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n, excessBlobGas: 0n } }, { common: vm.common, setHardfork: false });
      const first = (await runFastRecorded({ vm, tx: callFieldsOf(tx), from: sender, block, needs: { state: true, steps: undefined } })).record!;
      const second = (await runFastRecorded({ vm, tx: callFieldsOf(tx), from: sender, block, needs: { state: true, steps: undefined } })).record!;
      expect(compareRecords(first, second)).toBeUndefined();
      expect(first.logs).toHaveLength(1);
      second.frames[0]!.gasUsed += 1n;
      expect(compareRecords(first, second)).toMatch(/^record\.frames\.0\.gasUsed: /);
      second.frames[0]!.gasUsed -= 1n;
      [...second.accounts!.values()].find((a) => a.storage.size > 0)!.storage.values().next().value!.post = 7n;
      expect(compareRecords(first, second)).toMatch(/\.storage\..*\.post: /);
    } finally {
      await sm.revert();
    }
  });
});

describe('interpreter edges', () => {
  let fuzzVm: FuzzVm;
  beforeAll(async () => {
    fuzzVm = await createFuzzVm('prague');
  });

  const target = new Address(addressBytes(CONTRACTS[0]!));
  const sender = new Address(addressBytes(SENDER));

  /** Runs `code` at the target on both engines; returns both outcomes. */
  async function both(code: number[], gasLimit: bigint, storage: [bigint, bigint][] = [], others: { address: bigint; balance: bigint; code: number[] }[] = []) {
    const { vm } = fuzzVm;
    const sm = vm.stateManager;
    await sm.checkpoint();
    try {
      await sm.putAccount(sender, new Account(0n, 10n ** 24n));
      await sm.putAccount(target, new Account(1n, 0n));
      await sm.putCode(target, Uint8Array.from(code));
      for (const [slot, value] of storage) await sm.putStorage(target, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(value));
      for (const other of others) {
        const address = new Address(addressBytes(other.address));
        await sm.putAccount(address, new Account(0n, other.balance));
        if (other.code.length > 0) await sm.putCode(address, Uint8Array.from(other.code));
      }
      const tx = impersonate(createLegacyTx({ gasLimit, to: target, gasPrice: 0n }, { common: vm.common, freeze: false }), sender);
      const { createBlock } = await import('@ethereumjs/block');
      const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n, excessBlobGas: 0n } }, { common: vm.common, setHardfork: false });
      let fallback = '';
      const fast = await runFastCall({ vm, tx: callFieldsOf(tx), from: sender, block, onFallback: (r) => (fallback = r) });
      await sm.checkpoint();
      const reference = await runTx(vm, { tx, block, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
      await sm.revert();
      return { fast, fallback, reference };
    } finally {
      await sm.revert();
    }
  }

  it('recursion to the call-depth limit: equal, or handed to ethereumjs when the JavaScript stack is too shallow', async () => {
    // CALL(gas, ADDRESS, 0, 0, 0, 0, 0) into itself, then SSTORE(depth marker) so each level writes.
    const code = [0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x30, 0x5a, 0xf1, 0x60, 0x01, 0x5f, 0x54, 0x01, 0x5f, 0x55, 0x00];
    const { fast, fallback, reference } = await both(code, 2_000_000_000n);
    if (fast === undefined) expect(fallback).toBe('JavaScript stack depth');
    else {
      expect(fast.gasUsed).toBe(reference.totalGasSpent);
      expect(fast.error).toBe(reference.execResult.exceptionError?.error);
    }
  }, 60_000);

  it('EIP-7702 delegated accounts run on the core: a call runs the delegate in the account, EXTCODE* see the designator, a precompile delegate has no code, a designator is not followed twice', async () => {
    const addr = (a: bigint) => [...addressBytes(a)];
    const designator = (to: bigint) => [0xef, 0x01, 0x00, ...addr(to)];
    const [d, d2] = [(0xden << 152n) | 0xd0n, (0xden << 152n) | 0xd1n];
    // The delegate: SSTORE(0, 42), then return the word 7.
    const delegate = { address: CONTRACTS[1]!, balance: 0n, code: [0x60, 0x2a, 0x5f, 0x55, 0x60, 0x07, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3] };
    // CALL(GAS, d, 0, in mem[0..32], out mem[0..32]); store the success flag and RETURNDATASIZE; return 96 bytes.
    const callD = [0x60, 0x09, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0x60, 0x20, 0x5f, 0x5f, 0x73, ...addr(d), 0x5a, 0xf1, 0x60, 0x20, 0x52, 0x3d, 0x60, 0x40, 0x52, 0x60, 0x60, 0x5f, 0xf3];
    const cases: { name: string; code: number[]; others: { address: bigint; balance: bigint; code: number[] }[] }[] = [
      { name: 'call into a delegated account', code: callD, others: [{ address: d, balance: 5n, code: designator(delegate.address) }, delegate] },
      { name: 'its delegate already warm (a second call)', code: [...callD.slice(0, -4), ...callD.slice(4)], others: [{ address: d, balance: 0n, code: designator(delegate.address) }, delegate] },
      { name: 'a precompile as delegate', code: callD, others: [{ address: d, balance: 0n, code: designator(4n) }] },
      { name: 'a designator to a designator', code: callD, others: [{ address: d, balance: 0n, code: designator(d2) }, { address: d2, balance: 0n, code: designator(delegate.address) }, delegate] },
      // EXTCODESIZE(d) → mem[0], EXTCODEHASH(d) → mem[32], EXTCODECOPY(d, all 23 bytes) → mem[64]; return 96 bytes.
      { name: 'EXTCODESIZE, EXTCODEHASH, EXTCODECOPY', code: [0x73, ...addr(d), 0x3b, 0x5f, 0x52, 0x73, ...addr(d), 0x3f, 0x60, 0x20, 0x52, 0x60, 0x17, 0x5f, 0x60, 0x40, 0x73, ...addr(d), 0x3c, 0x60, 0x60, 0x5f, 0xf3], others: [{ address: d, balance: 0n, code: designator(delegate.address) }, delegate] },
    ];
    for (const c of cases) {
      const { fast, fallback, reference } = await both(c.code, 300_000n, [], c.others);
      expect({ case: c.name, fallback }).toEqual({ case: c.name, fallback: '' });
      expect({ case: c.name, gasUsed: fast!.gasUsed, error: fast!.error, output: Buffer.from(fast!.returnValue).toString('hex') }).toEqual({
        case: c.name,
        gasUsed: reference.totalGasSpent,
        error: reference.execResult.exceptionError?.error,
        output: Buffer.from(reference.execResult.returnValue).toString('hex'),
      });
    }
  });

  it('a loop that runs out of gas uses exactly the gas limit, with the same error', async () => {
    // JUMPDEST; SLOAD(0)+1 → SSTORE(0); JUMP(0)
    const code = [0x5b, 0x60, 0x01, 0x5f, 0x54, 0x01, 0x5f, 0x55, 0x5f, 0x56];
    const { fast, reference } = await both(code, 1_000_000n, [[0n, 5n]]);
    expect(fast).toBeDefined();
    expect(fast!.error).toBe('out of gas');
    expect(fast!.error).toBe(reference.execResult.exceptionError?.error);
    expect(fast!.gasUsed).toBe(1_000_000n);
    expect(fast!.gasUsed).toBe(reference.totalGasSpent);
  });

  it('loads each missing slot once, where the SLOAD stopped: no restart', async () => {
    // SLOAD 0..3, summed, returned.
    const code = [0x5f, 0x54, 0x60, 0x01, 0x54, 0x01, 0x60, 0x02, 0x54, 0x01, 0x60, 0x03, 0x54, 0x01, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3];
    const { fast, reference } = await both(code, 100_000n, [[0n, 1n], [1n, 2n], [2n, 3n], [3n, 4n]]);
    expect(fast!.returnValue).toEqual(reference.execResult.returnValue);
    expect(fast!.returnValue[31]).toBe(10);
    // The sender, coinbase, target account and code are loaded before the run; each slot stops it once.
    expect(fast!).toMatchObject({ restarts: 0, resumedLoads: 4 });
  });

  it('loads the accounts and code BALANCE, EXTCODESIZE, EXTCODEHASH and a CALL read where they stopped, and SSTORE\'s slot', async () => {
    const [a, b, c] = [0xa1n, 0xb2n, 0xc3n].map((n) => (0xddn << 152n) | n);
    const push20 = (address: bigint) => [0x73, ...addressBytes(address)];
    const code = [
      ...push20(a!), 0x31, // BALANCE(a): a's account
      ...push20(b!), 0x3b, 0x01, // EXTCODESIZE(b): b's account and code
      ...push20(b!), 0x3f, 0x01, // EXTCODEHASH(b): nothing new
      0x5f, 0x5f, 0x5f, 0x5f, ...push20(c!), 0x5a, 0xfa, 0x01, // STATICCALL(gas, c): c's account and code
      0x60, 0x07, 0x55, // SSTORE(7, sum): slot 7
      0x00,
    ];
    const others = [
      { address: a!, balance: 5n, code: [] },
      { address: b!, balance: 0n, code: [0x00, 0x00, 0x00] },
      { address: c!, balance: 0n, code: [0x5f, 0x5f, 0xf3] },
    ];
    const { fast, reference } = await both(code, 200_000n, [[7n, 1n]], others);
    expect(fast!.gasUsed).toBe(reference.totalGasSpent);
    expect(fast!.error).toBe(reference.execResult.exceptionError?.error);
    expect(fast!).toMatchObject({ restarts: 0, resumedLoads: 6 });
  });

  it('a read an opcode does not ask for first still restarts the run with it loaded (SELFDESTRUCT\'s beneficiary)', async () => {
    const beneficiary = (0xddn << 152n) | 0xe4n;
    const { fast, reference } = await both([0x73, ...addressBytes(beneficiary), 0xff], 100_000n, [], [{ address: beneficiary, balance: 1n, code: [] }]);
    expect(fast!.gasUsed).toBe(reference.totalGasSpent);
    expect(fast!.restarts).toBe(1);
  });

  it('BLOCKHASH goes to ethereumjs', async () => {
    const { fast, fallback } = await both([0x5f, 0x40, 0x00], 100_000n);
    expect(fast).toBeUndefined();
    expect(fallback).toBe('BLOCKHASH');
  });

  it('the deadline check stops a long loop with the error it throws', async () => {
    const { vm } = fuzzVm;
    const sm = vm.stateManager;
    await sm.checkpoint();
    try {
      await sm.putAccount(sender, new Account(0n, 10n ** 24n));
      await sm.putAccount(target, new Account(1n, 0n));
      await sm.putCode(target, Uint8Array.from([0x5b, 0x5f, 0x56]));
      const tx = impersonate(createLegacyTx({ gasLimit: 1_000_000_000n, to: target, gasPrice: 0n }, { common: vm.common, freeze: false }), sender);
      const { createBlock } = await import('@ethereumjs/block');
      const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n, excessBlobGas: 0n } }, { common: vm.common, setHardfork: false });
      let checks = 0;
      const run = runFastCall({
        vm,
        tx: callFieldsOf(tx),
        from: sender,
        block,
        check: () => {
          if (++checks > 20) throw new Error('deadline passed');
        },
      });
      await expect(run).rejects.toThrow('deadline passed');
    } finally {
      await sm.revert();
    }
  });
});

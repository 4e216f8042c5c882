// The core's own intrinsic gas and EIP-7623 floor against ethereumjs's transaction objects, the
// fields a call becomes against the transaction it used to be built into, and the range check
// against the constructors' refusals.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { type CallRequest, callRequestFields, callToTransaction } from '../execute/callTransaction.js';
import { callFieldsOf, calldataFloorGas, fieldsInRange, intrinsicGas } from './callFields.js';
import { Rng } from './testing/programs.js';

function randomBytes(rng: Rng, length: number): Uint8Array {
  // Zeros often, so both calldata prices are exercised.
  return Uint8Array.from({ length }, () => (rng.chance(0.4) ? 0 : 1 + rng.int(255)));
}

function randomTransaction(rng: Rng, common: Common): TypedTransaction {
  const to = rng.chance(0.2) ? undefined : new Address(randomBytes(rng, 20));
  const data = randomBytes(rng, rng.pick([0, 1, 31, 32, 33, 100, rng.int(2000)]));
  const accessList = Array.from({ length: rng.int(3) }, () => [randomBytes(rng, 20), Array.from({ length: rng.int(3) }, () => randomBytes(rng, 32))] as [Uint8Array, Uint8Array[]]);
  const base = { nonce: 0n, gasLimit: 10_000_000n, to, value: BigInt(rng.int(1000)), data };
  const opts = { common, freeze: false };
  const kind = rng.int(3);
  if (kind === 0) return createLegacyTx({ ...base, gasPrice: 7n }, opts);
  if (kind === 1) return createAccessList2930Tx({ ...base, gasPrice: 7n, accessList }, opts);
  return createFeeMarket1559Tx({ ...base, maxFeePerGas: 9n, maxPriorityFeePerGas: 2n, accessList }, opts);
}

describe('call fields', () => {
  for (const hardfork of [Hardfork.Cancun, Hardfork.Prague]) {
    it(`behavior: intrinsic gas and the calldata floor equal ethereumjs's on 500 ${hardfork} transactions (types 0-2, creations, access lists)`, () => {
      const common = new Common({ chain: Mainnet, hardfork });
      const rng = new Rng(42);
      for (let i = 0; i < 500; i++) {
        const tx = randomTransaction(rng, common);
        const fields = callFieldsOf(tx);
        expect(intrinsicGas(fields, common), `case ${i}`).toBe(tx.getIntrinsicGas());
        expect(calldataFloorGas(fields, common), `case ${i}`).toBe(getCalldataFloorGas(tx, new Address(new Uint8Array(20))));
      }
    });
  }

  it('behavior: a call becomes the fields of the transaction callToTransaction builds from it', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const to = new Uint8Array(20).fill(0xaa);
    const list = [{ address: new Uint8Array(20).fill(1), storageKeys: [new Uint8Array(32).fill(2)] }];
    const calls: CallRequest[] = [
      {},
      { to, data: Uint8Array.of(0, 1, 2), value: 5n, gas: 90_000n },
      { to, gasPrice: 3n },
      { to, gasPrice: 3n, accessList: list },
      { to, accessList: [] },
      { to, maxFeePerGas: 10n },
      { to, maxPriorityFeePerGas: 4n },
      { to, maxFeePerGas: 10n, maxPriorityFeePerGas: 4n, accessList: list },
    ];
    for (const call of calls) {
      const tx = callToTransaction(call, { common, defaultGas: 1_000_000n, nonce: 0n });
      expect(callRequestFields(call, 1_000_000n, common), JSON.stringify(Object.keys(call))).toEqual(callFieldsOf(tx));
    }
  });

  it('error: fields a transaction constructor refuses are out of range, and the others are in', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const max = (1n << 256n) - 1n;
    const cases: CallRequest[] = [
      { gas: 21_000n, gasPrice: max },
      { gas: 2n, gasPrice: max / 2n + 1n },
      { gas: 21_000n, maxFeePerGas: 5n, maxPriorityFeePerGas: 6n },
      { gas: 21_000n, value: max + 1n },
      { gas: 21_000n, maxFeePerGas: max, maxPriorityFeePerGas: 1n },
      { gas: 21_000n, value: max, gasPrice: 1n },
      { gas: 1n << 40n, maxFeePerGas: 1n << 200n },
    ];
    for (const call of cases) {
      let refused = false;
      try {
        callToTransaction(call, { common, defaultGas: 21_000n, nonce: 0n });
      } catch {
        refused = true;
      }
      expect(fieldsInRange(callRequestFields(call, 21_000n, common)), JSON.stringify(call, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).toBe(!refused);
    }
  });
});

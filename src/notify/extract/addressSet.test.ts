import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createAddressSet } from './addressSet.js';

const hexAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
// Few distinct values so adds, deletes and lookups collide often, plus the zero address.
const smallPool = fc.constantFrom(
  '0x0000000000000000000000000000000000000000',
  ...Array.from({ length: 40 }, (_, i) => `0x${((i * 7919) % 65536).toString(16).padStart(4, '0')}${'ab'.repeat(18)}`),
);

describe('createAddressSet', () => {
  it('default: starts empty and answers false for anything', () => {
    const set = createAddressSet();
    expect(set.size).toBe(0);
    expect(set.has('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')).toBe(false);
  });

  it('behavior: matches addresses in any case and with or without 0x', () => {
    const set = createAddressSet(['0x70997970C51812dc3A010C7d01b50e0d17dc79C8']);
    expect(set.has('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')).toBe(true);
    expect(set.has('70997970C51812DC3A010C7D01B50E0D17DC79C8')).toBe(true);
    expect([...set.values()]).toEqual(['0x70997970c51812dc3a010c7d01b50e0d17dc79c8']);
  });

  it('behavior: agrees with a Set of lower-case strings under any sequence of adds and deletes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('add', 'delete', 'has'), fc.oneof(smallPool, hexAddress)), { maxLength: 400 }), (ops) => {
        const set = createAddressSet();
        const model = new Set<string>();
        for (const [op, address] of ops) {
          if (op === 'add') expect(set.add(address)).toBe(!model.has(address) && Boolean(model.add(address)));
          else if (op === 'delete') expect(set.delete(address)).toBe(model.delete(address));
          else expect(set.has(address)).toBe(model.has(address));
        }
        expect(set.size).toBe(model.size);
        expect(new Set(set.values())).toEqual(model);
        for (const address of model) expect(set.has(address)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('behavior: addresses sharing a long prefix (vanity addresses) still spread and stay findable', () => {
    const addresses = Array.from({ length: 5000 }, (_, i) => `0x00000000000000000000000000000000${i.toString(16).padStart(8, '0')}`);
    const set = createAddressSet(addresses);
    expect(set.size).toBe(5000);
    for (let i = 0; i < 5000; i += 2) set.delete(addresses[i]!);
    for (let i = 0; i < 5000; i++) expect(set.has(addresses[i]!)).toBe(i % 2 === 1);
  });

  it('args: expectedSize presizes the table so a bulk load does not grow', () => {
    const set = createAddressSet([], 1000);
    const before = set.byteLength;
    for (let i = 0; i < 1000; i++) set.add(`0x${i.toString(16).padStart(40, '1')}`);
    expect(set.byteLength).toBe(before);
    expect(before).toBeLessThan(1000 * 24 * 1.5);
  });

  it('error: adding a malformed address throws; looking one up is false', () => {
    const set = createAddressSet();
    expect(() => set.add('0x1234')).toThrow(RangeError);
    expect(() => set.add(`0x${'zz'.repeat(20)}`)).toThrow(RangeError);
    expect(set.has('0x1234')).toBe(false);
    expect(set.delete('nope')).toBe(false);
  });
});

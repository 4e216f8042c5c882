// A set of 20-byte addresses in flat typed arrays (open addressing, linear probing, a 32-bit hash
// per slot), so a webhook watching 1,000,000 addresses costs ~32 MB instead of ~110 MB as a Set of
// hex strings, and a lookup is one hash plus a few integer compares whatever the set's size.

/** Membership test used by the extractors (a plain `Set<string>` of lower-case hex also fits). */
export interface AddressMatcher {
  has(address: string): boolean;
}

const ADDRESS_BYTES = 20;
const MAX_LOAD = 0.75;
const MIN_CAPACITY = 16;

/** Mutable compact address set; hex in either case, with or without `0x`. */
export interface AddressSet extends AddressMatcher {
  readonly size: number;
  add(address: string): boolean;
  delete(address: string): boolean;
  /** Bytes held by the table (for the memory figures of the benchmark). */
  readonly byteLength: number;
  values(): IterableIterator<string>;
}

/**
 * Builds a set from `initial`; `expectedSize` sizes the table up front so a bulk load does not
 * grow (and briefly hold two tables) on the way.
 */
export function createAddressSet(initial: Iterable<string> = [], expectedSize = 0): AddressSet {
  let capacity = Math.max(MIN_CAPACITY, Math.ceil(expectedSize / MAX_LOAD) + 1);
  let keys = new Uint8Array(capacity * ADDRESS_BYTES);
  // hashes[slot] === 0 marks an empty slot; stored hashes are forced odd so they are never 0.
  let hashes = new Uint32Array(capacity);
  let count = 0;
  const key = new Uint8Array(ADDRESS_BYTES);

  /** Parses into `key` and returns its hash, or 0 when the text is not a 20-byte hex address. */
  function parse(address: string): number {
    const start = address.charCodeAt(0) === 48 && (address.charCodeAt(1) | 32) === 120 ? 2 : 0;
    if (address.length - start !== ADDRESS_BYTES * 2) return 0;
    let h = 0x811c9dc5;
    for (let i = 0; i < ADDRESS_BYTES; i++) {
      const hi = nibble(address.charCodeAt(start + i * 2));
      const lo = nibble(address.charCodeAt(start + i * 2 + 1));
      if (hi < 0 || lo < 0) return 0;
      const byte = (hi << 4) | lo;
      key[i] = byte;
      // FNV-1a over all 20 bytes: vanity addresses share prefixes, so no single slice is safe.
      h = Math.imul(h ^ byte, 0x01000193);
    }
    return (h | 1) >>> 0;
  }

  /** Slot holding the key with hash `h`, or the empty slot where it would go. */
  function find(h: number, source: Uint8Array, sourceAt: number): number {
    let slot = h % capacity;
    for (;;) {
      const stored = hashes[slot]!;
      if (stored === 0) return slot;
      if (stored === h && equalsAt(keys, slot * ADDRESS_BYTES, source, sourceAt)) return slot;
      slot = slot + 1 === capacity ? 0 : slot + 1;
    }
  }

  function grow(): void {
    const oldKeys = keys;
    const oldHashes = hashes;
    capacity = Math.ceil(capacity * 1.5);
    keys = new Uint8Array(capacity * ADDRESS_BYTES);
    hashes = new Uint32Array(capacity);
    for (let s = 0; s < oldHashes.length; s++) {
      const h = oldHashes[s]!;
      if (h === 0) continue;
      const slot = find(h, oldKeys, s * ADDRESS_BYTES);
      hashes[slot] = h;
      keys.set(oldKeys.subarray(s * ADDRESS_BYTES, (s + 1) * ADDRESS_BYTES), slot * ADDRESS_BYTES);
    }
  }

  const set: AddressSet = {
    get size() {
      return count;
    },
    get byteLength() {
      return keys.byteLength + hashes.byteLength;
    },
    has(address) {
      const h = parse(address);
      return h !== 0 && hashes[find(h, key, 0)] !== 0;
    },
    add(address) {
      const h = parse(address);
      if (h === 0) throw new RangeError(`not an address: ${address}`);
      if ((count + 1) / capacity > MAX_LOAD) grow();
      const slot = find(h, key, 0);
      if (hashes[slot] !== 0) return false;
      hashes[slot] = h;
      keys.set(key, slot * ADDRESS_BYTES);
      count++;
      return true;
    },
    delete(address) {
      const h = parse(address);
      if (h === 0) return false;
      let slot = find(h, key, 0);
      if (hashes[slot] === 0) return false;
      // Backward-shift deletion keeps every probe chain unbroken without tombstones.
      let next = slot;
      for (;;) {
        next = next + 1 === capacity ? 0 : next + 1;
        const nextHash = hashes[next]!;
        if (nextHash === 0) break;
        const home = nextHash % capacity;
        const movable = slot <= next ? home <= slot || home > next : home <= slot && home > next;
        if (movable) {
          hashes[slot] = nextHash;
          keys.copyWithin(slot * ADDRESS_BYTES, next * ADDRESS_BYTES, (next + 1) * ADDRESS_BYTES);
          slot = next;
        }
      }
      hashes[slot] = 0;
      count--;
      return true;
    },
    *values() {
      for (let s = 0; s < capacity; s++) {
        if (hashes[s] === 0) continue;
        yield `0x${Buffer.from(keys.subarray(s * ADDRESS_BYTES, (s + 1) * ADDRESS_BYTES)).toString('hex')}`;
      }
    },
  };
  for (const address of initial) set.add(address);
  return set;
}

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function equalsAt(table: Uint8Array, base: number, source: Uint8Array, sourceAt: number): boolean {
  for (let i = 0; i < ADDRESS_BYTES; i++) if (table[base + i] !== source[sourceAt + i]) return false;
  return true;
}

// Token symbol and decimals for activity payloads: read from the contract once (symbol() and
// decimals() through any eth_call-like function), then served from memory and an optional
// persistent store. How a call reaches the chain is the caller's business.
import type { Hex } from '../../rpc/hex.js';

export interface TokenMetadata {
  /** Null when symbol() is missing, reverts or returns garbage. */
  symbol: string | null;
  /** Null when decimals() is missing, reverts or is out of range (ERC-721 and ERC-1155 usually). */
  decimals: number | null;
}

/** Where the reads are made: the block whose state answers them. */
export interface CallAt {
  number: bigint;
  hash: Hex;
}

/** Runs a read-only call; resolves the return data, or null when it reverted or failed. */
export type ReadCall = (to: Hex, data: Hex, at: CallAt) => Promise<Uint8Array | null>;

/** Reads a token's metadata from the chain. */
export interface TokenMetadataSource {
  read(contract: Hex, at: CallAt): Promise<TokenMetadata>;
}

/** Persisted answers, so a restart does not ask the chain again. */
export interface TokenMetadataStore {
  load(contracts: readonly Hex[]): Promise<Map<Hex, TokenMetadata>>;
  save(contract: Hex, metadata: TokenMetadata): Promise<void>;
}

const SYMBOL_SELECTOR = '0x95d89b41';
const DECIMALS_SELECTOR = '0x313ce567';

/** A source that calls `symbol()` and `decimals()` through `call`. */
export function createCallTokenMetadataSource(call: ReadCall): TokenMetadataSource {
  return {
    async read(contract, at) {
      const [symbol, decimals] = await Promise.all([call(contract, SYMBOL_SELECTOR, at), call(contract, DECIMALS_SELECTOR, at)]);
      return { symbol: symbol ? decodeSymbol(symbol) : null, decimals: decimals ? decodeDecimals(decimals) : null };
    },
  };
}

/** Decodes `symbol()` output: an ABI string, or a bytes32 (older tokens such as MKR). */
export function decodeSymbol(output: Uint8Array): string | null {
  if (output.length === 32) return cleanSymbol(trimZeros(output));
  if (output.length < 64) return null;
  const offset = readWord(output, 0);
  if (offset === undefined || offset + 32n > BigInt(output.length)) return null;
  const length = readWord(output, Number(offset));
  if (length === undefined || length > 256n) return null;
  const start = Number(offset) + 32;
  if (start + Number(length) > output.length) return null;
  return cleanSymbol(output.subarray(start, start + Number(length)));
}

/** Decodes `decimals()` output (a uint8 in one word); null when out of range. */
export function decodeDecimals(output: Uint8Array): number | null {
  if (output.length < 32) return null;
  const value = readWord(output, 0);
  return value !== undefined && value <= 255n ? Number(value) : null;
}

function readWord(bytes: Uint8Array, at: number): bigint | undefined {
  if (at + 32 > bytes.length) return undefined;
  let hex = '0x';
  for (let i = at; i < at + 32; i++) hex += bytes[i]!.toString(16).padStart(2, '0');
  return BigInt(hex);
}

function trimZeros(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

function cleanSymbol(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return null;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Control characters or broken UTF-8 mean the contract returned something that is not a name.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\ufffd]/.test(text)) return null;
  return text;
}

export interface TokenMetadataCacheOptions {
  source: TokenMetadataSource;
  store?: TokenMetadataStore;
}

/** Resolves metadata for many contracts, asking the source only for ones never seen before. */
export interface TokenMetadataCache {
  resolve(contracts: Iterable<Hex>, at: CallAt): Promise<Map<Hex, TokenMetadata>>;
}

export function createTokenMetadataCache(options: TokenMetadataCacheOptions): TokenMetadataCache {
  const memory = new Map<Hex, TokenMetadata>();
  return {
    async resolve(contracts, at) {
      const wanted = [...new Set([...contracts].map((c) => c.toLowerCase() as Hex))];
      const missing = wanted.filter((c) => !memory.has(c));
      if (missing.length && options.store) {
        for (const [contract, metadata] of await options.store.load(missing)) memory.set(contract, metadata);
      }
      for (const contract of missing) {
        if (memory.has(contract)) continue;
        const metadata = await options.source.read(contract, at);
        memory.set(contract, metadata);
        await options.store?.save(contract, metadata);
      }
      return new Map(wanted.map((c) => [c, memory.get(c)!]));
    },
  };
}

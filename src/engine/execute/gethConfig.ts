// Reads a geth genesis `config` (as found in go-ethereum and core-geth tracer fixtures) into the
// ethereumjs hard fork in force at a given block number and timestamp, and builds a Common
// pinned to that fork. Keys match case-insensitively, as Go's JSON decoder does.
import { Common, Hardfork, Mainnet, type ChainConfig } from '@ethereumjs/common';
import type { KZG } from '@ethereumjs/util';

type Config = Record<string, unknown>;

function lookup(config: Config, key: string): unknown {
  const lower = key.toLowerCase();
  for (const [k, v] of Object.entries(config)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function toBigInt(value: unknown): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'bigint') return BigInt(value);
  if (typeof value === 'string' && value !== '') return BigInt(value);
  return undefined;
}

function activeAt(config: Config, keys: string[], point: bigint): boolean {
  return keys.some((key) => {
    const at = toBigInt(lookup(config, key));
    return at !== undefined && at <= point;
  });
}

/**
 * The ethereumjs fork in force at (`number`, `timestamp`) under a geth config. Follows
 * ../shared/conformance/README.md §1.2: Constantinople without Petersburg keeps EIP-1283; time
 * forks count only on a merged chain (terminalTotalDifficulty 0 and London active). core-geth's
 * per-EIP keys (Ethereum Classic) map to the Ethereum fork with the same rules.
 */
export function hardforkAt(config: Config, number: bigint, timestamp: bigint): Hardfork {
  const at = (...keys: string[]): boolean => activeAt(config, keys, number);
  const time = (...keys: string[]): boolean => activeAt(config, keys, timestamp);
  let fork: Hardfork = Hardfork.Chainstart;
  if (at('homesteadBlock', 'eip2FBlock', 'eip7FBlock')) fork = Hardfork.Homestead;
  if (at('eip150Block')) fork = Hardfork.TangerineWhistle;
  if (at('eip158Block', 'eip155Block', 'eip161FBlock', 'eip160Block')) fork = Hardfork.SpuriousDragon;
  if (at('byzantiumBlock', 'eip658FBlock', 'eip140FBlock', 'eip214FBlock')) fork = Hardfork.Byzantium;
  if (at('constantinopleBlock', 'eip1014FBlock', 'eip145FBlock', 'eip1052FBlock')) {
    const petersburgKnown = lookup(config, 'petersburgBlock') !== undefined;
    const coreGeth = lookup(config, 'eip1014FBlock') !== undefined;
    // Constantinople with EIP-1283 only when a Petersburg block is announced but not reached;
    // Ethereum Classic never shipped EIP-1283 (Agharta = Petersburg rules).
    fork = petersburgKnown && !coreGeth && !at('petersburgBlock') ? Hardfork.Constantinople : Hardfork.Petersburg;
  }
  if (at('istanbulBlock', 'eip2200FBlock', 'eip1344FBlock', 'eip152FBlock')) fork = Hardfork.Istanbul;
  if (at('muirGlacierBlock') && fork === Hardfork.Istanbul) fork = Hardfork.MuirGlacier;
  if (at('berlinBlock', 'eip2929FBlock')) fork = Hardfork.Berlin;
  if (at('londonBlock')) fork = Hardfork.London;
  const merged = toBigInt(lookup(config, 'terminalTotalDifficulty')) === 0n && at('londonBlock');
  if (merged) {
    fork = Hardfork.Paris;
    if (time('shanghaiTime')) fork = Hardfork.Shanghai;
    if (time('cancunTime')) fork = Hardfork.Cancun;
    if (time('pragueTime')) fork = Hardfork.Prague;
    if (time('osakaTime')) fork = Hardfork.Osaka;
  }
  return fork;
}

/** True when the config describes a merged chain at this point (PREVRANDAO replaces difficulty). */
export function isMergedAt(config: Config, number: bigint): boolean {
  return toBigInt(lookup(config, 'terminalTotalDifficulty')) === 0n && activeAt(config, ['londonBlock'], number);
}

/** The chain id of a geth config (1 when absent). */
export function chainIdOf(config: Config): bigint {
  return toBigInt(lookup(config, 'chainId')) ?? 1n;
}

export interface PinnedCommonOptions {
  chainId: bigint;
  hardfork: Hardfork;
  /** Needed only to decode blob (type-3) transactions. */
  kzg?: KZG;
}

/**
 * A Common pinned to one fork, on a chain definition without activation blocks, so ethereumjs
 * applies no header rules tied to mainnet block numbers (DAO extraData, London's first base fee).
 */
export function createPinnedCommon(options: PinnedCommonOptions): Common {
  const chain: ChainConfig = {
    ...Mainnet,
    name: `pinned-${options.chainId}`,
    chainId: Number(options.chainId),
    hardforks: Mainnet.hardforks.map((hf) => ({ name: hf.name, block: null })),
  };
  return new Common({
    chain,
    hardfork: options.hardfork,
    customCrypto: options.kzg ? { kzg: options.kzg } : undefined,
  });
}

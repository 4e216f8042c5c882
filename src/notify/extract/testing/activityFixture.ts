// Loads `activityChain.json` (recorded from anvil by recordActivityFixture.ts) for the extractor,
// GraphQL and follower tests.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hex } from '../../../rpc/hex.js';
import type { BlockData } from '../blockData.js';

export interface ActivityFixture {
  recordedWith: string;
  accounts: { a: Hex; b: Hex; c: Hex; d: Hex };
  contracts: { token: Hex; nft: Hex; multi: Hex; router1: Hex; router2: Hex };
  /** Scenario name → hex block number on the canonical branch. */
  scenarios: Record<'ethExternal' | 'erc20' | 'split' | 'hop' | 'delegateFailCreate' | 'erc721' | 'erc1155' | 'failed', Hex>;
  /** Raw `eth_call` answers of symbol() and decimals() per token contract (null: reverted). */
  tokenCalls: Record<Hex, { symbol: Hex | null; decimals: Hex | null }>;
  /** Blocks 0…11 of the final canonical chain. */
  canonical: BlockData[];
  /** Block 10 of the branch that evm_revert discarded (same parent as canonical block 10). */
  orphaned: BlockData[];
}

const here = dirname(fileURLToPath(import.meta.url));

/** A fresh deep copy each call, so tests may mutate what they get. */
export function loadActivityFixture(): ActivityFixture {
  return JSON.parse(readFileSync(join(here, 'activityChain.json'), 'utf8')) as ActivityFixture;
}

/** The canonical block with the given scenario's transactions. */
export function scenarioBlock(fixture: ActivityFixture, scenario: keyof ActivityFixture['scenarios']): BlockData {
  return fixture.canonical[Number(fixture.scenarios[scenario])]!;
}

// A deterministic sequence of chain activity (deploy, calls with logs, transfers, a setter) run
// both in a child process that is then killed and in-process as the reference to compare with.
import { readFileSync } from 'node:fs';
import { Address, hexToBytes } from '@ethereumjs/util';
import type { DevChain } from '../devChain.js';
import { signWithDevKey } from './tempChain.js';

const counter = JSON.parse(readFileSync(new URL('../../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { bytecode: string };
const INCREMENT = hexToBytes('0xd09de08a');
const FEES = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, type: 2 };

/** Fixed clock for both runs, so block hashes match too. */
export const SCENARIO_CLOCK_MS = 1_750_000_000_000;

/** Deploys Counter from account 0, increments it from accounts 1..3, sends ETH, sets a balance. */
export async function runPersistenceScenario(chain: DevChain): Promise<Uint8Array> {
  await chain.sendRawTransaction(signWithDevKey(chain, 0, { ...FEES, nonce: 0n, gasLimit: 400_000n, data: hexToBytes(counter.bytecode as `0x${string}`) }).serialize());
  const receipt = (await chain.getReceipts((await chain.getBlockByNumber(1n))!.hash()))[0]!;
  const address = receipt.contractAddress!;
  for (const index of [1, 2, 3]) {
    await chain.sendRawTransaction(signWithDevKey(chain, index, { ...FEES, nonce: 0n, gasLimit: 100_000n, to: new Address(address), data: INCREMENT }).serialize());
  }
  await chain.sendRawTransaction(signWithDevKey(chain, 4, { ...FEES, nonce: 0n, gasLimit: 21_000n, to: chain.accounts[5]!.address, value: 12_345n }).serialize());
  await chain.setBalance(chain.accounts[6]!.address.bytes, 777n);
  return address;
}

/** One transfer from account 7 (nonce `nonce`) or, every third one, an increment of `counter`. */
export function burstTransaction(chain: DevChain, nonce: bigint, counterAddress: Uint8Array): Uint8Array {
  const call = nonce % 3n === 2n;
  return signWithDevKey(chain, 7, {
    ...FEES,
    nonce,
    gasLimit: call ? 100_000n : 21_000n,
    to: call ? new Address(counterAddress) : chain.accounts[8]!.address,
    value: call ? 0n : 1n,
    data: call ? INCREMENT : new Uint8Array(),
  }).serialize();
}

// The workload the trace benches share: dev account 0 deploys an ERC-20 (fixtures/contracts) and
// sends transfers to distinct recipients, one signed transaction each, so every peer and harness
// mines the same bytes. Also the benches' numeric `--name value` flags.
import { readFileSync } from 'node:fs';
import { encodeDeployData, encodeFunctionData, getContractAddress, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Dev account 0 of the test mnemonic (anvil's and ours). */
export const benchAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const token = JSON.parse(readFileSync(new URL('../fixtures/contracts/build/TraceToken.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
/** Where the deployment (nonce 0) puts the token. */
export const tokenAddress = getContractAddress({ from: benchAccount.address, nonce: 0n });

/** The value of `--name` on the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Recipient `i` of the transfers (distinct addresses). */
export const recipient = (i: number): Hex => `0x${(0x1000 + i).toString(16).padStart(40, '0')}`;

/** Call data of transfer `i` (to `recipient(i)`, amount i + 1). */
export const transferData = (i: number): Hex => encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient(i), BigInt(i + 1)] });

/** The signed deployment and `count` transfers, in nonce order. */
export async function signedErc20Transactions(count: number): Promise<Hex[]> {
  const base = { chainId: 31337, type: 'eip1559' as const, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
  const raws: Hex[] = [await benchAccount.signTransaction({ ...base, nonce: 0, gas: 1_000_000n, data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] }) })];
  for (let i = 0; i < count; i++) raws.push(await benchAccount.signTransaction({ ...base, nonce: i + 1, gas: 100_000n, to: tokenAddress, data: transferData(i) }));
  return raws;
}

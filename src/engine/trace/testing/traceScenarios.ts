// Test support: signed transactions that exercise every frame shape the tracers render, built
// from fixtures/contracts/TraceProbe.sol with viem and the dev accounts' keys. The same signed
// bytes can be sent to the embedded chain and to anvil (differential tests).
import { readFileSync } from 'node:fs';
import { type Abi, type Hex, encodeDeployData, encodeFunctionData, getContractAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

function artifact(name: string): Artifact {
  return JSON.parse(readFileSync(new URL(`../../../../fixtures/contracts/build/${name}.json`, import.meta.url), 'utf8')) as Artifact;
}

export const TRACE_TOKEN = artifact('TraceToken');
export const TRACE_PROBE = artifact('TraceProbe');
export const TRACE_CHILD = artifact('TraceChild');

export const FEES = { maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;

/** One scenario: a signed transaction and a name for messages. */
export interface SignedScenario {
  name: string;
  raw: Hex;
}

export interface ScenarioAddresses {
  token: Hex;
  probe: Hex;
}

/**
 * The scenario transactions, all from `deployer` (nonces from `startNonce`): deploy the token and
 * the probe, fund the probe with tokens, then one transaction per frame shape.
 */
export async function buildTraceScenarios(
  deployer: PrivateKeyAccount,
  chainId: number,
  startNonce = 0,
  recipient: Hex = '0x00000000000000000000000000000000000000aa',
): Promise<{ scenarios: SignedScenario[]; addresses: ScenarioAddresses }> {
  let nonce = startNonce;
  const token = getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
  const probe = getContractAddress({ from: deployer.address, nonce: BigInt(nonce + 1) });
  const sign = async (name: string, to: Hex | undefined, data: Hex, value = 0n, gas = 3_000_000n): Promise<SignedScenario> => ({
    name,
    raw: await deployer.signTransaction({ type: 'eip1559', chainId, nonce: nonce++, to, data, value, gas, ...FEES }),
  });
  const call = (functionName: string, args: readonly unknown[] = []): Hex =>
    encodeFunctionData({ abi: TRACE_PROBE.abi, functionName, args });
  const scenarios: SignedScenario[] = [
    await sign('deployToken', undefined, encodeDeployData({ abi: TRACE_TOKEN.abi, bytecode: TRACE_TOKEN.bytecode, args: [10n ** 24n] })),
    await sign('deployProbe', undefined, encodeDeployData({ abi: TRACE_PROBE.abi, bytecode: TRACE_PROBE.bytecode, args: [token] }), 10n),
    await sign('fundProbe', token, encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: [probe, 10n ** 21n] })),
    await sign('ethTransfer', recipient, '0x', 12345n, 21_000n),
    await sign('nested', probe, call('nested', [4n])),
    await sign('catchRevert', probe, call('catchRevert')),
    await sign('catchOutOfGas', probe, call('catchOutOfGas')),
    await sign('revertWithReason', probe, call('revertWithReason')),
    await sign('revertCustom', probe, call('revertCustom')),
    await sign('revertPanic', probe, call('revertPanic', [0n])),
    await sign('makeChildren', probe, call('makeChildren', [`0x${'11'.repeat(32)}`]), 1000n),
    await sign('failCreate', probe, call('failCreate')),
    await sign('makeAndKill', probe, call('makeAndKill'), 3000n),
    await sign('killChild', probe, call('killChild')),
    await sign('mixed', probe, call('mixed', [11n]), 7n),
    await sign('pay', probe, call('pay', [recipient, 5n * 10n ** 18n])),
    await sign('insufficientBalanceCall', probe, call('insufficientBalanceCall')),
    await sign('outOfGasTop', probe, call('nested', [30n]), 0n, 60_000n),
  ];
  return { scenarios, addresses: { token, probe } };
}

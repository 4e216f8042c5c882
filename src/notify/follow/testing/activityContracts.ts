// Deploys the Activity* test contracts (fixtures/contracts) on any node that signs for its dev
// accounts (anvil, the embedded chain over JSON-RPC) and sends the transfers the follower tests and
// the benchmark need, through plain eth_sendTransaction.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import type { Hex } from '../../../rpc/hex.js';
import type { JsonRpcRequest } from '../jsonRpcBlockSource.js';

const buildDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'fixtures', 'contracts', 'build');

export type ActivityContractName = 'ActivityToken' | 'ActivityNft' | 'ActivityMulti' | 'ActivityRouter';

export function activityArtifact(name: ActivityContractName): { abi: Abi; bytecode: Hex } {
  return JSON.parse(readFileSync(join(buildDir, `${name}.json`), 'utf8')) as { abi: Abi; bytecode: Hex };
}

export function encodeActivityCall(name: ActivityContractName, functionName: string, args: readonly unknown[] = []): Hex {
  return encodeFunctionData({ abi: activityArtifact(name).abi, functionName, args });
}

export interface ActivityDeployment {
  token: Hex;
  nft: Hex;
  multi: Hex;
  router1: Hex;
  router2: Hex;
}

export interface ActivityClient {
  accounts: Hex[];
  send(tx: { from: Hex; to?: Hex; data?: Hex; value?: bigint; gas?: bigint }): Promise<Hex>;
  receipt(hash: Hex): Promise<{ status: Hex; contractAddress: Hex | null; blockNumber: Hex }>;
  deploy(from: Hex): Promise<ActivityDeployment>;
}

export async function createActivityClient(request: JsonRpcRequest): Promise<ActivityClient> {
  const accounts = ((await request('eth_accounts', [])) as string[]).map((a) => a.toLowerCase() as Hex);
  const send: ActivityClient['send'] = async (tx) =>
    (await request('eth_sendTransaction', [
      {
        from: tx.from,
        ...(tx.to ? { to: tx.to } : {}),
        data: tx.data ?? '0x',
        value: `0x${(tx.value ?? 0n).toString(16)}`,
        ...(tx.gas ? { gas: `0x${tx.gas.toString(16)}` } : {}),
      },
    ])) as Hex;
  // A node may mine just after answering eth_sendTransaction (anvil does under load): poll briefly.
  const receipt: ActivityClient['receipt'] = async (hash) => {
    for (let waited = 0; ; waited += 10) {
      const found = (await request('eth_getTransactionReceipt', [hash])) as { status: Hex; contractAddress: Hex | null; blockNumber: Hex } | null;
      if (found) return found;
      if (waited > 10_000) throw new Error(`no receipt for ${hash} after 10 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const deployOne = async (from: Hex, data: Hex) => (await receipt(await send({ from, data, gas: 5_000_000n }))).contractAddress!.toLowerCase() as Hex;
  return {
    accounts,
    send,
    receipt,
    async deploy(from) {
      const token = activityArtifact('ActivityToken');
      return {
        token: await deployOne(from, encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: ['Activity Token', 'ATK', 6] })),
        nft: await deployOne(from, activityArtifact('ActivityNft').bytecode),
        multi: await deployOne(from, activityArtifact('ActivityMulti').bytecode),
        router1: await deployOne(from, activityArtifact('ActivityRouter').bytecode),
        router2: await deployOne(from, activityArtifact('ActivityRouter').bytecode),
      };
    },
  };
}

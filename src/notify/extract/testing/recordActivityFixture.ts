// Records `activityChain.json`: real blocks mined by anvil with the Activity* test contracts (ETH
// sent top-level and through contracts, ERC-20/721/1155 transfers, mints, burns, batches, a failed
// transaction, and a reorg made with evm_snapshot/evm_revert), each block as BlockData.
// Run: npx tsx src/notify/extract/testing/recordActivityFixture.ts
import { writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeDeployData, encodeFunctionData, parseEther, type Abi } from 'viem';
import { startAnvil } from '../../../testing/startAnvil.js';
import type { BlockData, CallFrame, RpcBlockHeader, RpcReceipt, RpcTransaction } from '../blockData.js';

const here = dirname(fileURLToPath(import.meta.url));
const buildDir = join(here, '..', '..', '..', '..', 'fixtures', 'contracts', 'build');
const artifact = (name: string) => JSON.parse(readFileSync(join(buildDir, `${name}.json`), 'utf8')) as { abi: Abi; bytecode: `0x${string}` };

/** Anvil's version is written into the fixture so a re-record shows what produced it. */
const anvil = await startAnvil(['--hardfork', 'cancun']);
let id = 0;
async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

try {
  const accounts = await rpc<`0x${string}`[]>('eth_accounts');
  const [a, b, c, d] = accounts as [`0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`];
  await rpc('evm_setAutomine', [false]);

  async function send(from: string, to: string | null, data: string, value = 0n, gas = 3_000_000n): Promise<`0x${string}`> {
    return rpc('eth_sendTransaction', [{ from, to: to ?? undefined, data, value: `0x${value.toString(16)}`, gas: `0x${gas.toString(16)}` }]);
  }
  async function mine(): Promise<void> {
    await rpc('evm_mine');
  }
  async function deployed(hash: string): Promise<`0x${string}`> {
    const receipt = await rpc<{ contractAddress: `0x${string}` }>('eth_getTransactionReceipt', [hash]);
    return receipt.contractAddress;
  }
  const call = (name: string, functionName: string, args: unknown[] = []) => encodeFunctionData({ abi: artifact(name).abi, functionName, args });

  // Block 1: the contracts.
  const tokenTx = await send(a, null, encodeDeployData({ abi: artifact('ActivityToken').abi, bytecode: artifact('ActivityToken').bytecode, args: ['Activity Token', 'ATK', 6] }));
  const nftTx = await send(a, null, artifact('ActivityNft').bytecode);
  const multiTx = await send(a, null, artifact('ActivityMulti').bytecode);
  const router1Tx = await send(a, null, artifact('ActivityRouter').bytecode);
  const router2Tx = await send(a, null, artifact('ActivityRouter').bytecode);
  await mine();
  const token = await deployed(tokenTx);
  const nft = await deployed(nftTx);
  const multi = await deployed(multiTx);
  const router1 = await deployed(router1Tx);
  const router2 = await deployed(router2Tx);
  const scenarios: Record<string, string> = {};

  // Block 2: top-level ETH.
  await send(a, b, '0x', parseEther('1.5'), 21_000n);
  await mine();
  scenarios.ethExternal = '0x2';
  // Block 3: ERC-20 mint, transfer, burn.
  await send(a, token, call('ActivityToken', 'mint', [a, 5_000_000n]));
  await send(a, token, call('ActivityToken', 'transfer', [b, 1_234_567n]));
  await send(a, token, call('ActivityToken', 'burn', [500_000n]));
  await mine();
  scenarios.erc20 = '0x3';
  // Block 4: ETH split inside a contract (call_0, call_1).
  await send(a, router1, call('ActivityRouter', 'split', [[b, c], [parseEther('1'), parseEther('2')]]), parseEther('3'));
  await mine();
  scenarios.split = '0x4';
  // Block 5: a hop through a second router (call_0, call_0_0).
  await send(a, router1, call('ActivityRouter', 'hop', [router2, c]), parseEther('0.25'));
  await mine();
  scenarios.hop = '0x5';
  // Block 6: DELEGATECALL carrying msg.value, the send inside it (call_0_0), a caught failing send,
  // and CREATE with value.
  await send(a, router1, call('ActivityRouter', 'delegateSplit', [router2, b, parseEther('0.1')]), parseEther('0.1'));
  await send(a, router1, call('ActivityRouter', 'sendThenFail', [b, parseEther('0.05')]), parseEther('0.05'));
  await send(a, router1, call('ActivityRouter', 'spawn', [parseEther('0.2')]), parseEther('0.2'));
  await mine();
  scenarios.delegateFailCreate = '0x6';
  // Block 7: ERC-721 mint, transfer, mint, burn.
  await send(a, nft, call('ActivityNft', 'mint', [a, 7n]));
  await send(a, nft, call('ActivityNft', 'transferFrom', [a, b, 7n]));
  await send(a, nft, call('ActivityNft', 'mint', [b, 8n]));
  await send(b, nft, call('ActivityNft', 'burn', [8n]));
  await mine();
  scenarios.erc721 = '0x7';
  // Block 8: ERC-1155 single and batch mint, transfer, burn.
  await send(a, multi, call('ActivityMulti', 'mint', [a, 1n, 10n]));
  await send(a, multi, call('ActivityMulti', 'mintBatch', [a, [2n, 3n], [20n, 30n]]));
  await send(a, multi, call('ActivityMulti', 'safeTransferFrom', [a, b, 1n, 4n, '0x']));
  await send(a, multi, call('ActivityMulti', 'safeBatchTransferFrom', [a, c, [2n, 3n], [5n, 6n], '0x']));
  await send(a, multi, call('ActivityMulti', 'burn', [a, 3n, 1n]));
  await mine();
  scenarios.erc1155 = '0x8';
  // Block 9: a failed transaction that carried value (mismatched arrays make split revert).
  await send(a, router1, call('ActivityRouter', 'split', [[b], []]), parseEther('1'), 200_000n);
  await mine();
  scenarios.failed = '0x9';

  // Block 10 on the first branch, then evm_revert and blocks 10', 11' on the second.
  const snapshot = await rpc<string>('evm_snapshot');
  await send(a, d, '0x', parseEther('1'), 21_000n);
  await send(a, token, call('ActivityToken', 'transfer', [d, 250_000n]));
  await mine();
  const firstBranch = [await blockData(10n)];
  await rpc('evm_revert', [snapshot]);
  await send(a, c, '0x', parseEther('2'), 21_000n);
  await mine();
  await send(a, token, call('ActivityToken', 'transfer', [d, 100_000n]));
  await mine();

  const canonical: BlockData[] = [];
  for (let n = 0n; n <= 11n; n++) canonical.push(await blockData(n));
  const tokenCalls: Record<string, { symbol: string | null; decimals: string | null }> = {};
  for (const contract of [token, nft, multi]) {
    tokenCalls[contract] = { symbol: await tryCall(contract, '0x95d89b41'), decimals: await tryCall(contract, '0x313ce567') };
  }
  const fixture = {
    recordedWith: await rpc<string>('web3_clientVersion'),
    accounts: { a, b, c, d },
    contracts: { token, nft, multi, router1, router2 },
    scenarios,
    tokenCalls,
    canonical,
    orphaned: firstBranch,
  };
  writeFileSync(join(here, 'activityChain.json'), `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`recorded ${canonical.length} canonical blocks and ${firstBranch.length} orphaned`);
} finally {
  await anvil.stop();
}

async function tryCall(to: string, data: string): Promise<string | null> {
  try {
    return await rpc<string>('eth_call', [{ to, data }, 'latest']);
  } catch {
    return null;
  }
}

async function blockData(number: bigint): Promise<BlockData> {
  const tag = `0x${number.toString(16)}`;
  const full = await rpc<RpcBlockHeader & { transactions: RpcTransaction[]; uncles?: unknown; withdrawals?: unknown; size?: unknown }>('eth_getBlockByNumber', [tag, true]);
  const { transactions, ...header } = full;
  delete header.uncles;
  delete header.withdrawals;
  delete header.size;
  const receipts = await rpc<RpcReceipt[]>('eth_getBlockReceipts', [tag]);
  const traces = await rpc<{ txHash: string; result: CallFrame }[]>('debug_traceBlockByNumber', [tag, { tracer: 'callTracer' }]);
  return { header: header as RpcBlockHeader, transactions, receipts, callFrames: traces.map((t) => t.result) };
}

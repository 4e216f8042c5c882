// foundry's cast and forge (the npm platform packages, 1.7.1) against the service over HTTP, as a
// user scripts them: cast send/call (--trace)/run/receipt/logs/rpc, forge create and
// forge script --broadcast compiled offline with solc-js behind a `solc` wrapper (`--use`), and
// viem's test actions dumpState/loadState round-tripping the chain's state.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Hex, createPublicClient, createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../engine/chain/testing/tempChain.js';
import { writeSolcWrapper } from '../../testing/solcWrapper.js';
import { type PooledService, startPooledService } from './testing/pooledService.js';

const run = promisify(execFile);
const BIN = (tool: string) => join(process.cwd(), 'node_modules', '@foundry-rs', `${tool}-linux-amd64`, 'bin', tool);
const CAST = BIN('cast');
const FORGE = BIN('forge');
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV0: Hex = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const SCRIPT = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.28;
import {Counter} from "../src/Counter.sol";

interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
}

/// Deploys a Counter and increments it twice, broadcast from the sender forge is given.
contract Deploy {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (Counter c) {
        vm.startBroadcast();
        c = new Counter();
        c.increment();
        c.increment();
        vm.stopBroadcast();
    }
}
`;

describe('foundry and viem test actions against the service', () => {
  let service: PooledService;
  let url: string;
  let project: string;
  let solc: string;
  beforeAll(async () => {
    service = await startPooledService({ workers: 1, gasCap: 50_000_000n, callTimeoutMs: 5_000 });
    url = service.rpcUrl('enterprise');
    project = makeTempDir('tracehook-forge-');
    mkdirSync(join(project, 'src'));
    mkdirSync(join(project, 'script'));
    copyFileSync(new URL('../../../fixtures/contracts/Counter.sol', import.meta.url), join(project, 'src', 'Counter.sol'));
    writeFileSync(join(project, 'script', 'Deploy.s.sol'), SCRIPT);
    solc = writeSolcWrapper(project);
    // The compiler named in the config too, for cast's --with-local-artifacts (which has no --use).
    writeFileSync(join(project, 'foundry.toml'), `[profile.default]\nsrc = "src"\nout = "out"\nlibs = []\noffline = true\nsolc = ${JSON.stringify(solc)}\n`);
  }, 30_000);
  afterAll(async () => {
    await service?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const forge = (args: string[]) => run(FORGE, [...args, '--root', project, '--use', solc], { cwd: project, env: { ...process.env, FOUNDRY_OFFLINE: 'true', NO_COLOR: '1' } });
  const cast = async (args: string[]) => (await run(CAST, [...args, '--rpc-url', url], { env: { ...process.env, NO_COLOR: '1' } })).stdout.trim();
  /** cast in the project, decoding traces with its build artifacts (offline: no signature service to ask). */
  const castDecoding = async (args: string[]) => (await run(CAST, [...args, '--rpc-url', url, '--with-local-artifacts'], { cwd: project, env: { ...process.env, NO_COLOR: '1' } })).stdout.trim();

  it('behavior: forge create deploys and cast send/call/receipt/logs/rpc/run/call --trace work on it', async () => {
    const created = await forge(['create', 'src/Counter.sol:Counter', '--rpc-url', url, '--private-key', KEY0, '--broadcast', '--json']);
    // Compiler lines first, then the JSON document.
    const { deployedTo, transactionHash } = JSON.parse(created.stdout.slice(created.stdout.indexOf('{'))) as { deployedTo: Hex; transactionHash: Hex };
    expect(deployedTo).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const runtime = await cast(['code', deployedTo]);
    expect(runtime).toMatch(/^0x6080/);

    const sent = JSON.parse(await cast(['send', deployedTo, 'increment()', '--private-key', KEY0, '--json'])) as { status: string; transactionHash: Hex; blockNumber: string };
    expect(sent.status).toBe('0x1');
    expect(await cast(['call', deployedTo, 'count()(uint256)'])).toBe('1');
    expect(await cast(['call', deployedTo, 'count()(uint256)', '--block', String(Number(sent.blockNumber) - 1)])).toBe('0');
    const traced = await castDecoding(['call', deployedTo, 'increment()(uint256)', '--from', DEV0, '--trace']);
    // Executed locally by cast on state it reads from the service, at the head: the second increment.
    expect(traced).toContain(`Counter::increment()`);
    expect(traced).toContain(`emit Incremented(by: ${DEV0}, newCount: 2)`);
    const receipt = JSON.parse(await cast(['receipt', sent.transactionHash, '--json'])) as { transactionHash: Hex; logs: unknown[]; gasUsed: Hex };
    expect(receipt.transactionHash).toBe(sent.transactionHash);
    expect(receipt.logs).toHaveLength(1);
    const logs = JSON.parse(await cast(['logs', '--from-block', '0', '--address', deployedTo, 'Incremented(address,uint256)', '--json'])) as { transactionHash: Hex }[];
    expect(logs.map((l) => l.transactionHash)).toEqual([sent.transactionHash]);
    expect(await cast(['rpc', 'eth_getTransactionReceipt', transactionHash])).toContain(deployedTo.toLowerCase());
    // cast run replays the mined transaction locally from the node's blocks and state.
    const replayed = await castDecoding(['run', sent.transactionHash]);
    expect(replayed).toContain(`emit Incremented(by: ${DEV0}, newCount: 1)`);
    expect(replayed).toContain(`Gas used: ${Number(receipt.gasUsed)}`);
  }, 120_000);

  it('behavior: forge script --broadcast deploys and sends its transactions', async () => {
    const result = await forge(['script', 'script/Deploy.s.sol:Deploy', '--rpc-url', url, '--private-key', KEY0, '--broadcast', '--slow']);
    expect(result.stdout).toMatch(/ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/);
    const broadcast = JSON.parse(readFileSync(join(project, 'broadcast', 'Deploy.s.sol', '31337', 'run-latest.json'), 'utf8')) as { transactions: { contractAddress: Hex | null; transactionType: string }[]; receipts: { status: string }[] };
    expect(broadcast.receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1']);
    const deployed = broadcast.transactions.find((t) => t.transactionType === 'CREATE')!.contractAddress!;
    expect(await cast(['call', deployed, 'count()(uint256)'])).toBe('2');
  }, 120_000);

  it('behavior: viem dumpState/loadState carry balances, code and storage to another chain', async () => {
    const other = await startPooledService({ workers: 0, gasCap: 50_000_000n, callTimeoutMs: 5_000 });
    try {
      const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(url) });
      const read = createPublicClient({ chain: foundry, transport: http(url) });
      const target = '0x5555555555555555555555555555555555555555';
      await test.setBalance({ address: target, value: 777n });
      await test.setCode({ address: target, bytecode: '0x60016000f3' });
      await test.setStorageAt({ address: target, index: 3, value: `0x${'0'.repeat(62)}09` });
      const state = await test.dumpState();
      expect(state).toMatch(/^0x1f8b/);
      const otherTest = createTestClient({ chain: foundry, mode: 'anvil', transport: http(other.rpcUrl('enterprise')) });
      const otherRead = createPublicClient({ chain: foundry, transport: http(other.rpcUrl('enterprise')) });
      await otherTest.loadState({ state });
      expect(await otherRead.getBalance({ address: target })).toBe(777n);
      expect(await otherRead.getCode({ address: target })).toBe(await read.getCode({ address: target }));
      expect(await otherRead.getStorageAt({ address: target, slot: '0x3' })).toBe(`0x${'0'.repeat(62)}09`);
    } finally {
      await other.close();
    }
  }, 60_000);
});

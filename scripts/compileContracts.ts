// Compiles every fixtures/contracts/*.sol with solc-js (npm `solc`, pinned) and writes
// fixtures/contracts/build/<Contract>.json = {abi, bytecode, deployedBytecode}. The build output is
// committed so tests do not compile at run time; rerun after editing a .sol file:
//   npx tsx scripts/compileContracts.ts
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'contracts');
const sources = Object.fromEntries(
  readdirSync(root)
    .filter((f) => f.endsWith('.sol'))
    .map((f) => [f, { content: readFileSync(join(root, f), 'utf8') }]),
);
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}
const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
mkdirSync(join(root, 'build'), { recursive: true });
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    const out = { source: file, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
    writeFileSync(join(root, 'build', `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
    console.log(`${file}:${name}`);
  }
}

// Test support: a `solc` executable for forge (`forge … --use <path>`) that runs solc-js from npm,
// so forge compiles offline without downloading a native compiler. forge calls `solc --version`
// (it reads the `Version:` line) and `solc --standard-json` (input on stdin, output on stdout),
// which is all solc-js's `compile` needs to answer.
import { chmodSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Writes the wrapper into `dir` and returns its path. */
export function writeSolcWrapper(dir: string): string {
  const solcPath = createRequire(import.meta.url).resolve('solc');
  const path = join(dir, 'solc');
  writeFileSync(
    path,
    [
      `#!${process.execPath}`,
      `const solc = require(${JSON.stringify(solcPath)});`,
      'const args = process.argv.slice(2);',
      "if (args.includes('--version')) {",
      "  process.stdout.write('solc, the solidity compiler commandline interface\\nVersion: ' + solc.version() + '\\n');",
      "} else if (args.includes('--standard-json')) {",
      "  let input = '';",
      "  process.stdin.setEncoding('utf8').on('data', (c) => (input += c)).on('end', () => process.stdout.write(solc.compile(input)));",
      '} else {',
      "  process.stderr.write('solc wrapper: only --version and --standard-json are supported, got: ' + args.join(' ') + '\\n');",
      '  process.exit(2);',
      '}',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

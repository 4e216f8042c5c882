// The @ethereumjs packages the engine reaches into must be the exact versions those reaches were
// written and tested against: the opcode probe replaces entries of EVM._opcodeMap, the state
// managers read and flush ethereumjs's caches and tries by their internal fields, the miner builds
// on BlockBuilder. package.json pins these versions; this check, run when a chain opens, stops a
// start on any other version (an install that ignored the lockfile, a hand-edited node_modules)
// with the package named, instead of wrong state roots or traces later.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ServiceError } from '../rpc/errors.js';

/** The version every patched @ethereumjs package must have. */
export const ETHEREUMJS_VERSION = '10.1.3';
const PACKAGES = ['block', 'common', 'evm', 'mpt', 'rlp', 'statemanager', 'tx', 'util', 'vm'] as const;

let checked = false;

/** The installed version of `@ethereumjs/<name>` (its package.json does not export itself). */
export function installedVersion(name: string): string {
  const require = createRequire(import.meta.url);
  const fullName = `@ethereumjs/${name}`;
  let dir = dirname(require.resolve(fullName));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === fullName && manifest.version) return manifest.version;
    } catch {
      // No manifest here (dist/esm has a bare {"type":"module"} one at most): keep climbing.
    }
    const up = dirname(dir);
    if (up === dir) throw new ServiceError(`cannot find the version of ${fullName}`);
    dir = up;
  }
}

/** Throws a ServiceError naming every @ethereumjs package whose version is not the pinned one. */
export function assertEthereumjsVersions(versionOf: (name: string) => string = installedVersion): void {
  if (checked && versionOf === installedVersion) return;
  const wrong = PACKAGES.map((name) => [name, versionOf(name)] as const).filter(([, version]) => version !== ETHEREUMJS_VERSION);
  if (wrong.length > 0) {
    throw new ServiceError(`unsupported @ethereumjs versions: ${wrong.map(([name, version]) => `@ethereumjs/${name} ${version}`).join(', ')}`, {
      details: `the engine patches internals of @ethereumjs ${ETHEREUMJS_VERSION} exactly; install with npm ci (package-lock.json)`,
    });
  }
  if (versionOf === installedVersion) checked = true;
}

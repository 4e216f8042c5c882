import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envName, flagName, optionDefs } from './options.js';
import { createProgram } from '../cli/runCli.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('options', () => {
  it('default: every option is documented in the README with its flag, env variable and file key', () => {
    for (const def of optionDefs) {
      expect(readme, def.key).toContain(`\`${flagName(def.key)}`);
      expect(readme, def.key).toContain(`\`${envName(def.key)}\``);
      expect(readme, def.key).toContain(`\`${def.key}\``);
    }
  });

  it('default: `tracehook start --help` lists every option', () => {
    const start = createProgram().commands.find((c) => c.name() === 'start')!;
    const help = start.helpInformation();
    for (const def of optionDefs) expect(help).toContain(flagName(def.key));
  });

  it('default: the Quick start has exactly the two commands', () => {
    const quick = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split('\n');
    expect(quick).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
});

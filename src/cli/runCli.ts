// The `tracehook` command line: `start` runs the service; `keys` manages API keys. Every option of
// `start` comes from config/options.ts, so flags, env variables and config-file keys stay in step.
import './debugColorsOnce.js';
import { Command, Option } from 'commander';
import { optionDefs, envName, flagName, type OptionDef } from '../config/options.js';
import { coerceOption, loadConfig } from '../config/loadConfig.js';
import { startServiceFromCli } from './startCommand.js';
import { registerKeysCommand } from './keysCommand.js';
import { openServiceStore } from '../store/openServiceStore.js';
import { createKeysRepository } from '../store/keysRepository.js';
import { packageVersion } from '../main.js';

function describe(def: OptionDef): string {
  const dflt = def.default === undefined || (Array.isArray(def.default) && def.default.length === 0) ? '' : `; default ${Array.isArray(def.default) ? def.default.join(',') : String(def.default)}`;
  return `${def.description} (env ${envName(def.key)}${dflt})`;
}

/** Adds every service option to a command (used by `start` and by `keys`, which needs the store options). */
export function addServiceOptions(command: Command, groups?: readonly OptionDef['group'][]): Command {
  for (const def of optionDefs as readonly OptionDef[]) {
    if (groups && !groups.includes(def.group)) continue;
    const option = new Option(`${flagName(def.key)}${def.arg ? ` <${def.arg}>` : ''}`, describe(def));
    if (def.repeatable) option.argParser((value: string, previous: unknown) => [...((previous as unknown[] | undefined) ?? []), ...(coerceOption(def, value) as unknown[])]);
    else if (def.kind !== 'bool') option.argParser((value: string) => coerceOption(def, value));
    command.addOption(option);
  }
  return command;
}

export function createProgram(): Command {
  const program = new Command('tracehook')
    .description('Self-hostable EVM trace API and webhook platform, with an embedded persistent dev chain.')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nEvery option can also be set by environment variable (TRACEHOOK_<NAME>) or in a YAML/JSON\n' +
        'config file (--config) by its camelCase name. Precedence: flags > env > file > defaults.\n' +
        'Run `tracehook start --help` for the service options.',
    );
  addServiceOptions(
    program
      .command('start')
      .description('run the service: JSON-RPC gateway at /v2/<key> and /<network>/v2/<key>, management API at /api, embedded chain, upstream nodes (--upstream)'),
  ).action(async (flags: Record<string, unknown>) => {
    await startServiceFromCli(loadConfig({ flags, env: process.env }));
  });
  const keys = registerKeysCommand(program, async (flags) => {
    const config = loadConfig({ flags, env: process.env });
    const db = await openServiceStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    return { keys: createKeysRepository(db), close: () => db.close() };
  });
  addServiceOptions(keys, ['general', 'store']);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  await createProgram().parseAsync(argv);
}

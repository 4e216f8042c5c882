// Builds the ServiceConfig from defaults < config file < environment < command-line flags.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ServiceError } from '../rpc/errors.js';
import { envName, fileSectionDefs, optionDefs, ServiceConfig, type OptionDef } from './options.js';
import { formatConfigPath } from './networks.js';

export class ConfigError extends ServiceError {
  override name = 'ConfigError';
}

type Raw = Record<string, unknown>;

/** Converts a string from env or argv to the option's type. */
export function coerceOption(def: OptionDef, value: string): unknown {
  switch (def.kind) {
    case 'int': {
      if (!/^-?\d+$/.test(value.trim())) throw new ConfigError(`${def.key}: expected an integer, got "${value}"`);
      return Number(value);
    }
    case 'bool': {
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      throw new ConfigError(`${def.key}: expected true or false, got "${value}"`);
    }
    case 'list':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return value;
  }
}

function readConfigFile(path: string): Raw {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}`, { cause: error });
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold an object`);
  const known = new Map((optionDefs as readonly OptionDef[]).filter((d) => d.fileKey !== false).map((d) => [d.key, d]));
  const sections = new Set<string>(fileSectionDefs.map((d) => d.key));
  const out: Raw = {};
  for (const [key, value] of Object.entries(parsed as Raw)) {
    if (sections.has(key)) {
      out[key] = value;
      continue;
    }
    const def = known.get(key);
    if (!def) throw new ConfigError(`config file ${path}: unknown option "${key}"`);
    out[key] = def.kind === 'list' && typeof value === 'string' ? coerceOption(def, value) : value;
  }
  return out;
}

export interface LoadConfigOptions {
  /** Values from command-line flags, already typed (commander output), keyed by camelCase name. */
  flags: Raw;
  env: NodeJS.ProcessEnv;
}

export function loadConfig({ flags, env }: LoadConfigOptions): ServiceConfig {
  const fromEnv: Raw = {};
  for (const def of optionDefs as readonly OptionDef[]) {
    const value = env[envName(def.key)];
    if (value !== undefined && value !== '') fromEnv[def.key] = coerceOption(def, value);
  }
  const definedFlags = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  const configPath = (definedFlags.config ?? fromEnv.config) as string | undefined;
  const fromFile = configPath ? readConfigFile(configPath) : {};
  const defaults = Object.fromEntries(
    (optionDefs as readonly OptionDef[]).filter((d) => d.default !== undefined).map((d) => [d.key, d.default]),
  );
  const merged = { ...defaults, ...fromFile, ...fromEnv, ...definedFlags };
  const result = ServiceConfig.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`invalid option ${formatConfigPath(issue.path)}: ${issue.message}`);
  }
  return result.data;
}

// The dev API key and the management auth token: taken from config when given, otherwise generated
// once and kept in `<dataDir>/secrets.json` (mode 0600) so a restart keeps the same credentials.
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError } from './loadConfig.js';

export interface ServiceSecrets {
  devApiKey: string;
  authToken: string;
  /** Which values were generated now (first start), for the start-up banner. */
  generated: { devApiKey: boolean; authToken: boolean };
}

function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

export function loadOrCreateSecrets(dataDir: string, given: { devApiKey?: string; authToken?: string }): ServiceSecrets {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'secrets.json');
  let stored: { devApiKey?: string; authToken?: string } = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
    } catch (error) {
      throw new ConfigError(`${file} is not valid JSON; delete it to generate new credentials`, { cause: error });
    }
  }
  const generated = { devApiKey: false, authToken: false };
  const devApiKey = given.devApiKey ?? stored.devApiKey ?? ((generated.devApiKey = true), randomToken(24));
  const authToken = given.authToken ?? stored.authToken ?? ((generated.authToken = true), randomToken(32));
  if (generated.devApiKey || generated.authToken) {
    writeFileSync(file, `${JSON.stringify({ ...stored, devApiKey: stored.devApiKey ?? devApiKey, authToken: stored.authToken ?? authToken }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { devApiKey, authToken, generated };
}

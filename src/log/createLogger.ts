// Structured JSON logs (pino) on stderr. Secrets never reach a log line: API keys in URL paths are
// masked and fields that commonly carry credentials are redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Defaults to stderr, so stdout stays free for the start-up banner. */
  destination?: NodeJS.WritableStream;
}

/** `/v2/abc123` or `/mainnet/v2/abc123?x` → `/v2/***`: the key part of a gateway path is masked. */
export function redactPath(path: string): string {
  return path.replace(/\/v2\/[^/?#]*/, '/v2/***');
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: {
        paths: [
          'apiKey', 'authToken', 'token', 'signingKey', 'secret', 'password',
          'headers.authorization', 'headers["x-service-token"]', 'headers["x-alchemy-token"]',
          '*.apiKey', '*.authToken', '*.signingKey', '*.token',
        ],
        censor: '***',
      },
    },
    (options.destination ?? process.stderr) as pino.DestinationStream,
  );
}

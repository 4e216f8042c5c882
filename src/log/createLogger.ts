// Structured JSON logs (pino) on stderr. Secrets never reach a log line: paths are logged through
// redactPath.ts (known route words only) and fields that commonly carry credentials are redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Defaults to stderr, so stdout stays free for the start-up banner. */
  destination?: NodeJS.WritableStream;
}

export { redactPath, createPathRedactor } from './redactPath.js';

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

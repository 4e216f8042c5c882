// The logging surface the notify pipeline needs; a pino Logger satisfies it. Callers must never pass
// signing keys, auth tokens or notification bodies in the fields.

export interface NotifyLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const silentLogger: NotifyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

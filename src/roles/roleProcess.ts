// What a started process gives the CLI, whatever its role.
import type { Logger } from '../log/createLogger.js';

export interface RoleProcess {
  /** What `tracehook start` prints on stdout. */
  banner: string;
  logger: Logger;
  close(): Promise<void>;
}

/** Runs `cleanups` last-first, once; for the roles' close() and their failed starts. */
export function cleanupList(): { push(fn: () => Promise<void> | void): void; run(): Promise<void> } {
  const list: (() => Promise<void> | void)[] = [];
  return {
    push: (fn) => void list.push(fn),
    async run() {
      while (list.length) await list.pop()!();
    },
  };
}

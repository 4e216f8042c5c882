// `tracehook start`: runs the service until SIGINT/SIGTERM, then shuts down cleanly. The signal
// handlers are installed before anything starts, so a signal during start-up also stops it cleanly.
import type { ServiceConfig } from '../config/options.js';
import { startProcess } from '../main.js';
import type { RoleProcess } from '../roles/roleProcess.js';
import { ConfigError } from '../config/loadConfig.js';

export async function startServiceFromCli(config: ServiceConfig): Promise<void> {
  let service: RoleProcess | undefined;
  let stopSignal: NodeJS.Signals | undefined;
  const shutDown = (running: RoleProcess, signal: NodeJS.Signals) => {
    running.logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopSignal) return;
    stopSignal = signal;
    // During start-up the service is stopped as soon as it is up (below).
    if (service) shutDown(service, signal);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    service = await startProcess(config);
  } catch (error) {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port ${config.port} on ${config.host} is already in use; choose another with --port (or TRACEHOOK_PORT)`, { cause: error });
    }
    throw error;
  }
  if (stopSignal) {
    shutDown(service, stopSignal);
    return;
  }
  process.stdout.write(service.banner);
}

// `tracehook start`: runs the service until SIGINT/SIGTERM, then shuts down cleanly.
import type { ServiceConfig } from '../config/options.js';
import { startService } from '../main.js';
import { ConfigError } from '../config/loadConfig.js';

export async function startServiceFromCli(config: ServiceConfig): Promise<void> {
  const service = await startService(config).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port ${config.port} on ${config.host} is already in use; choose another with --port (or TRACEHOOK_PORT)`, { cause: error });
    }
    throw error;
  });
  process.stdout.write(service.banner);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

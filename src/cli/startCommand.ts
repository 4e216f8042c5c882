// `tracehook start`: runs the service until SIGINT/SIGTERM, then shuts down cleanly. The signal
// handlers are installed before anything starts, so a signal during start-up also stops it cleanly.
import type { ServiceConfig } from '../config/options.js';
import { startProcess } from '../main.js';
import type { RoleProcess } from '../roles/roleProcess.js';
import { ConfigError } from '../config/loadConfig.js';
import cluster from 'node:cluster';
import { announceReady, clusterMember, memberConfig, runProcessCluster } from './processCluster.js';

export async function startServiceFromCli(given: ServiceConfig): Promise<void> {
  // --processes N: this process is the primary that starts and watches N children (processCluster.ts).
  if (given.processes > 1 && cluster.isPrimary) return runProcessCluster(given);
  const member = clusterMember();
  const config = member ? memberConfig(given, member) : given;
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
    service = await startProcess(config, { internalPort: member?.kind === 'owner' ? member.internalPort : undefined });
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
  // A child of --processes N tells the primary, which prints the owner's banner once all serve.
  if (member) announceReady(service.banner, service.logger);
  else process.stdout.write(service.banner);
}

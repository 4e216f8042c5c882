// `tracehook start --role worker`: a webhook delivery worker and nothing else (no HTTP, no chain,
// no data dir). It leases due deliveries from the shared PostgreSQL store beside any other workers.
import type { ServiceConfig } from '../config/options.js';
import type { Logger } from '../log/createLogger.js';
import { openRoleStore } from './serviceNotifier.js';
import { cleanupList, type RoleProcess } from './roleProcess.js';

export async function startWorkerRole(config: ServiceConfig, logger: Logger): Promise<RoleProcess> {
  const cleanups = cleanupList();
  try {
    const { notifier } = await openRoleStore(config, logger, cleanups);
    notifier.start();
    cleanups.push(() => notifier.stop());
    logger.info({ role: 'worker', workerId: notifier.workerId }, 'tracehook started');
    return { banner: `tracehook worker ${notifier.workerId}: delivering webhooks\n`, logger, close: () => cleanups.run() };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

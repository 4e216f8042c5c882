// `tracehook start --role follower`: the chain followers of the upstream networks, each elected
// across processes (one active per network, the others standing by), and nothing else. The
// embedded chain's follower runs in the process that owns the chain (`--role all`).
import type { ServiceConfig } from '../config/options.js';
import type { Logger } from '../log/createLogger.js';
import { ConfigError } from '../config/loadConfig.js';
import { planNetworks } from '../config/networks.js';
import { createNetworkBackend } from '../main/networkBackends.js';
import { probeUpstreamChainId } from '../main/probeUpstreamChainId.js';
import { createUpstreamBlockSource } from '../main/upstreamBlockSource.js';
import { createChainFollower } from '../notify/follow/index.js';
import { openRoleStore } from './serviceNotifier.js';
import { createElectedFollower } from './electedFollower.js';
import { cleanupList, type RoleProcess } from './roleProcess.js';

export async function startFollowerRole(config: ServiceConfig, logger: Logger): Promise<RoleProcess> {
  const probed = config.upstream?.length ? await probeUpstreamChainId(config.upstream, { logger: logger.child({ part: 'networks' }) }) : undefined;
  const networks = planNetworks(config, probed).filter((n) => n.kind === 'upstream');
  if (!networks.length) throw new ConfigError('--role follower follows upstream networks: give --upstream or a networks section (the embedded chain is followed by --role all)');
  const cleanups = cleanupList();
  try {
    // The notifier is not started: this process delivers nothing; its wake() tells the workers of the others.
    const { db, notifier } = await openRoleStore(config, logger, cleanups);
    for (const network of networks) {
      const backend = createNetworkBackend(network, {
        logger: logger.child({ part: 'upstream', network: network.name }),
        maxResponseBytes: config.maxResponseBytes,
        timeoutMs: config.upstreamTimeoutMs,
        cacheBytes: config.upstreamCacheMb * 1024 * 1024,
      });
      cleanups.push(() => backend.close());
      await backend.start();
      const upstream = createUpstreamBlockSource(network.name, backend.backend);
      cleanups.push(() => upstream.close());
      const followerLogger = logger.child({ part: 'follower', network: network.name });
      const follower = createElectedFollower({
        network: network.name,
        db,
        connectionString: config.databaseUrl,
        logger: followerLogger,
        createFollower: (fenced) => createChainFollower({ network: network.name, db: fenced, source: upstream.source, outbox: notifier, confirmations: 0, logger: followerLogger }),
      });
      follower.start();
      cleanups.push(() => follower.stop());
    }
    logger.info({ role: 'follower', networks: networks.map((n) => n.name) }, 'tracehook started');
    return { banner: `tracehook follower: ${networks.map((n) => n.name).join(', ')} (one active per network across processes)\n`, logger, close: () => cleanups.run() };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

// Wiring only: builds every part of the service from a ServiceConfig, starts them in order and
// stops them in reverse. Logic lives in the parts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceConfig } from './config/options.js';
import { loadOrCreateSecrets } from './config/serviceSecrets.js';
import { lockDataDir } from './config/dataDirLock.js';
import { makeDataDirPrivate } from './config/dataDirModes.js';
import { checkFollowerCursor, checkServiceStore } from './config/dataDirIntegrity.js';
import { hexToBytes } from './rpc/hex.js';
import { releaseAllLeases } from './notify/outbox/claimDeliveries.js';
import { createLogger, type Logger } from './log/createLogger.js';
import { openServiceStore } from './store/openServiceStore.js';
import { createKeysRepository, KEYS_CHANGED_CHANNEL } from './store/keysRepository.js';
import { ensureKey } from './gateway/keys/apiKeys.js';
import { createGateway } from './gateway/app.js';
import { deriveDevAccounts } from './engine/chain/devAccounts.js';
import { loadKzg } from './engine/execute/kzgSetup.js';
import { startEmbeddedChain } from './main/embeddedChain.js';
import { embeddedAsUpstream, EMBEDDED_HEAD_POLL_MS } from './main/embeddedUpstream.js';
import { planNetworks, type ServedNetwork } from './config/networks.js';
import { networkKey } from './config/networkNames.js';
import { createNetworkBackend, type NetworkBackend } from './main/networkBackends.js';
import { redactedOrigin, upstreamLabel } from './backends/upstream/networkUpstreams.js';
import { createCacheMetrics } from './backends/upstream/cache/cacheMetrics.js';
import { createTracePathMetrics } from './backends/upstream/tracePathMetrics.js';
import { createUpstreamsRoutes, readyzNetworkView } from './gateway/api/upstreamsRoute.js';
import { registerUpstreamMetrics } from './gateway/ops/upstreamMetrics.js';
import { createNotifyMetrics } from './gateway/ops/notifyMetrics.js';
import { registerTraceQueueMetrics } from './gateway/ops/traceQueueMetrics.js';
import { registerTraceCacheMetrics } from './gateway/ops/traceCacheMetrics.js';
import { probeUpstreamChainId } from './main/probeUpstreamChainId.js';
import { createUpstreamBlockSource } from './main/upstreamBlockSource.js';
import { createUpstreamSubscriptions } from './main/upstreamSubscriptions.js';
import type { NetworkOptions } from './gateway/router/networkRouter.js';
import { createWebhooksApiRoutes } from './notify/index.js';
import { createChainFollower, createFollowerRoutes, readCursor, type ChainFollower } from './notify/follow/index.js';
import type { SqlDatabase } from './store/sql.js';
import { createServiceNotifier } from './roles/serviceNotifier.js';
import { createElectedFollower, type RunnableFollower } from './roles/electedFollower.js';
import { startWorkerRole } from './roles/workerRole.js';
import { startFollowerRole } from './roles/followerRole.js';
import type { RoleProcess } from './roles/roleProcess.js';
import { createRedisRateLimiter } from './gateway/policy/redisRateLimiter.js';
import { createRedisSharedCache } from './backends/upstream/cache/redisSharedCache.js';
import { systemClock } from './gateway/clock.js';
import { createDataDirSpace } from './config/dataDirSpace.js';
import { createNotifyChannel } from './store/postgres/notifyChannel.js';

export interface RunningService extends RoleProcess {
  /** JSON-RPC URL including the dev API key. Secret: print it, never log it. */
  rpcUrl: string;
  /** Base URL (no key). */
  baseUrl: string;
  /** What `tracehook start` prints on stdout. */
  banner: string;
  logger: Logger;
  close(): Promise<void>;
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Starts what `--role` asks for: `worker` and `follower` run alone on the shared store
 * (`src/roles/`); `all` and `gateway` are the service below.
 */
export async function startProcess(config: ServiceConfig, options: StartServiceOptions = {}): Promise<RoleProcess> {
  if (config.role === 'worker') return startWorkerRole(config, createLogger({ level: config.logLevel }));
  if (config.role === 'follower') return startFollowerRole(config, createLogger({ level: config.logLevel }));
  return startService(config, options);
}

export interface StartServiceOptions {
  /**
   * `--processes N`'s owner: also serve on this loopback port, outside the cluster's shared
   * socket, where the other processes reach the embedded chain's internal endpoint.
   */
  internalPort?: number;
}

export async function startService(config: ServiceConfig, options: StartServiceOptions = {}): Promise<RunningService> {
  const logger = createLogger({ level: config.logLevel });
  // Every network is settled (names, the `--upstream` nodes' chain id) before the data dir is touched.
  const probed = config.upstream?.length ? await probeUpstreamChainId(config.upstream, { logger: logger.child({ part: 'networks' }) }) : undefined;
  let served = planNetworks(config, probed);
  const embedded = served.find((n) => n.kind === 'embedded')!;
  const version = packageVersion();
  // Before anything opens a file: the dir 0700 and every file 0600 (the stores hold keys in plain text).
  const tightened = makeDataDirPrivate(config.dataDir);
  if (tightened.length) logger.warn({ dataDir: config.dataDir, files: tightened.map((t) => `${t.path} (was ${t.from})`) }, 'data dir permissions tightened to 0700/0600');
  const serviceFile = config.databaseUrl ? null : join(config.dataDir, 'service.sqlite');
  const serviceFileExisted = serviceFile !== null && existsSync(serviceFile);
  const secretsExisted = existsSync(join(config.dataDir, 'secrets.json'));
  const lock = lockDataDir(config.dataDir);
  const secrets = loadOrCreateSecrets(config.dataDir, { devApiKey: config.devApiKey, authToken: config.authToken });
  const cleanups: (() => Promise<void>)[] = [async () => lock.release()];
  let started = false;
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  try {
    // The process that owns the embedded chain runs it; a gateway given --embedded-upstream reaches
    // the owner's chain as an upstream network through the owner's internal endpoint.
    const local = config.embeddedUpstream ? undefined : await startEmbeddedChain(config, { version, logger, cleanups, started: () => started });
    if (config.embeddedUpstream) served = embeddedAsUpstream(served, config.embeddedUpstream, secrets.authToken);
    const chain = local?.chain;
    // The chain opens first so a missing service store is refused before an empty one is created.
    const storeWarning = chain && checkServiceStore({ serviceFile, serviceFileExisted, secretsExisted, chainHead: chain.headNumber(), acceptDataLoss: config.acceptDataLoss });
    if (storeWarning) logger.warn(storeWarning);
    const db = await openServiceStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    cleanups.push(() => db.close());
    // The integrity check is the embedded chain's: an upstream network's blocks are not in this dir.
    if (chain) {
      const cursor = await readCursor(db, embedded.name);
      const cursorWarning = checkFollowerCursor({
        // A gateway shares the store with the process that owns the embedded chain it follows.
        cursor: config.role === 'all' ? cursor : null,
        chainHasCursorBlock: cursor !== null && cursor.number >= 0n && (await chain.getBlockByHash(hexToBytes(cursor.hash))) !== undefined,
        chainFile: join(chain.config.dataDir, 'chain.sqlite'),
        chainHead: chain.headNumber(),
        acceptDataLoss: config.acceptDataLoss,
      });
      if (cursorWarning) logger.warn(cursorWarning);
    }
    const keys = createKeysRepository(db);
    await ensureKey(keys, { key: secrets.devApiKey, tier: 'enterprise', name: 'dev' });
    const pool = local?.pool;
    const kzg = local?.kzg ?? (await loadKzg());

    // The SQLite store belongs to this process alone (the data-dir lock), so leases still held
    // are those of a previous, killed run: free them so its in-flight deliveries resume now.
    if (!config.databaseUrl) await releaseAllLeases(db);
    const notifyMetrics = createNotifyMetrics();
    const { notifier, close: closeWakeChannel } = await createServiceNotifier(config, db, logger, { onAttempt: (a) => notifyMetrics.attempt(a) });
    cleanups.push(closeWakeChannel);
    // One backend per upstream network (networkBackends.ts decides which), one follower per network.
    const backends = new Map<string, NetworkBackend>();
    // One set of cache series for every network's cache, bound to the gateway's registry below.
    const cacheMetrics = createCacheMetrics();
    const tracePathMetrics = createTracePathMetrics();
    // Traces of upstream networks shared by every gateway (Redis), behind each process's own cache.
    const sharedCache =
      config.redisUrl && config.sharedCacheMb > 0
        ? createRedisSharedCache({
            url: config.redisUrl,
            prefix: config.redisPrefix,
            maxBytes: config.sharedCacheMb * 1024 * 1024,
            ttlSec: config.sharedCacheTtlSec,
            metrics: cacheMetrics,
            logger: logger.child({ part: 'upstream' }),
          })
        : undefined;
    if (sharedCache) cleanups.push(() => sharedCache.close());
    for (const network of served) {
      if (network.kind !== 'upstream') continue;
      const backend = createNetworkBackend(network, {
        logger: logger.child({ part: 'upstream', network: network.name }),
        // The owner's chain is on this machine or near it: its new blocks are seen within 250 ms.
        headPollMs: network.name === embedded.name ? EMBEDDED_HEAD_POLL_MS : undefined,
        maxResponseBytes: config.maxResponseBytes,
        timeoutMs: config.upstreamTimeoutMs,
        cacheBytes: config.upstreamCacheMb * 1024 * 1024,
        cacheMetrics,
        sharedCache,
        tracePathMetrics,
        // What no upstream and no translation answers runs on the embedded engine over upstream state.
        fork: { hardfork: config.hardfork, kzg, gasCap: BigInt(config.gasCap), timeoutMs: config.traceTimeoutMs, maxTimeoutMs: config.traceTimeoutMaxMs },
      });
      backends.set(network.name, backend);
      cleanups.push(async () => backend.close());
    }
    // The first probes, so routing knows each upstream's capabilities before the first request.
    await Promise.all([...backends.values()].map((b) => b.start()));
    const followers: RunnableFollower[] = [];
    // On PostgreSQL each network's follower is elected across processes (roles/electedFollower.ts).
    const elected = (network: string, create: (fenced: SqlDatabase) => ChainFollower) =>
      createElectedFollower({ network, db, connectionString: config.databaseUrl, logger: logger.child({ part: 'follower', network }), createFollower: create });
    const webhookRoutes = createWebhooksApiRoutes({
      db,
      notifier,
      networks: served.map((n) => n.name),
      extraRoutes: createFollowerRoutes,
      onBackfillRequested: () => followers.forEach((f) => f.wake()),
    });
    for (const network of served) {
      const followerLogger = logger.child({ part: 'follower', network: network.name });
      if (network.kind === 'embedded') {
        const source = local!.blockSource();
        followers.push(elected(network.name, (fenced) => createChainFollower({ network: network.name, db: fenced, source, outbox: notifier, confirmations: 0, logger: followerLogger })));
      } else {
        const upstream = createUpstreamBlockSource(network.name, backends.get(network.name)!.backend);
        cleanups.push(async () => upstream.close());
        followers.push(elected(network.name, (fenced) => createChainFollower({ network: network.name, db: fenced, source: upstream.source, outbox: notifier, confirmations: 0, logger: followerLogger })));
      }
    }
    const upstreamStatus = () => [...backends.values()].map((b) => b.status());
    const dataDirSpace = createDataDirSpace(config.dataDir);

    // Compute-unit buckets shared by every gateway (Redis), else this process's own.
    const rateLimiter = config.redisUrl ? createRedisRateLimiter({ url: config.redisUrl, prefix: `${config.redisPrefix}cu:`, clock: systemClock, logger: logger.child({ part: 'gateway' }) }) : undefined;
    if (rateLimiter) cleanups.push(() => rateLimiter.close());
    const gateway = createGateway({
      // The notifier's clock: the management API's times (replays, pauses) on the delivery schedule's timeline.
      clock: notifier.clock,
      rateLimiter,
      networks: served.map((network): NetworkOptions => {
        if (network.kind === 'embedded') return { name: network.name, table: local!.table, isReady: () => true };
        const backend = backends.get(network.name)!;
        // eth_subscribe from the network's chain follower (newHeads, logs); every other method goes
        // to the upstream, priced by the cost table (unlisted ones at its default).
        const subscriptions = createUpstreamSubscriptions({ network: network.name, backend: backend.backend, chain: backend.upstreams, logger: logger.child({ part: 'subscriptions', network: network.name }) });
        cleanups.push(async () => subscriptions.close());
        return { name: network.name, backends: [subscriptions.backend], passThrough: backend.backend, isReady: async () => backend.isReady() };
      }),
      store: { keys },
      authToken: secrets.authToken,
      logger: logger.child({ part: 'gateway' }),
      limits: { maxBodyBytes: config.maxBodyBytes, maxBatchSize: config.maxBatchSize, maxResponseBytes: config.maxResponseBytes },
      cors: { origins: config.corsOrigins },
      apiCors: { origins: config.apiCorsOrigins },
      fastPath: !config.nodeHttpOnly,
      // On the gateway's one management router and OpenAPI document, beside /api/keys.
      apiRoutes: [...webhookRoutes, ...createUpstreamsRoutes({ networks: upstreamStatus })],
      // /readyz shows the data dir's free space (under the floor: not ready, with the figures) and
      // each upstream network's table (states and capabilities, no origins).
      readinessChecks: [{ name: 'storage', check: () => dataDirSpace.check() }],
      readinessDetails: () => ({ storage: dataDirSpace.details(), ...(backends.size ? { networks: upstreamStatus().map(readyzNetworkView) } : {}) }),
      apiVersion: version,
      // The Vite build of web/ (npm ci's prepare and npm run build make it), beside dist/ from src/ or dist/.
      dashboard: { dir: fileURLToPath(new URL('../dist/web', import.meta.url)) },
      // The other processes of the deployment reach the embedded chain here (with the auth token).
      internal: local ? { token: secrets.authToken, network: embedded.name } : undefined,
    });
    registerUpstreamMetrics(gateway.metrics.registry, upstreamStatus);
    cacheMetrics.bind(gateway.metrics.registry);
    tracePathMetrics.bind(gateway.metrics.registry);
    // A key changed by another gateway or the CLI empties this gateway's key cache at once
    // (PostgreSQL NOTIFY at the change's commit); the 200 ms revision check stays the safety net.
    if (config.databaseUrl) {
      const keyChanges = await createNotifyChannel({ connectionString: config.databaseUrl, channel: KEYS_CHANGED_CHANNEL, logger: logger.child({ part: 'gateway' }) });
      keyChanges.subscribe(() => gateway.keyCache.clear());
      cleanups.push(() => keyChanges.close());
    }
    const stopNotifyMetrics = notifyMetrics.bind(gateway.metrics.registry, { db, followers: () => followers });
    if (pool) registerTraceQueueMetrics(gateway.metrics.registry, () => pool.stats());
    if (local) registerTraceCacheMetrics(gateway.metrics.registry, () => local.tracer.cache.stats());
    cleanups.push(async () => stopNotifyMetrics());
    // Which process answered, for `--processes N` and several gateways behind one balancer.
    gateway.metrics.registry.gauge('tracehook_process_info', 'This process: its pid and role (all: owns the embedded chain; gateway).', () => [{ labels: { pid: String(process.pid), role: config.role }, value: 1 }]);
    const address = await gateway.listen(config.host, config.port);
    cleanups.push(() => gateway.close());
    if (options.internalPort !== undefined && local) {
      const internal = await gateway.listenInternal('127.0.0.1', options.internalPort);
      logger.info({ url: internal.url }, 'internal endpoint for the other processes listening');
    }
    // --role gateway serves only: its API's wake-ups reach the workers of other processes.
    if (config.role === 'all') {
      notifier.start();
      cleanups.push(() => notifier.stop());
      for (const follower of followers) {
        follower.start();
        cleanups.push(() => follower.stop());
      }
    }

    started = true;
    const baseUrl = address.url;
    const rpcUrl = `${baseUrl}/v2/${secrets.devApiKey}`;
    logger.info(
      {
        url: `${baseUrl}/v2/***`,
        networks: served.map((n) => ({ name: n.name, chainId: n.chainId.toString(), ...(n.kind === 'upstream' ? { upstreams: n.upstreams.map((u, i) => `${upstreamLabel(n.name, i)} ${redactedOrigin(u.url)}`) } : { embedded: true }) })),
        hardfork: config.hardfork,
        head: chain?.headNumber().toString(),
        embeddedUpstream: config.embeddedUpstream ? redactedOrigin(config.embeddedUpstream) : undefined,
      },
      'tracehook started',
    );
    return {
      rpcUrl,
      baseUrl,
      banner: formatBanner({ version, rpcUrl, baseUrl, authToken: secrets.authToken, networks: served, accounts: (chain?.accounts ?? deriveDevAccounts(config.mnemonic, config.accounts)).map((a) => a.address.toString()) }),
      logger,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** `ETH_MAINNET   chain 1, 2 upstreams   /eth-mainnet/v2/<key>` (the first network also at `/v2/<key>`). */
function networkLine(network: ServedNetwork): string {
  const what = network.kind === 'embedded' ? 'embedded chain' : `${network.upstreams.length} upstream${network.upstreams.length === 1 ? '' : 's'}`;
  return `  ${network.name.padEnd(14)}chain ${network.chainId}, ${what}   /${networkKey(network.name)}/v2/<key>`;
}

function formatBanner(info: { version: string; rpcUrl: string; baseUrl: string; authToken: string; networks: readonly ServedNetwork[]; accounts: readonly string[] }): string {
  return [
    `tracehook v${info.version}`,
    '',
    `JSON-RPC      ${info.rpcUrl}   (network ${info.networks[0]!.name})`,
    'Networks',
    ...info.networks.map(networkLine),
    `Dashboard     ${info.baseUrl}/   (sign in with the auth token)`,
    `Management    ${info.baseUrl}/api   (header X-Service-Token: ${info.authToken})`,
    `Health        ${info.baseUrl}/healthz  ${info.baseUrl}/readyz  ${info.baseUrl}/metrics`,
    '',
    'Dev accounts (10,000 ETH each by default; keys from the configured mnemonic):',
    ...info.accounts.map((a, i) => `  (${i}) ${a}`),
    '',
    '',
  ].join('\n');
}

// Wiring only: builds every part of the service from a ServiceConfig, starts them in order and
// stops them in reverse. Logic lives in the parts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { ServiceConfig } from './config/options.js';
import { balanceWei } from './config/options.js';
import { loadOrCreateSecrets } from './config/serviceSecrets.js';
import { lockDataDir } from './config/dataDirLock.js';
import { makeDataDirPrivate } from './config/dataDirModes.js';
import { checkFollowerCursor, checkServiceStore } from './config/dataDirIntegrity.js';
import { hexToBytes } from './rpc/hex.js';
import { releaseAllLeases } from './notify/outbox/claimDeliveries.js';
import { createLogger, type Logger } from './log/createLogger.js';
import { openServiceStore } from './store/openServiceStore.js';
import { createKeysRepository } from './store/keysRepository.js';
import { ensureKey } from './gateway/keys/apiKeys.js';
import { createGateway } from './gateway/app.js';
import { createDevChain } from './engine/chain/devChain.js';
import { refuseUnservedNetworks } from './config/networks.js';
import { createMethodTable } from './backends/embedded/methodTable.js';
import { createWeb3Namespace } from './backends/embedded/web3Namespace.js';
import { createEthNamespace } from './backends/embedded/ethNamespace.js';
import { createDevNamespace } from './backends/embedded/devNamespace.js';
import { createTraceNamespace } from './backends/embedded/traceNamespace.js';
import { createDebugNamespace } from './backends/embedded/debugNamespace.js';
import { createTracer } from './engine/trace/createTracer.js';
import { createTracePool } from './engine/trace/tracePool.js';
import { createPooledCalls } from './engine/trace/pooledCalls.js';
import type { JobScope, TraceJob } from './engine/trace/traceJob.js';
import { createNotifier, createWebhooksApiRoutes } from './notify/index.js';
import { createChainFollower, createChainBlockSource, createEngineBlockTracer, createFollowerRoutes, readCursor } from './notify/follow/index.js';

export interface RunningService {
  /** JSON-RPC URL including the dev API key. Secret: print it, never log it. */
  rpcUrl: string;
  /** Base URL (no key). */
  baseUrl: string;
  /** What `tracehook start` prints on stdout. */
  banner: string;
  logger: Logger;
  close(): Promise<void>;
}

/** Network name of the embedded chain: `/local/v2/<key>` in the gateway, `LOCAL` for webhooks. */
export const EMBEDDED_NETWORK = { gateway: 'local', webhooks: 'LOCAL' } as const;

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  refuseUnservedNetworks(config.networks, config.chainId);
  const logger = createLogger({ level: config.logLevel });
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
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  try {
    const chain = await createDevChain({
      dataDir: config.dataDir,
      chainId: BigInt(config.chainId),
      hardfork: config.hardfork,
      mnemonic: config.mnemonic,
      accountCount: config.accounts,
      accountBalanceWei: balanceWei(config),
      baseFeeWei: BigInt(config.baseFee),
      gasLimit: BigInt(config.gasLimit),
      coinbase: config.coinbase,
      blockTimeSec: config.blockTime,
      gasCap: BigInt(config.gasCap),
      callTimeoutMs: config.callTimeoutMs,
      minedRecordBytes: config.minedTraceMemoryMb * 1024 * 1024,
      checkpointInWorker: true,
      logger: logger.child({ part: 'chain' }),
    });
    cleanups.push(() => chain.close());
    // The chain opens first so a missing service store is refused before an empty one is created.
    const storeWarning = checkServiceStore({ serviceFile, serviceFileExisted, secretsExisted, chainHead: chain.headNumber(), acceptDataLoss: config.acceptDataLoss });
    if (storeWarning) logger.warn(storeWarning);
    const db = await openServiceStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    cleanups.push(() => db.close());
    const cursor = await readCursor(db, EMBEDDED_NETWORK.webhooks);
    const cursorWarning = checkFollowerCursor({
      cursor,
      chainHasCursorBlock: cursor !== null && cursor.number >= 0n && (await chain.getBlockByHash(hexToBytes(cursor.hash))) !== undefined,
      chainFile: join(chain.config.dataDir, 'chain.sqlite'),
      chainHead: chain.headNumber(),
      acceptDataLoss: config.acceptDataLoss,
    });
    if (cursorWarning) logger.warn(cursorWarning);
    const keys = createKeysRepository(db);
    await ensureKey(keys, { key: secrets.devApiKey, tier: 'enterprise', name: 'dev' });

    // Calls at the head run on the working state (head root plus dev setters): the tracer's default.
    // Traces, eth_call and eth_estimateGas run in worker threads (below the core count) so they
    // never hold the HTTP loop; without workers they run here under the same guard.
    const traceWorkers = config.traceWorkers ?? Math.max(1, availableParallelism() - 1);
    // Struct logs and vmTrace are bounded per job: steps and output bytes counted while recording.
    const stepCaps = { maxBytes: config.traceMaxBytes, maxSteps: config.traceMaxSteps };
    const limits = { stepCaps, maxTimeoutMs: config.traceTimeoutMaxMs };
    const worker = { dataDir: chain.config.dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: BigInt(config.gasCap), ...limits };
    const pool = traceWorkers > 0 ? createTracePool({ size: traceWorkers, worker, maxQueuedJobs: config.traceQueueLimit, logger: logger.child({ part: 'trace-pool' }) }) : undefined;
    if (pool) cleanups.push(() => pool.close());
    const runJob = pool && ((job: TraceJob, scope?: JobScope) => pool.run(job, scope));
    // What still executes here (the follower's replays of blocks whose records were not kept, or
    // everything without workers) yields every 5 ms, like the miner and in-process calls.
    const tracer = createTracer({ chain, gasCap: BigInt(config.gasCap), timeoutMs: config.traceTimeoutMs, ...limits, runJob, yieldEveryMs: 5 });
    cleanups.push(async () => tracer.close());
    const calls = runJob && createPooledCalls({ stateRootAt: (block) => chain.stateRootAt(block), runJob, timeoutMs: config.callTimeoutMs });
    const table = createMethodTable(
      createWeb3Namespace({ clientVersion: `tracehook/v${version}`, chainId: chain.chainId }),
      createEthNamespace({ chain, calls }),
      createDevNamespace({ chain }),
      createTraceNamespace({ tracer }),
      createDebugNamespace({ tracer }),
    );

    // The SQLite store belongs to this process alone (the data-dir lock), so leases still held
    // are those of a previous, killed run: free them so its in-flight deliveries resume now.
    if (!config.databaseUrl) await releaseAllLeases(db);
    const notifier = createNotifier({
      db,
      logger: logger.child({ part: 'notify' }),
      tier: config.webhookTier,
      concurrency: config.webhookConcurrency,
      fetchTimeoutMs: config.webhookTimeoutMs,
      allowLoopbackUrls: !config.production,
      allowList: config.webhookAllowList,
    });
    const webhookRoutes = createWebhooksApiRoutes({
      db,
      notifier,
      networks: [EMBEDDED_NETWORK.webhooks],
      extraRoutes: createFollowerRoutes,
      onBackfillRequested: () => follower.wake(),
    });
    const follower = createChainFollower({
      network: EMBEDDED_NETWORK.webhooks,
      db,
      source: createChainBlockSource({ chain, traceBlock: createEngineBlockTracer(tracer, config.traceTimeoutMaxMs), stateRootAt: async (block) => chain.stateRootAt(block) }),
      outbox: notifier,
      confirmations: 0,
      logger: logger.child({ part: 'follower' }),
    });

    const gateway = createGateway({
      networks: [{ name: EMBEDDED_NETWORK.gateway, table, isReady: () => true }],
      store: { keys },
      authToken: secrets.authToken,
      logger: logger.child({ part: 'gateway' }),
      limits: { maxBodyBytes: config.maxBodyBytes, maxBatchSize: config.maxBatchSize, maxResponseBytes: config.maxResponseBytes },
      cors: { origins: config.corsOrigins },
      apiCors: { origins: config.apiCorsOrigins },
      fastPath: !config.nodeHttpOnly,
      // On the gateway's one management router and OpenAPI document, beside /api/keys.
      apiRoutes: webhookRoutes,
      apiVersion: version,
    });
    const address = await gateway.listen(config.host, config.port);
    cleanups.push(() => gateway.close());
    notifier.start();
    cleanups.push(() => notifier.stop());
    follower.start();
    cleanups.push(() => follower.stop());

    const baseUrl = address.url;
    const rpcUrl = `${baseUrl}/v2/${secrets.devApiKey}`;
    logger.info({ url: `${baseUrl}/v2/***`, chainId: config.chainId, hardfork: config.hardfork, head: chain.headNumber().toString() }, 'tracehook started');
    return {
      rpcUrl,
      baseUrl,
      banner: formatBanner({ version, rpcUrl, baseUrl, authToken: secrets.authToken, accounts: chain.accounts.map((a) => a.address.toString()) }),
      logger,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function formatBanner(info: { version: string; rpcUrl: string; baseUrl: string; authToken: string; accounts: readonly string[] }): string {
  return [
    `tracehook v${info.version}`,
    '',
    `JSON-RPC      ${info.rpcUrl}`,
    `Management    ${info.baseUrl}/api   (header X-Service-Token: ${info.authToken})`,
    `Health        ${info.baseUrl}/healthz  ${info.baseUrl}/readyz  ${info.baseUrl}/metrics`,
    '',
    'Dev accounts (10,000 ETH each by default; keys from the configured mnemonic):',
    ...info.accounts.map((a, i) => `  (${i}) ${a}`),
    '',
    '',
  ].join('\n');
}

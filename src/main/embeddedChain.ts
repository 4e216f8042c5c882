// Wiring of the embedded chain a process owns: the chain (fork mode, --load-state, --dump-state at
// a clean stop), its trace worker pool, tracer and JSON-RPC method table, and the block source of
// its webhook follower. A `--role gateway --embedded-upstream` process has none of this: it reaches
// the owner's chain as an upstream (main/embeddedUpstream.ts).
import { availableParallelism } from 'node:os';
import type { KZG } from '@ethereumjs/util';
import type { ServiceConfig } from '../config/options.js';
import { balanceWei } from '../config/options.js';
import type { Logger } from '../log/createLogger.js';
import { ServiceError } from '../rpc/errors.js';
import { resolveForkSetup } from '../backends/fork/forkModeSetup.js';
import { createDevChain, type DevChain } from '../engine/chain/devChain.js';
import { createTracer, type Tracer } from '../engine/trace/createTracer.js';
import { createRenderedTraceCache } from '../engine/trace/renderedTraceCache.js';
import { createTracePool, type TracePool } from '../engine/trace/tracePool.js';
import { createPooledCalls } from '../engine/trace/pooledCalls.js';
import type { JobScope, TraceJob } from '../engine/trace/traceJob.js';
import { createMethodTable, type MethodTable } from '../backends/embedded/methodTable.js';
import { createWeb3Namespace } from '../backends/embedded/web3Namespace.js';
import { createEthNamespace } from '../backends/embedded/ethNamespace.js';
import { createDevNamespace } from '../backends/embedded/devNamespace.js';
import { createTraceNamespace } from '../backends/embedded/traceNamespace.js';
import { createDebugNamespace } from '../backends/embedded/debugNamespace.js';
import { createChainBlockSource, createEngineBlockTracer } from '../notify/follow/index.js';
import type { BlockSource } from '../notify/follow/blockSource.js';
import { dumpStateFile, loadStateFile } from './stateFiles.js';

export interface EmbeddedChain {
  chain: DevChain;
  tracer: Tracer;
  pool: TracePool | undefined;
  table: MethodTable;
  /** The KZG of the chain's rules (fork execution of upstream networks uses it too). */
  kzg: KZG | undefined;
  /** The webhook follower's blocks, traced by this chain's tracer. */
  blockSource(): BlockSource;
}

export interface EmbeddedChainOptions {
  version: string;
  logger: Logger;
  /** Stops registered here run in reverse order at close. */
  cleanups: (() => Promise<void>)[];
  /** Whether the service got as far as serving (--dump-state writes only then). */
  started: () => boolean;
}

export async function startEmbeddedChain(config: ServiceConfig, options: EmbeddedChainOptions): Promise<EmbeddedChain> {
  const { logger, cleanups } = options;
  if (config.forkBlock !== undefined && !config.forkUrl) throw new ServiceError('--fork-block needs --fork-url');
  // Fork mode: the remote's chain id, fork block and rules (README, Fork mode).
  const fork = config.forkUrl ? await resolveForkSetup(config.forkUrl, config.forkBlock === undefined ? undefined : BigInt(config.forkBlock), config.hardfork) : undefined;
  if (fork) logger.info({ chainId: fork.chainId.toString(), forkBlock: fork.point.blockNumber.toString(), forkHash: fork.point.blockHash, hardfork: fork.hardfork }, 'fork mode');
  const chain = await createDevChain({
    fork,
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
    cacheBytes: config.chainCacheMb * 1024 * 1024,
    checkpointInWorker: true,
    logger: logger.child({ part: 'chain' }),
  });
  cleanups.push(() => chain.close());
  // anvil's --load-state / --dump-state: merged in before anything serves; written after the
  // gateway and followers have stopped (cleanups run in reverse), on a clean shutdown only.
  if (config.loadState) {
    const accounts = await loadStateFile(chain, config.loadState);
    logger.info({ file: config.loadState, accounts }, 'state loaded (--load-state)');
  }
  if (config.dumpState) {
    const dumpTo = config.dumpState;
    cleanups.push(async () => {
      if (!options.started()) return;
      try {
        logger.info({ file: await dumpStateFile(chain, dumpTo) }, 'state written (--dump-state)');
      } catch (error) {
        logger.error({ err: error, file: dumpTo }, 'writing the state failed (--dump-state)');
      }
    });
  }

  // Calls at the head run on the working state (head root plus dev setters): the tracer's default.
  // Traces, eth_call and eth_estimateGas run in worker threads (below the core count) so they
  // never hold the HTTP loop; without workers they run here under the same guard.
  const traceWorkers = config.traceWorkers ?? Math.max(1, availableParallelism() - 1);
  // Struct logs and vmTrace are bounded per job: steps and output bytes counted while recording.
  const stepCaps = { maxBytes: config.traceMaxBytes, maxSteps: config.traceMaxSteps };
  const limits = { stepCaps, maxTimeoutMs: config.traceTimeoutMaxMs };
  const worker = { dataDir: chain.config.dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: BigInt(config.gasCap), chainCacheBytes: config.chainCacheMb * 1024 * 1024, ...limits };
  // Fork mode: workers load the trie nodes they lack through this thread's remote client.
  const pool =
    traceWorkers > 0
      ? createTracePool({ size: traceWorkers, worker: { ...worker, fork: fork?.point }, remote: fork?.client, maxQueuedJobs: config.traceQueueLimit, logger: logger.child({ part: 'trace-pool' }) })
      : undefined;
  if (pool) cleanups.push(() => pool.close());
  const runJob = pool && ((job: TraceJob, scope?: JobScope) => pool.run(job, scope));
  // What still executes here (the follower's replays of blocks whose records were not kept, or
  // everything without workers) yields every 5 ms, like the miner and in-process calls.
  const tracer = createTracer({
    chain,
    gasCap: BigInt(config.gasCap),
    timeoutMs: config.traceTimeoutMs,
    ...limits,
    runJob,
    yieldEveryMs: 5,
    prerenderMinedTraces: true,
    cache: createRenderedTraceCache({ maxBytes: config.traceCacheMb * 1024 * 1024 }),
  });
  cleanups.push(async () => tracer.close());
  const calls = runJob && createPooledCalls({ stateRootAt: (block) => chain.stateRootAt(block), runJob, timeoutMs: config.callTimeoutMs });
  const table = createMethodTable(
    createWeb3Namespace({ clientVersion: `tracehook/v${options.version}`, chainId: chain.chainId }),
    createEthNamespace({ chain, calls }),
    createDevNamespace({ chain }),
    createTraceNamespace({ tracer }),
    createDebugNamespace({ tracer }),
  );
  return {
    chain,
    tracer,
    pool,
    table,
    kzg: chain.common.customCrypto.kzg,
    blockSource: () => createChainBlockSource({ chain, traceBlock: createEngineBlockTracer(tracer, config.traceTimeoutMaxMs), stateRootAt: async (block) => chain.stateRootAt(block) }),
  };
}

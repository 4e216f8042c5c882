// `tracehook start --processes N`: N processes serving HTTP on one port (node:cluster; README,
// "Several processes on one machine"). The primary serves nothing: it starts the owner (the
// embedded chain, the delivery worker, the followers: `--role all`), then N-1 gateways that reach
// the owner's chain through its internal endpoint on a private loopback port, restarts a child
// that dies, and stops them all on SIGINT/SIGTERM. Children exit by themselves when the primary
// dies (node:cluster ends a worker whose IPC channel to the primary closes).
import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ServiceConfig } from '../config/options.js';
import { loadOrCreateSecrets } from '../config/serviceSecrets.js';
import { createLogger, type Logger } from '../log/createLogger.js';

/** The environment variable that tells a child of the primary what it is. */
const MEMBER_ENV = 'TRACEHOOK_CLUSTER_MEMBER';
const INTERNAL_PORT_ENV = 'TRACEHOOK_CLUSTER_INTERNAL_PORT';

/** What one child of `--processes N` runs. */
export type ClusterMember = { kind: 'owner'; internalPort: number } | { kind: 'gateway'; index: number; internalPort: number };

/** Messages a child sends the primary. */
export type ClusterMessage = { kind: 'ready'; banner: string };

/** How long the primary waits for its children to stop before killing them. */
const STOP_TIMEOUT_MS = 30_000;
/** Shortest time between two restarts of one child, so a child failing at start does not spin. */
const RESTART_MIN_INTERVAL_MS = 1_000;

/** This process's part in a `--processes N` deployment, or undefined when it is not a child of one. */
export function clusterMember(env: NodeJS.ProcessEnv = process.env): ClusterMember | undefined {
  if (!cluster.isWorker) return undefined;
  const [kind, index] = (env[MEMBER_ENV] ?? '').split(':');
  const internalPort = Number(env[INTERNAL_PORT_ENV]);
  if (kind === 'owner') return { kind, internalPort };
  if (kind === 'gateway') return { kind, index: Number(index), internalPort };
  return undefined;
}

/**
 * A child's config: the owner keeps the operator's (as `--processes 1`); a gateway runs
 * `--role gateway` on its own data dir inside the owner's (its secrets and lock), reaching the
 * owner's chain at the private internal port.
 */
export function memberConfig(config: ServiceConfig, member: ClusterMember): ServiceConfig {
  if (member.kind === 'owner') return { ...config, processes: 1 };
  return {
    ...config,
    processes: 1,
    role: 'gateway',
    dataDir: join(config.dataDir, 'gateways', String(member.index)),
    embeddedUpstream: `http://127.0.0.1:${member.internalPort}`,
    // What only the owner does with its chain.
    loadState: undefined,
    dumpState: undefined,
    forkUrl: undefined,
    forkBlock: undefined,
  };
}

/** A free loopback port for the owner's internal endpoint, kept across the owner's restarts. */
async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen({ host: '127.0.0.1', port: 0, exclusive: true }, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs the primary until SIGINT/SIGTERM; resolves once every child has exited. */
export async function runProcessCluster(config: ServiceConfig): Promise<void> {
  const logger = createLogger({ level: config.logLevel }).child({ part: 'processes' });
  // One dev key and one auth token for every child: the token is also the internal credential.
  const secrets = loadOrCreateSecrets(config.dataDir, { devApiKey: config.devApiKey, authToken: config.authToken });
  const internalPort = await freeLoopbackPort();
  const secretEnv = { TRACEHOOK_DEV_API_KEY: secrets.devApiKey, TRACEHOOK_AUTH_TOKEN: secrets.authToken };
  const members: string[] = ['owner', ...Array.from({ length: config.processes - 1 }, (_, i) => `gateway:${i + 1}`)];
  const running = new Map<string, Worker>();
  const lastStart = new Map<string, number>();
  let stopping = false;
  let announced = false;
  let banner = '';
  const ready = new Set<string>();

  const fork = (member: string) => {
    lastStart.set(member, Date.now());
    const worker = cluster.fork({ ...secretEnv, [MEMBER_ENV]: member, [INTERNAL_PORT_ENV]: String(internalPort) });
    running.set(member, worker);
    worker.on('message', (message: ClusterMessage) => {
      if (message?.kind !== 'ready' || stopping) return;
      ready.add(member);
      if (member === 'owner') banner = message.banner;
      logger.info({ member, pid: worker.process.pid }, 'process ready');
      // Gateways start once the owner answers: their first probe of its chain must find it.
      if (member === 'owner' && !announced) for (const gateway of members.slice(1)) fork(gateway);
      if (!announced && ready.size === members.length) {
        announced = true;
        logger.info({ pids: [...running.entries()].map(([m, w]) => `${m}=${w.process.pid}`) }, `${members.length} processes serving port ${config.port}`);
        process.stdout.write(banner);
      }
    });
    worker.on('exit', (code, signal) => {
      if (running.get(member) === worker) running.delete(member);
      if (stopping) return;
      // Before the first banner a child that fails at start stops everything (a config or port error).
      if (!announced) {
        logger.error({ member, pid: worker.process.pid, code, signal }, 'process exited during start-up');
        void stopAll(1, `${member} exited during start-up`);
        return;
      }
      const waitMs = Math.max(0, RESTART_MIN_INTERVAL_MS - (Date.now() - lastStart.get(member)!));
      logger.warn({ member, pid: worker.process.pid, code, signal, restartInMs: waitMs }, 'process exited; restarting it');
      setTimeout(() => !stopping && fork(member), waitMs);
    });
  };

  let finished: (code: number) => void;
  const done = new Promise<number>((resolve) => (finished = resolve));
  const stopAll = async (code: number, why: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ why }, 'stopping every process');
    const workers = [...running.values()];
    const exits = workers.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of workers) w.process.kill('SIGTERM');
    const force = setTimeout(() => workers.forEach((w) => w.isDead() || w.process.kill('SIGKILL')), STOP_TIMEOUT_MS);
    await Promise.all(exits);
    clearTimeout(force);
    finished(code);
  };
  const onSignal = (signal: NodeJS.Signals) => void stopAll(0, signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  fork('owner');
  const code = await done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (code !== 0) process.exitCode = code;
}

/** Tells the primary this child serves (the owner's banner is the one printed). */
export function announceReady(banner: string, logger: Logger): void {
  const message: ClusterMessage = { kind: 'ready', banner };
  process.send?.(message, undefined, undefined, (error: Error | null) => error && logger.warn({ err: error }, 'could not tell the primary this process is ready'));
}

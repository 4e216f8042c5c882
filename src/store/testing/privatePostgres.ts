// A private PostgreSQL cluster for one test (issue 18: a real restart mid-run), so the shared
// server at 127.0.0.1:5432 is never restarted under other users: initdb into a temp dir owned by
// the `postgres` OS user (the server refuses to run as root), trust auth, a free port and its
// socket in the temp dir; stopped (`fast` or `immediate`) and started again on the same port.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../testing/startAnvil.js';

const run = promisify(execFile);

/** The newest installed server's bin dir (`/usr/lib/postgresql/<major>/bin`), if any. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const bin = join(root, major, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server: `fast` (clients disconnected, clean shutdown) or `immediate` (no shutdown checkpoint, like a crash). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it (immediate) and removes its files. */
  destroy(): Promise<void>;
}

/** Creates and starts a private cluster; needs `postgresBinDir()`. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const root = mkdtempSync(join(tmpdir(), 'tracehook-pg-'));
  const data = join(root, 'data');
  const port = await freePort();
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(root, postgresUser().uid, postgresUser().gid);
  // As the postgres user when we are root (the server refuses root), else as ourselves.
  const pgRun = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args));
  await pgRun('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = async () => {
    await pgRun('pg_ctl', ['start', '-w', '-t', '30', '-D', data, '-l', join(root, 'server.log'), '-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`]);
  };
  const stop = async (mode: 'fast' | 'immediate') => {
    await pgRun('pg_ctl', ['stop', '-w', '-t', '30', '-D', data, '-m', mode]);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async destroy() {
      await stop('immediate').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The postgres OS user's uid and gid, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres OS user to run the server as');
  const fields = line.split(':');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

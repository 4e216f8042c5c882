// Test support: N anvil processes running the SAME chain, as one network's upstreams. Same genesis
// (`--timestamp`), no automine; each block's raw transactions are sent to every fed member and
// mined there with an explicit timestamp, and the block hashes are asserted equal. A member can be
// SIGKILLed and restarted on its port (re-fed its history), left lagging (not fed the last blocks),
// or reorged with the others (snapshot/revert on all). A wrong-chain anvil can be started beside.
import { spawn, type ChildProcess } from 'node:child_process';
import { ANVIL_BIN, freePort } from '../../../testing/startAnvil.js';

const GENESIS_TIMESTAMP = 1_700_000_000;
const BLOCK_TIME_SEC = 12;
const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CHAIN_ID = 31337;

export interface FleetBlock {
  rawTxs: string[];
  timestamp: number;
}

export interface FleetMember {
  readonly index: number;
  readonly port: number;
  readonly url: string;
  /** Blocks of the fleet's history this member has (it lags when below the history's length). */
  fed: number;
  alive: boolean;
}

export interface AnvilFleet {
  readonly members: readonly FleetMember[];
  readonly urls: string[];
  /** The chain every fed member holds: raw txs and timestamp per block after genesis. */
  readonly history: readonly FleetBlock[];
  /** Mines one block with `txs` transfers on every live member not in `skip`; returns its number and hash (equal everywhere). */
  mine(options?: { txs?: number; skip?: readonly number[] }): Promise<{ number: bigint; hash: string }>;
  /** Feeds a lagging member the blocks it misses. */
  catchUp(index: number): Promise<void>;
  /** SIGKILLs a member. */
  kill(index: number): Promise<void>;
  /** Starts a killed member again on its port and re-feeds it the fleet's history. */
  restart(index: number): Promise<void>;
  /** Snapshot on every live member; `revert` goes back there on all (a reorg once new blocks are mined). */
  snapshot(): Promise<() => Promise<void>>;
  /** Hash of block `n` on a member. */
  blockHash(index: number, n: bigint): Promise<string | undefined>;
  close(): Promise<void>;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method} on ${url}: ${body.error.message}`);
  return body.result;
}

async function waitForRpc(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rpc(url, 'eth_chainId');
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`anvil did not answer at ${url} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }
}

/** Spawns anvil on `port` with the fleet's genesis; resolves once it answers. */
export async function spawnFleetAnvil(port: number, extraArgs: readonly string[] = []): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--hardfork', 'prague', '--timestamp', String(GENESIS_TIMESTAMP), '--no-mining', ...extraArgs];
  const child = spawn(ANVIL_BIN, args, { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, 15_000);
  return {
    child,
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface AnvilFleetOptions {
  /** Extra anvil flags for one member, e.g. `--prune-history 5` (kept on restart). */
  memberArgs?: (index: number) => readonly string[];
}

export async function startAnvilFleet(size = 3, options: AnvilFleetOptions = {}): Promise<AnvilFleet> {
  const procs: Array<Awaited<ReturnType<typeof spawnFleetAnvil>> | undefined> = [];
  const members: FleetMember[] = [];
  for (let index = 0; index < size; index++) {
    const port = await freePort();
    const p = await spawnFleetAnvil(port, options.memberArgs?.(index));
    procs.push(p);
    members.push({ index, port, url: p.url, fed: 0, alive: true });
  }
  const history: FleetBlock[] = [];
  let nonce = 0;

  const feed = async (m: FleetMember, block: FleetBlock) => {
    for (const raw of block.rawTxs) await rpc(m.url, 'eth_sendRawTransaction', [raw]);
    await rpc(m.url, 'evm_mine', [block.timestamp]);
    m.fed++;
  };
  const hashAt = async (m: FleetMember, n: bigint) => ((await rpc(m.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { hash?: string } | null)?.hash;
  const signer = () => {
    const m = members.find((x) => x.alive);
    if (!m) throw new Error('no live fleet member to sign with');
    return m;
  };

  const fleet: AnvilFleet = {
    members,
    get urls() {
      return members.map((m) => m.url);
    },
    history,
    async mine(options = {}) {
      const rawTxs: string[] = [];
      for (let i = 0; i < (options.txs ?? 1); i++) {
        const tx = { from: SENDER, to: RECIPIENT, value: '0x1', gas: '0x5208', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1', nonce: `0x${(nonce++).toString(16)}`, chainId: `0x${CHAIN_ID.toString(16)}`, type: '0x2' };
        rawTxs.push((await rpc(signer().url, 'eth_signTransaction', [tx])) as string);
      }
      // An extra second per fork point keeps a re-mined block's hash different from the replaced one.
      const timestamp = GENESIS_TIMESTAMP + BLOCK_TIME_SEC * (history.length + 1) + forkSalt;
      const block = { rawTxs, timestamp };
      history.push(block);
      const fed = members.filter((m) => m.alive && !options.skip?.includes(m.index) && m.fed === history.length - 1);
      await Promise.all(fed.map((m) => feed(m, block)));
      const number = BigInt(history.length);
      const hashes = await Promise.all(fed.map((m) => hashAt(m, number)));
      if (hashes.some((h) => h !== hashes[0])) throw new Error(`fleet members disagree on block ${number}: ${hashes.join(', ')}`);
      return { number, hash: hashes[0] ?? '' };
    },
    async catchUp(index) {
      const m = members[index]!;
      while (m.fed < history.length) await feed(m, history[m.fed]!);
    },
    async kill(index) {
      const m = members[index]!;
      m.alive = false;
      await procs[index]?.stop();
      procs[index] = undefined;
    },
    async restart(index) {
      const m = members[index]!;
      procs[index] = await spawnFleetAnvil(m.port, options.memberArgs?.(index));
      m.fed = 0;
      m.alive = true;
      await fleet.catchUp(index);
      const n = BigInt(history.length);
      const other = members.find((x) => x.alive && x !== m && x.fed === history.length);
      if (other && (await hashAt(m, n)) !== (await hashAt(other, n))) throw new Error(`restarted member ${index} does not match the fleet at block ${n}`);
    },
    async snapshot() {
      const live = members.filter((m) => m.alive);
      const ids = await Promise.all(live.map((m) => rpc(m.url, 'evm_snapshot')));
      const length = history.length;
      const fedAt = live.map((m) => m.fed);
      const nonceAt = nonce;
      return async () => {
        await Promise.all(live.map((m, i) => rpc(m.url, 'evm_revert', [ids[i]])));
        live.forEach((m, i) => (m.fed = fedAt[i]!));
        history.length = length;
        nonce = nonceAt;
        forkSalt++;
      };
    },
    blockHash: (index, n) => hashAt(members[index]!, n),
    async close() {
      await Promise.all(procs.map((p) => p?.stop()));
    },
  };
  let forkSalt = 0;
  return fleet;
}

// The data dir's disk fills up (issue 18): the real service (`tracehook start`, from source) on a
// small tmpfs data dir that a filler file then fills to the last byte. New work is refused with a
// clear error (JSON-RPC -32002 naming chain.sqlite; the management API's 507 naming the file)
// instead of a crash or an internal error; reads keep working; /readyz is 503 and says the disk is
// full; every transaction acknowledged before or during the fill is in the chain and delivered;
// and once the filler is deleted the service takes new work again by itself. Needs root (mount);
// skipped loudly where mounting is not permitted.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { startTestListener, type TestListener } from '../notify/testing/testListener.js';
import { apiGet, createAddressWebhook, rpc } from '../notify/testing/serviceCalls.js';

const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const mountPoint = mkdtempSync(join(tmpdir(), 'tracehook-diskfull-'));
/** Why the tmpfs could not be mounted, or null once it is. */
const unmountable = ((): string | null => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return null;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    return (error as Error).message.split('\n')[0]!;
  }
})();
if (unmountable) console.warn(`\n!!! SKIPPED: the disk-full faults need to mount a tmpfs (root): ${unmountable}\n`);

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: { file?: string } };
}

async function rpcAnswer(p: TracehookProcess, method: string, params: unknown[]): Promise<RpcAnswer> {
  const res = await fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as RpcAnswer;
}

const transfer = (n: number) => [{ from: SENDER, to: RECIPIENT, value: `0x${(1000 + n).toString(16)}` }];

/** Writes 64 KiB chunks until the disk refuses; returns the filler's path. */
function fillDisk(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 7);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  // The last bytes too, so not even a page is left.
  const tail = openSync(file, 'a');
  try {
    for (;;) writeSync(tail, Buffer.alloc(512, 7));
  } catch {
    // ENOSPC: full.
  } finally {
    closeSync(tail);
  }
  return file;
}

describe.skipIf(unmountable !== null)('the data dir\'s disk fills up (tmpfs, real service)', () => {
  let service: TracehookProcess | undefined;
  let listener: TestListener | undefined;
  afterAll(async () => {
    await service?.kill('SIGKILL');
    await listener?.close();
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('behavior: refuses writes with clear errors, serves reads, /readyz says why, loses nothing acknowledged, recovers when space returns', { timeout: 180_000 }, async () => {
    listener = await startTestListener(() => 200);
    service = await spawnTracehook({ dataDir: join(mountPoint, 'data') });
    const p = service;
    const webhookId = await createAddressWebhook(p, listener.url, [RECIPIENT]);
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) acknowledged.push((await rpc(p, 'eth_sendTransaction', transfer(acknowledged.length))) as string);

    const filler = fillDisk(mountPoint);
    // SQLite reuses WAL pages it already has, so a few writes may still fit; the first refusal is clear.
    let refusal: RpcAnswer['error'];
    for (let i = 0; i < 200 && !refusal; i++) {
      const answer = await rpcAnswer(p, 'eth_sendTransaction', transfer(acknowledged.length));
      if (answer.error) refusal = answer.error;
      else acknowledged.push(answer.result as string);
    }
    expect(refusal).toMatchObject({ code: -32002, data: { file: 'chain.sqlite' } });
    expect(refusal!.message).toMatch(/disk holding the data dir is full/);
    // A dev setter writes the chain too (small writes may still fit in spare pages for a while).
    let setterRefusal: RpcAnswer['error'];
    for (let i = 1; i <= 200 && !setterRefusal; i++) setterRefusal = (await rpcAnswer(p, 'anvil_setBalance', [`0x${i.toString(16).padStart(40, '0')}`, '0x1'])).error;
    expect(setterRefusal).toMatchObject({ code: -32002, data: { file: 'chain.sqlite' } });
    // The management API's writes: 507 naming the file (again, until the store's spare pages are used).
    let created: { status: number; body: string } | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${p.baseUrl}/api/create-webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': p.authToken },
        body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, addresses: [`0x${(i + 1).toString(16).padStart(40, '0')}`] }),
      });
      created = { status: res.status, body: await res.text() };
      if (res.status !== 200) break;
    }
    expect(created!.status, created!.body).toBe(507);
    expect(created!.body).toMatch(/service\.sqlite cannot grow/);
    // Reads still answer.
    const head = Number(await rpc(p, 'eth_blockNumber'));
    expect(head).toBeGreaterThanOrEqual(5);
    expect(BigInt((await rpc(p, 'eth_getBalance', [RECIPIENT, 'latest'])) as string)).toBeGreaterThan(0n);
    expect((await apiGet<{ data: unknown[] }>(p, `/api/webhook-events?webhook_id=${webhookId}`)).data.length).toBeGreaterThan(0);
    // /readyz says why.
    const notReady = await fetch(`${p.baseUrl}/readyz`);
    const notReadyBody = (await notReady.json()) as { checks: Record<string, string>; storage: { state: string; free_bytes: number } };
    expect(notReady.status).toBe(503);
    expect(notReadyBody.checks.storage).toBe('failing');
    expect(notReadyBody.storage.state).toBe('full');
    expect(p.child.exitCode).toBeNull();

    // Space returns: the service takes work again by itself.
    rmSync(filler);
    await expect.poll(async () => (await fetch(`${p.baseUrl}/readyz`)).status, { timeout: 10_000 }).toBe(200);
    for (let i = 0; i < 3; i++) acknowledged.push((await rpc(p, 'eth_sendTransaction', transfer(acknowledged.length))) as string);
    await createAddressWebhook(p, listener.url, ['0x00000000000000000000000000000000000000aa']);

    // Nothing acknowledged is lost: each is in the chain and reached the listener under one event id
    // (an attempt whose record met the full disk is sent again after its lease, under the same id).
    for (const hash of acknowledged) expect(await rpc(p, 'eth_getTransactionReceipt', [hash]), hash).not.toBeNull();
    const notes = () => listener!.requests.map((r) => JSON.parse(r.body) as { id: string; event: { activity: { hash: string }[] } });
    const delivered = () => notes().flatMap((n) => n.event.activity.map((a) => a.hash));
    await listener.waitFor(() => acknowledged.every((h) => delivered().includes(h)), 30_000);
    const idsByHash = new Map<string, Set<string>>();
    for (const n of notes()) for (const a of n.event.activity) idsByHash.set(a.hash, (idsByHash.get(a.hash) ?? new Set()).add(n.id));
    expect([...idsByHash].filter(([, ids]) => ids.size > 1)).toEqual([]);
    expect(p.logs()).not.toMatch(/uncaught|unhandled/i);
    console.log(
      `disk full (24 MiB tmpfs): ${acknowledged.length} transactions acknowledged (${acknowledged.length - 8} while filling), ` +
        `first refusal ${refusal!.code} naming ${refusal!.data?.file}, create-webhook ${created!.status}, /readyz 503 storage=full, ` +
        `recovered after the filler was deleted; lost=0`,
    );
  });
});

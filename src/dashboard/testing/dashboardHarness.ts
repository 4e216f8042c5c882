// What the dashboard's browser tests share: a real `tracehook start` process, a real local webhook
// listener, Debian's Chromium driven by playwright-core with a signed-in page, and helpers to send
// transactions, call the management API and save screenshots (to .screenshots/, git-ignored).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Abi, Hex } from 'viem';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';
import { startTestListener, type ListenerReply, type ReceivedRequest, type TestListener } from '../../notify/testing/testListener.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = join(import.meta.dirname, '..', '..', '..');
/** Where every browser test saves its screenshots (git-ignored; README, "Dashboard"). */
export const SHOTS_DIR = join(ROOT, '.screenshots');
export const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
export const ACCOUNT1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
export const ACCOUNT2 = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
export const LAPTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export interface DashboardHarness {
  service: TracehookProcess;
  listener: TestListener;
  browser: Browser;
  /** A page at laptop size, not signed in yet. */
  page: Page;
  dataDir: string;
  /** Script errors and Content-Security-Policy violations seen on any page of the harness. */
  pageErrors: string[];
  rpc(method: string, params: unknown[]): Promise<unknown>;
  /** Sends from the first dev account and waits for a successful receipt. */
  send(tx: Record<string, string>): Promise<{ hash: Hex; contractAddress: Hex | null }>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: { data?: unknown; message?: string } }>;
  /** A new browser context's page (its own cookies) at the given size, watched for errors. */
  newPage(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>;
  /** Signs `page` in through the sign-in form. */
  signIn(page?: Page): Promise<void>;
  shot(name: string, page?: Page): Promise<Buffer>;
  close(): Promise<void>;
}

/** What on the page reaches past the right edge of the window (page or box scrolled sideways); [] when nothing. */
export function cutOffAtRight(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('main td, main a, main button, main input, main select, main textarea, main pre')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).map((el) => el.tagName + ' ' + el.textContent.slice(0, 30))`);
}

export function contract(name: string): { abi: Abi; bytecode: Hex } {
  const built = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'contracts', 'build', `${name}.json`), 'utf8')) as { abi: Abi; bytecode: string };
  return { abi: built.abi, bytecode: (built.bytecode.startsWith('0x') ? built.bytecode : `0x${built.bytecode}`) as Hex };
}

/**
 * The pages as this checkout's web/ makes them: npm ci's prepare built them; rebuilt only when a
 * source is newer, so parallel test files starting services do not see dist/web half-written.
 */
function ensureWebBuilt(): void {
  const built = join(ROOT, 'dist', 'web', 'index.html');
  const newest = (dir: string): number => Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
  if (!existsSync(built) || statSync(built).mtimeMs < newest(join(ROOT, 'web'))) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(ROOT, 'web', 'vite.config.ts')], { cwd: ROOT, stdio: 'pipe' });
  }
}

export async function startDashboardHarness(
  options: { args?: string[]; respond?: (request: ReceivedRequest) => number | ListenerReply } = {},
): Promise<DashboardHarness> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does it)`);
  ensureWebBuilt();
  mkdirSync(SHOTS_DIR, { recursive: true });
  const listener = await startTestListener(options.respond ?? (() => ({ status: 200, body: '{"received":true}' })));
  const dataDir = mkdtempSync(join(tmpdir(), 'dash-browser-'));
  const service = await spawnTracehook({ dataDir, args: options.args });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const pageErrors: string[] = [];
  const contexts: BrowserContext[] = [];

  async function newPage(viewport = LAPTOP) {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    // Refused API calls the tests make on purpose log "Failed to load resource" and are left out.
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    return { context, page };
  }

  const { page } = await newPage();

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const res = await fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }

  return {
    service,
    listener,
    browser,
    page,
    dataDir,
    pageErrors,
    rpc,
    async send(tx) {
      const hash = (await rpc('eth_sendTransaction', [{ from: ACCOUNT0, gas: '0x7a1200', ...tx }])) as Hex;
      for (let i = 0; i < 100; i++) {
        const receipt = (await rpc('eth_getTransactionReceipt', [hash])) as { status: string; contractAddress: Hex | null } | null;
        if (receipt) {
          expect(receipt.status).toBe('0x1');
          return { hash, contractAddress: receipt.contractAddress };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no receipt for ${hash}`);
    },
    async api(method, path, body) {
      const res = await fetch(`${service.baseUrl}/api${path}`, {
        method,
        headers: { 'x-service-token': service.authToken, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as { data?: unknown; message?: string } };
    },
    newPage,
    async signIn(target = page) {
      await target.goto(`${service.baseUrl}/`);
      await target.getByLabel('Auth token').fill(service.authToken);
      await target.getByRole('button', { name: 'Sign in' }).click();
      await target.getByRole('heading', { name: 'Webhooks' }).waitFor();
    },
    shot: (name, target = page) => target.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true }),
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await service.kill('SIGTERM');
      await listener.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

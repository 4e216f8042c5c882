// The dashboard session over real HTTP on a real gateway: sign-in, the cookie's attributes, CSRF
// and Origin checks on changes, expiry, sign-out, and the static page with its headers.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../gateway/testing/startTestGateway.js';
import { CONTENT_SECURITY_POLICY } from './serveDashboard.js';

let gw: TestGateway;
let dir: string;
const TTL_MS = 1500;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dash-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title><script type="module" src="/assets/app-abc123.js"></script>');
  writeFileSync(join(dir, 'assets', 'app-abc123.js'), `${'console.log("the dashboard");\n'.repeat(200)}`);
  gw = await startTestGateway({ dashboard: { dir, sessionTtlMs: TTL_MS } });
});
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { ...(options.body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as { data?: Record<string, string>; message?: string; field?: string }) : undefined };
}

async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const r = await call('POST', '/api/session', { body: { token: gw.authToken }, headers: { origin: gw.url } });
  expect(r.status).toBe(200);
  const setCookie = r.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, csrf: r.json!.data!.csrf_token!, setCookie };
}

describe('dashboard sessions', () => {
  it('default: sign-in sets an HttpOnly SameSite=Strict cookie with an expiry; the session reads the API and, with its CSRF token and this Origin, changes things', async () => {
    const { cookie, csrf, setCookie } = await signIn();
    expect(setCookie).toMatch(/^tracehook_session=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=1$/);
    expect((await call('GET', '/api/keys', { headers: { cookie } })).status).toBe(200);
    const created = await call('POST', '/api/keys', { body: { name: 'from the dashboard' }, headers: { cookie, origin: gw.url, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' } });
    expect(created.status).toBe(201);
    expect(created.json!.data!.name).toBe('from the dashboard');
    const session = await call('GET', '/api/session', { headers: { cookie } });
    expect(session.json!.data!.csrf_token).toBe(csrf);
  });

  it('error: a wrong token is refused with 401 naming the field, and no cookie', async () => {
    const r = await call('POST', '/api/session', { body: { token: 'not-the-token' }, headers: { origin: gw.url } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ message: 'token: wrong auth token', field: 'token' });
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it('error: forged cross-site requests change nothing: no CSRF token, a wrong one, another Origin, no Origin, Sec-Fetch-Site cross-site, a cross-site sign-in', async () => {
    const { cookie, csrf } = await signIn();
    const before = (await gw.repo.list()).length;
    const attempts: [Record<string, string>, number, RegExp][] = [
      [{ cookie, origin: gw.url }, 403, /X-CSRF-Token/],
      [{ cookie, origin: gw.url, 'x-csrf-token': `${csrf}x` }, 403, /X-CSRF-Token/],
      [{ cookie, origin: 'http://evil.example', 'x-csrf-token': csrf }, 403, /Origin does not match/],
      [{ cookie, 'x-csrf-token': csrf }, 403, /without an Origin/],
      [{ cookie, origin: gw.url, 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' }, 403, /cross-site/],
    ];
    for (const [headers, status, message] of attempts) {
      const r = await call('POST', '/api/keys', { body: { name: 'forged' }, headers });
      expect({ status: r.status, message: r.json?.message }).toEqual({ status, message: expect.stringMatching(message) });
    }
    expect((await gw.repo.list()).length).toBe(before);
    const forgedSignIn = await call('POST', '/api/session', { body: { token: gw.authToken }, headers: { origin: 'http://evil.example' } });
    expect(forgedSignIn.status).toBe(403);
    expect(forgedSignIn.headers.get('set-cookie')).toBeNull();
    // The token header needs no CSRF token: browsers cannot send it cross-site without CORS.
    expect((await call('POST', '/api/keys', { body: { name: 'with the token' }, headers: { 'x-service-token': gw.authToken } })).status).toBe(201);
  });

  it('error: an expired session is refused with a message saying so; an unknown one too', async () => {
    const { cookie } = await signIn();
    await new Promise((r) => setTimeout(r, TTL_MS + 100));
    const r = await call('GET', '/api/keys', { headers: { cookie } });
    expect(r.status).toBe(401);
    expect(r.json!.message).toBe('Session expired: sign in again');
    expect((await call('GET', '/api/session', { headers: { cookie } })).json!.message).toBe('Session expired: sign in again');
    const unknown = await call('GET', '/api/keys', { headers: { cookie: 'tracehook_session=made-up' } });
    expect(unknown.status).toBe(401);
  });

  it('behavior: sign-out ends the session and clears the cookie; the old cookie no longer works', async () => {
    const { cookie, csrf } = await signIn();
    const out = await call('DELETE', '/api/session', { headers: { cookie, origin: gw.url, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^tracehook_session=; .*Max-Age=0$/);
    expect((await call('GET', '/api/keys', { headers: { cookie } })).status).toBe(401);
  });
});

describe('dashboard page', () => {
  it('default: / is the page with a strict CSP and no-cache; hashed assets are immutable for a year; ETag revalidation answers 304', async () => {
    const page = await fetch(`${gw.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const asset = await fetch(`${gw.url}/assets/app-abc123.js`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(asset.headers.get('vary')).toBe('Accept-Encoding');
    expect(await asset.text()).toBe('console.log("the dashboard");\n'.repeat(200));
    const plain = await new Promise<{ encoding?: string; length: number }>((resolve, reject) => {
      get(`${gw.url}/assets/app-abc123.js`, (res) => {
        let length = 0;
        res.on('data', (c: Buffer) => (length += c.length)).on('end', () => resolve({ encoding: res.headers['content-encoding'], length }));
      }).on('error', reject);
    });
    expect(plain).toEqual({ encoding: undefined, length: 'console.log("the dashboard");\n'.length * 200 });
    const again = await fetch(`${gw.url}/assets/app-abc123.js`, { headers: { 'if-none-match': asset.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${gw.url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${gw.url}/`, { method: 'POST' })).status).toBe(405);
  });

  it('behavior: JSON-RPC and the other routes are unchanged beside the page', async () => {
    const rpc = await fetch(`${gw.url}/v2/${gw.keys.free}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
    expect(rpc.status).toBe(200);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const other = await fetch(`${gw.url}/nothing-here`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: number } }).error.code).toBe(-32601);
    expect((await fetch(`${gw.url}/api/keys`)).status).toBe(401);
  });

  it('error: without a build, / says how to make one', async () => {
    const bare = await startTestGateway({ dashboard: { dir: join(dir, 'missing') } });
    try {
      const r = await fetch(`${bare.url}/`);
      expect(r.status).toBe(503);
      expect(await r.text()).toMatch(/npm run build/);
    } finally {
      await bare.close();
    }
  });
});

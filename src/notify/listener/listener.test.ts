import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { notificationHeaders } from '../deliver/signNotification.js';
import { createNodeListener, expressListener, fastifyListener, honoListener, verifySignature, verifyStandardWebhook, type ListenerOptions, type Notification } from './index.js';

const KEY = 'whsec_dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXk=';
const OTHER = 'whsec_b3RoZXIta2V5LW90aGVyLWtleS1vdGhlcg==';
// Odd spacing, escapes and non-ASCII: any re-serialisation would change these bytes.
const BODY = '{"webhookId":"wh_a",  "id":"whevt_1","createdAt":"2024-01-02T03:04:05.678Z","type":"ADDRESS_ACTIVITY","event":{"b":1,"a":"\\u00e9 é \u2028 😀","n":1.50}}';

function signed(body: string, key = KEY, nowMs = Date.now()): Record<string, string> {
  const h = notificationHeaders('whevt_1', Buffer.from(body), [key], nowMs, 'test');
  // fetch sets these itself (a second Content-Type would be merged into "a, b").
  delete (h as Record<string, string | undefined>)['Content-Length'];
  delete (h as Record<string, string | undefined>)['Content-Type'];
  return h;
}

describe('verifySignature', () => {
  const hex = createHmac('sha256', KEY).update(BODY, 'utf8').digest('hex');
  it('default: accepts the hex HMAC of the raw bytes, as bytes or string', () => {
    expect(verifySignature(BODY, hex, KEY)).toBe(true);
    expect(verifySignature(Buffer.from(BODY), hex.toUpperCase(), KEY)).toBe(true);
  });
  it('behavior: during a rotation any listed signature under any given key verifies', () => {
    const old = createHmac('sha256', OTHER).update(BODY).digest('hex');
    expect(verifySignature(BODY, `${hex},${old}`, OTHER)).toBe(true);
    expect(verifySignature(BODY, old, [KEY, OTHER])).toBe(true);
  });
  it('error: a re-serialised body, another key, or a missing header fails', () => {
    expect(verifySignature(JSON.stringify(JSON.parse(BODY)), hex, KEY)).toBe(false);
    expect(verifySignature(BODY, hex, OTHER)).toBe(false);
    expect(verifySignature(BODY, undefined, KEY)).toBe(false);
    expect(verifySignature(BODY, hex.slice(1), KEY)).toBe(false);
  });
  it('args: Standard Webhooks headers verify within the timestamp tolerance only', () => {
    const now = Date.now();
    const h = signed(BODY, KEY, now);
    expect(verifyStandardWebhook(BODY, h, KEY, { nowMs: now + 299_000 })).toBe(true);
    expect(verifyStandardWebhook(BODY, h, KEY, { nowMs: now + 301_000 })).toBe(false);
    expect(verifyStandardWebhook(BODY, { ...h, 'webhook-id': 'whevt_2' }, KEY, { nowMs: now })).toBe(false);
  });
});

type Start = (options: ListenerOptions) => Promise<{ url: string; close(): Promise<void> }>;

const closeServer = (server: Server) =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
const listenOn = async (server: Server, path: string) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, close: () => closeServer(server) };
};

const frameworks: Record<string, Start> = {
  'node:http': (options) => listenOn(createServer(createNodeListener(options)), '/'),
  express: (options) => {
    const app = express();
    // A JSON parser elsewhere in the app must not affect the webhook route.
    app.use('/api', express.json());
    app.post('/hooks/tracehook', expressListener(options));
    return listenOn(createServer(app), '/hooks/tracehook');
  },
  fastify: async (options) => {
    const app = Fastify();
    app.post('/api/echo', async (request) => request.body);
    await app.register(fastifyListener({ ...options, path: '/hooks/tracehook' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/hooks/tracehook`, close: () => app.close() };
  },
  hono: async (options) => {
    const app = new Hono();
    // Middleware that parses JSON first: the handler still sees the raw bytes.
    app.use('*', async (c, next) => {
      if (c.req.method === 'POST') await c.req.json().catch(() => undefined);
      await next();
    });
    app.post('/hooks/tracehook', honoListener(options));
    const server: ServerType = await new Promise((r) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => r(s));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/tracehook`, close: () => new Promise<void>((r) => server.close(() => r())) };
  },
};

for (const [name, start] of Object.entries(frameworks)) {
  describe(`listener on ${name}`, () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(async () => close?.());

    async function run(fail = false) {
      const received: Notification[] = [];
      const server = await start({
        signingKey: KEY,
        onNotification: (n) => {
          if (fail) throw new Error('db down');
          received.push(n);
        },
      });
      close = server.close;
      const post = async (body: string, headers: Record<string, string>) => {
        const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
        return res.status;
      };
      return { received, post };
    }

    it('default: a signed notification reaches the handler and is answered 200', async () => {
      const { received, post } = await run();
      expect(await post(BODY, signed(BODY))).toBe(200);
      expect(received).toEqual([JSON.parse(BODY)]);
    });

    it('error: missing signature 400, wrong signature 401, not a notification 400, handler failure 500', async () => {
      const { received, post } = await run();
      const noSig = signed(BODY);
      delete noSig['X-Service-Signature'];
      expect(await post(BODY, noSig)).toBe(400);
      expect(await post(BODY, signed(BODY, OTHER))).toBe(401);
      expect(await post(BODY.replace('"b":1', '"b":2'), signed(BODY))).toBe(401);
      const notNotification = '{"hello":"world"}';
      expect(await post(notNotification, signed(notNotification))).toBe(400);
      expect(received).toEqual([]);
      const failing = await run(true);
      expect(await failing.post(BODY, signed(BODY))).toBe(500);
    });
  });
}

describe('expressListener behind a global JSON parser', () => {
  it('error: fails loudly (500, so the event is retried) instead of verifying a re-serialised body', async () => {
    const app = express();
    app.use(express.json());
    app.post('/hook', expressListener({ signingKey: KEY, onNotification: () => undefined }));
    const server = await listenOn(createServer(app), '/hook');
    try {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...signed(BODY) }, body: BODY });
      expect(res.status).toBe(500);
    } finally {
      await server.close();
    }
  });
  it('behavior: with express.raw({ type: "application/json" }) its Buffer is used', async () => {
    const app = express();
    app.use(express.raw({ type: 'application/json' }));
    const got: string[] = [];
    app.post('/hook', expressListener({ signingKey: KEY, onNotification: (n) => void got.push(n.id) }));
    const server = await listenOn(createServer(app), '/hook');
    try {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...signed(BODY) }, body: BODY });
      expect([res.status, got]).toEqual([200, ['whevt_1']]);
    } finally {
      await server.close();
    }
  });
});

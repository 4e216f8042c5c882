// Hono adapter: `app.post('/webhook', honoListener({…}))`. Reads the raw bytes with
// `c.req.arrayBuffer()` (Hono caches them, so other middleware may still parse JSON). Uses
// node:crypto, so it needs Node (or a runtime with node:crypto compatibility).
import { DEFAULT_MAX_BODY_BYTES, handleNotification, type ListenerOptions } from './handleNotification.js';

/** The parts of Hono's Context the handler uses (Hono's Context satisfies it). */
export interface HonoLikeContext {
  req: { arrayBuffer(): Promise<ArrayBuffer>; header(): Record<string, string> };
}

export function honoListener<E = unknown>(options: ListenerOptions<E>): (c: HonoLikeContext) => Promise<Response> {
  return async (c) => {
    const headers = Object.fromEntries(Object.entries(c.req.header()).map(([k, v]) => [k.toLowerCase(), v]));
    const json = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'application/json' } });
    if (Number(headers['content-length']) > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) return json(413, JSON.stringify({ error: 'body too large' }));
    const raw = Buffer.from(await c.req.arrayBuffer());
    if (raw.length > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) return json(413, JSON.stringify({ error: 'body too large' }));
    const reply = await handleNotification(raw, headers, options);
    return json(reply.status, reply.body);
  };
}

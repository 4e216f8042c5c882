// A runnable webhook listener: verifies each Tracehook notification's signature on the raw body,
// drops duplicates by event id, and prints the events. Run it with
//   SIGNING_KEY=whsec_… npx tsx examples/listener/server.ts
// In your own project import from 'tracehook/listener' instead of the relative path below.
import { createServer } from 'node:http';
import { createNodeListener, type Notification } from '../../src/notify/listener/index.js';

const signingKeys = (process.env.SIGNING_KEY ?? '').split(',').filter(Boolean);
if (signingKeys.length === 0) {
  console.error('set SIGNING_KEY to the webhook signing key (comma-separate two keys during a rotation)');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
const path = process.env.WEBHOOK_PATH ?? '/webhook';

// Delivery is at-least-once: a retry or replay repeats the same event id. Remember recent ids.
const seen = new Set<string>();
function firstTime(id: string): boolean {
  if (seen.has(id)) return false;
  seen.add(id);
  if (seen.size > 10_000) seen.delete(seen.values().next().value!);
  return true;
}

const listener = createNodeListener({
  signingKey: signingKeys,
  async onNotification(notification: Notification) {
    if (!firstTime(notification.id)) return;
    // Do the real work here; throwing answers 500 and Tracehook retries the event later.
    console.log(JSON.stringify({ id: notification.id, webhookId: notification.webhookId, type: notification.type, createdAt: notification.createdAt, event: notification.event }));
  },
  onError: (error) => console.error('handler failed:', error),
});

const server = createServer((req, res) => {
  if (req.url?.split('?')[0] === path) return void listener(req, res);
  res.writeHead(404).end();
});
server.listen(port, host, () => {
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  console.log(`listening on http://${host}:${actualPort}${path}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));

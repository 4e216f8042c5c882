// Wake-ups between processes over PostgreSQL's LISTEN/NOTIFY: `send()` tells every process
// listening on the channel (this one included) that something changed; listeners re-read the store.
// A notification carries no data and may be lost while a connection is down, so listeners still
// look at the store on their own, less often; this only makes the common case fast.
import pg from 'pg';

export interface NotifyChannelLogger {
  warn(fields: object, message: string): void;
}

export interface NotifyChannelOptions {
  connectionString: string;
  /** Channel name (an SQL identifier); the schema's name is added so side-by-side schemas stay apart. */
  channel: string;
  schema?: string;
  logger: NotifyChannelLogger;
  /** First reconnect delay; doubles to 5 s. Default 250. */
  reconnectMs?: number;
}

export interface NotifyChannel {
  /** Calls `listener` on every notification until the returned function is called. */
  subscribe(listener: () => void): () => void;
  /** Notifies every listener of every process (fire and forget; failures are logged). */
  send(): void;
  close(): Promise<void>;
}

export async function createNotifyChannel(options: NotifyChannelOptions): Promise<NotifyChannel> {
  const channel = `${options.channel}_${options.schema ?? 'public'}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name: ${channel}`);
  const listeners = new Set<() => void>();
  let listenClient: pg.Client | undefined;
  let sendClient: pg.Client | undefined;
  let closed = false;
  let delayMs = options.reconnectMs ?? 250;
  let retry: NodeJS.Timeout | undefined;
  let sending: Promise<void> = Promise.resolve();
  let queued = false;

  const fire = () => listeners.forEach((l) => l());

  async function listen(): Promise<void> {
    const c = new pg.Client({ connectionString: options.connectionString, keepAlive: true });
    const lost = () => {
      if (listenClient !== c) return;
      listenClient = undefined;
      c.end().catch(() => undefined);
      if (closed) return;
      retry = setTimeout(() => void listen(), delayMs);
      delayMs = Math.min(delayMs * 2, 5000);
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', fire);
    listenClient = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      delayMs = options.reconnectMs ?? 250;
      // Whatever was sent while we were away is unknown: listeners look now.
      fire();
    } catch (error) {
      options.logger.warn({ channel, err: error }, 'listening for wake-ups failed; retrying');
      lost();
    }
  }

  await listen();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send() {
      // Sends run one at a time on one connection; wake-ups asked for while one waits are one.
      if (closed || queued) return;
      queued = true;
      const run = async () => {
        if (!sendClient) {
          const c = new pg.Client({ connectionString: options.connectionString, keepAlive: true });
          c.on('error', () => {
            if (sendClient === c) sendClient = undefined;
          });
          await c.connect();
          sendClient = c;
        }
        await sendClient.query(`NOTIFY ${channel}`);
      };
      sending = sending.then(() => {
        queued = false;
        return run().catch((error: unknown) => {
          sendClient?.end().catch(() => undefined);
          sendClient = undefined;
          options.logger.warn({ channel, err: error }, 'sending a wake-up failed');
        });
      });
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await sending;
      const c = listenClient;
      listenClient = undefined;
      await c?.end().catch(() => undefined);
      await sendClient?.end().catch(() => undefined);
      sendClient = undefined;
    },
  };
}

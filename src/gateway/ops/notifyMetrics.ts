// Prometheus series an operator of webhooks relies on (issue 18): delivery attempts by webhook type
// and outcome with their latency (told by the delivery worker, `onAttempt`), deliveries waiting for
// a retry and dead letters by type (sampled from the outbox every few seconds, since a gauge is read
// synchronously at a scrape), each network follower's head, cursor and lag, and the event loop's
// delay (perf_hooks' histogram, reset at each scrape so a scrape shows the interval since the last).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SqlDatabase } from '../../store/sql.js';
import { toNumber } from '../../store/sql.js';
import type { DeliveryAttemptReport } from '../../notify/deliver/deliveryWorker.js';
import type { ChainFollower } from '../../notify/follow/chainFollower.js';

/** What the gauges read of a follower (an elected one standing by has neither head nor cursor). */
type FollowerView = Pick<ChainFollower, 'network' | 'head' | 'cursor'>;
import type { MetricsRegistry } from './metricsRegistry.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface NotifyMetrics {
  /** The delivery worker's `onAttempt`. */
  attempt(report: DeliveryAttemptReport): void;
  /** Registers the series; starts sampling the outbox. Returns the function that stops sampling. */
  bind(registry: MetricsRegistry, sources: { db: SqlDatabase; followers: () => readonly FollowerView[]; sampleIntervalMs?: number }): () => void;
  /** Samples the outbox now (tests; bind does it on a timer). */
  sample(): Promise<void>;
}

export function createNotifyMetrics(): NotifyMetrics {
  const early: DeliveryAttemptReport[] = [];
  let record: ((r: DeliveryAttemptReport) => void) | undefined;
  let sampleNow: () => Promise<void> = async () => {};
  return {
    attempt(report) {
      if (record) record(report);
      else if (early.length < 10_000) early.push(report);
    },
    sample: () => sampleNow(),
    bind(registry, { db, followers, sampleIntervalMs = 5_000 }) {
      const attempts = registry.counter('tracehook_webhook_delivery_attempts_total', 'Webhook delivery attempts recorded, by webhook type and outcome (succeeded, retrying, failed: dead-lettered, stale: recorded after its lease passed).', ['type', 'outcome']);
      const latency = registry.histogram('tracehook_webhook_delivery_latency_seconds', 'Time of one webhook delivery attempt (connect to last byte of the answer), by webhook type.', ['type'], LATENCY_BUCKETS);
      // An attempt changes the outbox: sample again within a second (once, however many attempts).
      let soon: NodeJS.Timeout | undefined;
      record = (r) => {
        attempts.inc([r.type, r.outcome]);
        latency.observe([r.type], r.latencyMs / 1000);
        soon ??= setTimeout(() => {
          soon = undefined;
          sampleNow().catch(() => undefined);
        }, 1_000).unref();
      };
      early.splice(0).forEach(record);

      let outbox: { type: string; retrying: number; dead: number; waiting: number }[] = [];
      sampleNow = async () => {
        const rows = await db.query<{ type: string; status: string; first_attempted: unknown; n: unknown }>(
          `SELECT w.type AS type, d.status AS status, d.first_attempted AS first_attempted, COUNT(*) AS n
             FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.status <> 'succeeded'
            GROUP BY w.type, d.status, d.first_attempted`,
        );
        const byType = new Map<string, { type: string; retrying: number; dead: number; waiting: number }>();
        for (const r of rows) {
          const t = byType.get(r.type) ?? { type: r.type, retrying: 0, dead: 0, waiting: 0 };
          const n = toNumber(r.n);
          if (r.status === 'failed') t.dead += n;
          else if (toNumber(r.first_attempted)) t.retrying += n;
          else t.waiting += n;
          byType.set(r.type, t);
        }
        outbox = [...byType.values()];
      };
      registry.gauge('tracehook_webhook_deliveries_retry_pending', 'Deliveries whose first attempt failed and that wait for a retry, by webhook type (sampled every few seconds).', () => outbox.map((o) => ({ labels: { type: o.type }, value: o.retrying })));
      registry.gauge('tracehook_webhook_deliveries_first_attempt_pending', 'Deliveries not attempted yet, by webhook type (sampled every few seconds).', () => outbox.map((o) => ({ labels: { type: o.type }, value: o.waiting })));
      registry.gauge('tracehook_webhook_dead_letters', 'Deliveries that failed past the retry window (replayable), by webhook type (sampled every few seconds).', () => outbox.map((o) => ({ labels: { type: o.type }, value: o.dead })));

      const blockGauge = (pick: (f: FollowerView) => bigint | undefined) => () =>
        followers().flatMap((f) => {
          const v = pick(f);
          return v === undefined ? [] : [{ labels: { network: f.network }, value: Number(v) }];
        });
      registry.gauge('tracehook_follower_head_block', "The network's head as the webhook follower last saw it.", blockGauge((f) => f.head()?.number));
      registry.gauge('tracehook_follower_cursor_block', 'The last block whose events the webhook follower committed.', blockGauge((f) => f.cursor()?.number));
      registry.gauge('tracehook_follower_lag_blocks', 'Blocks between the head the follower last saw and its committed cursor.', blockGauge((f) => {
        const head = f.head();
        const cursor = f.cursor();
        return head && cursor ? (head.number > cursor.number ? head.number - cursor.number : 0n) : undefined;
      }));

      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      registry.gauge('tracehook_event_loop_delay_seconds', 'Event-loop delay since the previous scrape (perf_hooks, 10 ms resolution): p50, p99 and max.', () => {
        const out = loop.count === 0 ? [] : [
          { labels: { quantile: '0.5' }, value: loop.percentile(50) / 1e9 },
          { labels: { quantile: '0.99' }, value: loop.percentile(99) / 1e9 },
          { labels: { quantile: '1' }, value: loop.max / 1e9 },
        ];
        loop.reset();
        return out;
      });

      let stopped = false;
      const tick = () => {
        if (stopped) return;
        sampleNow().then(
          () => undefined,
          () => undefined, // a store briefly unavailable keeps the last sample
        ).finally(() => {
          if (!stopped) timer = setTimeout(tick, sampleIntervalMs).unref();
        });
      };
      let timer: NodeJS.Timeout | undefined = setTimeout(tick, 0).unref();
      return () => {
        stopped = true;
        clearTimeout(timer);
        clearTimeout(soon);
        loop.disable();
      };
    },
  };
}

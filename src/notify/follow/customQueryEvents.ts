// Custom (GRAPHQL) webhooks of one block. Their queries run in the query worker, within budget,
// before the follower opens its write transaction (so the transaction never waits on them); inside
// it, each result becomes a notification, and a query over its budget pauses its webhook with the
// reason instead, so one webhook can neither stop the follower nor be retried block after block.
import type { Hex } from '../../rpc/hex.js';
import type { SqlExecutor } from '../../store/sql.js';
import type { NotifyLogger } from '../notifyLogger.js';
import type { BlockData } from '../extract/blockData.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';
import { findActiveWebhooks } from '../webhooks/webhookSubscriptions.js';
import { createWebhookIds } from '../webhooks/webhookIds.js';
import { pauseForQueryBudget } from '../webhooks/queryPause.js';
import { compileCustomQuery, type CompileResult } from '../graphql/customQuery.js';
import type { CustomQueryRunner, QueryRunOutcome } from '../graphql/customQueryRunner.js';
import { DEFAULT_QUERY_LIMITS } from '../graphql/queryCost.js';
import type { BlockLoader } from '../graphql/blockNodes.js';
import { nextSequence } from './followerStore.js';

/** `event` of GRAPHQL (Custom) notifications. */
export interface CustomEvent {
  data: Record<string, unknown> | null;
  /** Increases by one per notification of the webhook (decimal string, as the hosted provider sends). */
  sequenceNumber: string;
  network: string;
  /** Present (true) only on the notification that retracts a block after a reorg. */
  removed?: true;
}

/** Compiled Custom queries by webhook, recompiled when the stored text changes. */
export interface CustomQueryCache {
  get(webhookId: string, query: string): CompileResult;
}

export function createCustomQueryCache(): CustomQueryCache {
  const cache = new Map<string, { text: string; result: CompileResult }>();
  return {
    get(webhookId, query) {
      const hit = cache.get(webhookId);
      if (hit && hit.text === query) return hit.result;
      const result = compileCustomQuery(query);
      cache.set(webhookId, { text: query, result });
      return result;
    },
  };
}

/** The ancestors (parent first) a query reaching `depth` levels of `parent` may read, from a small cache of recent blocks. */
export type AncestorLoader = (block: BlockData, depth: number) => Promise<BlockData[]>;

export function createAncestorLoader(loadBlock: BlockLoader, keep = DEFAULT_QUERY_LIMITS.maxParentDepth + 2): AncestorLoader {
  const recent = new Map<string, BlockData>();
  const remember = (block: BlockData) => {
    recent.delete(block.header.hash.toLowerCase());
    recent.set(block.header.hash.toLowerCase(), block);
    if (recent.size > keep) recent.delete(recent.keys().next().value!);
  };
  return async (block, depth) => {
    // The block itself is the next block's parent.
    remember(block);
    const out: BlockData[] = [];
    let child = block;
    while (out.length < depth && BigInt(child.header.number) > 0n) {
      const hash = child.header.parentHash.toLowerCase() as Hex;
      const parent = recent.get(hash) ?? (await loadBlock(hash));
      if (!parent) break;
      remember(parent);
      out.push(parent);
      child = parent;
    }
    return out;
  };
}

type CustomOutcome = QueryRunOutcome | { ok: false; invalid: string };

/** The Custom query runs of one block, shared by the phase before the transaction and the one inside it. */
export interface BlockQueries {
  readonly block: BlockData;
  /** Runs the queries of `webhooks` now (before the transaction). */
  prefetch(webhooks: readonly WebhookRecord[]): Promise<void>;
  /** The outcome for `webhook`: prefetched, or run now (a webhook created meanwhile). */
  outcome(webhook: WebhookRecord): Promise<CustomOutcome>;
}

export function createBlockQueries(options: { block: BlockData; runner: CustomQueryRunner; cache: CustomQueryCache; ancestors: AncestorLoader }): BlockQueries {
  const { block, runner, cache } = options;
  const runs = new Map<string, { text: string; outcome: Promise<CustomOutcome> }>();
  async function run(webhook: WebhookRecord): Promise<CustomOutcome> {
    const compiled = cache.get(webhook.id, webhook.graphqlQuery!);
    // Stored before the limits existed (or a schema change): never run, paused with the reason.
    if (!compiled.ok) return { ok: false, invalid: compiled.message };
    const ancestors = await options.ancestors(block, compiled.query.shape.parentDepth);
    return runner.run(block, ancestors, webhook.graphqlQuery!, compiled.query.variables);
  }
  const outcome = (webhook: WebhookRecord) => {
    const hit = runs.get(webhook.id);
    if (hit && hit.text === webhook.graphqlQuery) return hit.outcome;
    const started = run(webhook);
    runs.set(webhook.id, { text: webhook.graphqlQuery!, outcome: started });
    return started;
  };
  return {
    block,
    async prefetch(webhooks) {
      for (const webhook of [...webhooks].sort(byId)) if (webhook.graphqlQuery) await outcome(webhook);
    },
    outcome,
  };
}

const byId = (x: WebhookRecord, y: WebhookRecord) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
const ids = createWebhookIds();

/** Active Custom webhooks of the network that take part (`include`), by id. */
export async function customWebhooks(ex: SqlExecutor, network: string, include: (webhookId: string) => boolean): Promise<WebhookRecord[]> {
  return (await findActiveWebhooks(ex, network, 'GRAPHQL')).filter((w) => include(w.id) && w.graphqlQuery).sort(byId);
}

export interface CustomEventsInput {
  network: string;
  include: (webhookId: string) => boolean;
  queries: BlockQueries;
  nowMs: number;
  logger: NotifyLogger;
}

/** Notifications of the Custom webhooks for the block, in the follower's transaction; pauses those over budget. */
export async function customEvents(tx: SqlExecutor, input: CustomEventsInput): Promise<Array<{ webhookId: string; type: 'GRAPHQL'; event: CustomEvent }>> {
  const { block } = input.queries;
  const out: Array<{ webhookId: string; type: 'GRAPHQL'; event: CustomEvent }> = [];
  for (const webhook of await customWebhooks(tx, input.network, input.include)) {
    const result = await input.queries.outcome(webhook);
    if (!result.ok) {
      const detail =
        'invalid' in result
          ? `graphql_query no longer passes validation: ${result.invalid.replace(/^graphql_query /, '')}`
          : `graphql_query went over its budget on block ${BigInt(block.header.number)} (${block.header.hash}): ${result.reason}`;
      await pauseForQueryBudget(tx, { webhookId: webhook.id, detail, nowMs: input.nowMs, latencyMs: 'elapsedMs' in result ? result.elapsedMs : 0, attemptId: ids.attemptId() });
      input.logger.warn({ webhookId: webhook.id, block: block.header.number, reason: detail }, 'Custom webhook paused: its query went over its budget');
      continue;
    }
    if (result.errors.length) input.logger.warn({ webhookId: webhook.id, block: block.header.number, errors: result.errors }, 'Custom webhook query reported errors');
    if (result.data === null || (result.empty && webhook.skipEmptyMessages)) continue;
    const sequence = await nextSequence(tx, input.network, webhook.id, input.nowMs);
    out.push({ webhookId: webhook.id, type: 'GRAPHQL', event: { data: result.data, sequenceNumber: sequence.toString(), network: input.network } });
  }
  return out;
}

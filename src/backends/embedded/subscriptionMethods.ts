// eth_subscribe / eth_unsubscribe over the chain's SubscriptionHub: `newHeads` (the header object),
// `logs` (address/topics filter, `removed: true` for logs of blocks that left the chain) and
// `newPendingTransactions` (hashes). They need a connection that takes notifications (the
// gateway's WebSocket endpoint, RpcContext.connection), which also bounds subscriptions per
// connection and per key and delivers in order after eth_subscribe's own answer.
import type { SubscriptionEvent, SubscriptionTopic } from '../../engine/chain/subscriptionHub.js';
import { InvalidParamsError, MethodNotFoundError } from '../../rpc/errors.js';
import { bytesToHex } from '../../rpc/hex.js';
import { LogFilterObject } from '../../rpc/schema/eth.js';
import type { subscriptionSchema } from '../../rpc/schema/subscription.js';
import type { ChainFilters } from './chainFilters.js';
import { addressTopicsOf } from './logFilterCriteria.js';
import type { HandlersFor, RpcContext, RpcConnection } from './methodTable.js';
import { logEntryToRpc } from './rpcLog.js';

export const SUBSCRIPTION_TYPES = ['newHeads', 'logs', 'newPendingTransactions'] as const;

function connectionOf(ctx: RpcContext, method: string): RpcConnection {
  if (!ctx.connection) {
    // geth's answer over HTTP; the message says where subscriptions are served.
    throw new MethodNotFoundError(method, { message: `${method}: notifications not supported over HTTP; connect with WebSocket to ws://…/v2/<API_KEY>` });
  }
  return ctx.connection;
}

/** The topic of `eth_subscribe(type, options)`; InvalidParamsError naming an unknown type or a bad filter. */
export function subscriptionTopicOf(type: string, options: unknown): SubscriptionTopic {
  switch (type) {
    case 'newHeads':
    case 'newPendingTransactions':
      // geth ignores options of these; a full-transactions flag is not offered (anvil has none).
      return { kind: type };
    case 'logs': {
      const parsed = LogFilterObject.safeParse(options ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
        throw new InvalidParamsError(`eth_subscribe: invalid logs filter (argument 1, options): ${issue?.message ?? 'invalid'}${at}`);
      }
      const { addresses, topics } = addressTopicsOf(parsed.data);
      return { kind: 'logs', criteria: { addresses, topics } };
    }
    default:
      throw new InvalidParamsError(`eth_subscribe: invalid argument 0 (subscriptionType): unknown subscription type ${JSON.stringify(type.slice(0, 100))}; supported: ${SUBSCRIPTION_TYPES.join(', ')}`);
  }
}

/** The notification's `result` for one hub event. */
export function subscriptionResultOf(event: SubscriptionEvent): unknown {
  if (event.kind === 'head') return event.header;
  if (event.kind === 'pending') return bytesToHex(event.hash);
  return { ...logEntryToRpc(event.log), removed: event.log.removed };
}

export function createSubscriptionHandlers(filters: Pick<ChainFilters, 'hub'>): HandlersFor<typeof subscriptionSchema> {
  const { hub } = filters;
  return {
    eth_subscribe([type, options], ctx) {
      const connection = connectionOf(ctx, 'eth_subscribe');
      const topic = subscriptionTopicOf(type, options);
      let stop: (() => void) | undefined;
      const subscription = connection.subscribe(() => stop?.());
      try {
        stop = hub.subscribe(topic, (event) => subscription.notify(subscriptionResultOf(event)));
      } catch (error) {
        connection.unsubscribe(subscription.id);
        throw error;
      }
      return subscription.id;
    },
    eth_unsubscribe([id], ctx) {
      return connectionOf(ctx, 'eth_unsubscribe').unsubscribe(id);
    },
  };
}

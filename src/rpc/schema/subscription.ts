// Runtime schemas of eth_subscribe / eth_unsubscribe (geth's names and shapes). The subscription
// type is checked by the handler, so an unknown one is answered -32602 naming it.
import { z } from 'zod';
import { defineMethod, optionalParam, param } from './defineMethod.js';

/** A subscription id: hex, at most 32 bytes (geth's are 16). */
export const SubscriptionId = z
  .string({ error: 'expected a subscription id (hex string)' })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex subscription id' })
  .transform((s) => s.toLowerCase());

export const subscriptionSchema = {
  eth_subscribe: defineMethod(param('subscriptionType', z.string({ error: 'expected a subscription type (newHeads, logs or newPendingTransactions)' }).max(100)), optionalParam('options', z.unknown())),
  eth_unsubscribe: defineMethod(param('subscriptionId', SubscriptionId)),
} as const;

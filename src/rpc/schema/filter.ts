// Runtime schemas of the polled-filter methods (eth_newFilter and friends), geth's names and shapes.
import { z } from 'zod';
import { defineMethod, param } from './defineMethod.js';
import { LogFilterObject } from './eth.js';

/** A filter id: hex, at most 32 bytes (geth's and anvil's ids are 16 bytes). */
export const FilterId = z
  .string({ error: 'expected a filter id (hex string)' })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex filter id' })
  .transform((s) => s.toLowerCase());

export const filterSchema = {
  eth_newFilter: defineMethod(param('filter', LogFilterObject)),
  eth_newBlockFilter: defineMethod(),
  eth_newPendingTransactionFilter: defineMethod(),
  eth_getFilterChanges: defineMethod(param('filterId', FilterId)),
  eth_getFilterLogs: defineMethod(param('filterId', FilterId)),
  eth_uninstallFilter: defineMethod(param('filterId', FilterId)),
} as const;

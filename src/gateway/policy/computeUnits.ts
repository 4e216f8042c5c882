// Compute-unit cost of each JSON-RPC method: what a call takes from its key's per-second budget
// and adds to its daily usage. Defaults are modelled on the reference provider's published costs.
import { createMethodRules } from './methodPattern.js';

/** Cost per method (exact name or `prefix*`). Unlisted methods cost DEFAULT_METHOD_COST. */
export const DEFAULT_METHOD_COSTS: Readonly<Record<string, number>> = {
  // Free metadata (clients call these constantly).
  eth_chainId: 0,
  net_version: 0,
  net_listening: 0,
  web3_clientVersion: 0,
  eth_syncing: 0,
  eth_protocolVersion: 0,
  // Cheap reads.
  eth_blockNumber: 10,
  eth_feeHistory: 10,
  eth_maxPriorityFeePerGas: 10,
  web3_sha3: 10,
  eth_getTransactionReceipt: 15,
  eth_getBlockByNumber: 16,
  eth_getStorageAt: 17,
  eth_getTransactionByHash: 17,
  eth_gasPrice: 19,
  eth_getBalance: 19,
  eth_getBlockByHash: 21,
  eth_getCode: 26,
  eth_getTransactionCount: 26,
  eth_call: 26,
  // Heavier reads and writes.
  eth_getBlockReceipts: 50,
  eth_getLogs: 75,
  eth_estimateGas: 87,
  eth_sendRawTransaction: 250,
  // Tracing.
  trace_get: 17,
  trace_call: 40,
  trace_transaction: 40,
  debug_traceCall: 40,
  debug_traceTransaction: 40,
  trace_block: 50,
  trace_filter: 75,
  trace_rawTransaction: 75,
  trace_callMany: 80,
  'trace_replay*': 80,
  'debug_traceBlock*': 80,
};

export const DEFAULT_METHOD_COST = 20;

/**
 * Parsing a body costs main-thread time whatever it holds, so its size is charged too: this many
 * bytes are free (every ordinary request and most batches), each KiB above costs BODY_CU_PER_KIB.
 */
export const DEFAULT_BODY_FREE_BYTES = 16 * 1024;
export const DEFAULT_BODY_CU_PER_KIB = 1;
/**
 * Parse time grows with the number of values more than with bytes (a 5 MiB body of empty arrays
 * takes half a second, one of long strings a few ms), so values are charged too: this many are
 * free (a batch of 80 eth_calls), then 1 CU per BODY_VALUES_PER_CU.
 */
export const DEFAULT_BODY_FREE_VALUES = 1000;
export const DEFAULT_BODY_VALUES_PER_CU = 50;

export interface CostTableOptions {
  /** Merged over DEFAULT_METHOD_COSTS. */
  costs?: Readonly<Record<string, number>>;
  defaultCost?: number;
  /** Body bytes that cost nothing (default DEFAULT_BODY_FREE_BYTES). */
  bodyFreeBytes?: number;
  /** Compute units per KiB of body above the free bytes (default DEFAULT_BODY_CU_PER_KIB; 0 for none). */
  bodyCuPerKiB?: number;
  /** JSON values of a body that cost nothing (default DEFAULT_BODY_FREE_VALUES). */
  bodyFreeValues?: number;
  /** Values per compute unit above the free ones (default DEFAULT_BODY_VALUES_PER_CU). */
  bodyValuesPerCu?: number;
}

export interface CostTable {
  cost(method: string): number;
  /** Whether the method is named in the table (exactly or by pattern). */
  lists(method: string): boolean;
  /** Compute units of receiving and parsing a body of this many bytes (whole units, rounded up). */
  bodyCost(bytes: number): number;
  /** Compute units of parsing this many JSON values (as counted by framing/scanJsonShape). */
  valuesCost(values: number): number;
}

export function createCostTable(options: CostTableOptions = {}): CostTable {
  const merged = { ...DEFAULT_METHOD_COSTS, ...options.costs };
  for (const [method, cost] of Object.entries(merged)) {
    if (!Number.isFinite(cost) || cost < 0) throw new RangeError(`compute-unit cost of ${method} must be a non-negative number`);
  }
  const rules = createMethodRules(merged);
  const fallback = options.defaultCost ?? DEFAULT_METHOD_COST;
  const freeBytes = options.bodyFreeBytes ?? DEFAULT_BODY_FREE_BYTES;
  const perKiB = options.bodyCuPerKiB ?? DEFAULT_BODY_CU_PER_KIB;
  if (!(freeBytes >= 0) || !(perKiB >= 0)) throw new RangeError('bodyFreeBytes and bodyCuPerKiB must be non-negative numbers');
  const freeValues = options.bodyFreeValues ?? DEFAULT_BODY_FREE_VALUES;
  const valuesPerCu = options.bodyValuesPerCu ?? DEFAULT_BODY_VALUES_PER_CU;
  if (!(freeValues >= 0) || !(valuesPerCu > 0)) throw new RangeError('bodyFreeValues must be non-negative and bodyValuesPerCu positive');
  return {
    cost: (method) => rules.get(method) ?? fallback,
    lists: (method) => rules.get(method) !== undefined,
    bodyCost: (bytes) => (bytes <= freeBytes ? 0 : Math.ceil(((bytes - freeBytes) / 1024) * perKiB)),
    valuesCost: (values) => (values <= freeValues ? 0 : Math.ceil((values - freeValues) / valuesPerCu)),
  };
}

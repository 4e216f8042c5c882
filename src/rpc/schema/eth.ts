// Runtime schemas of the eth_* methods the embedded chain serves (geth/anvil parameter names and
// shapes). Request objects decode to bigint quantities, byte arrays and lowercase hex addresses.
import { z } from 'zod';
import { hexToBigInt } from '../hex.js';
import { defineMethod, optionalParam, param } from './defineMethod.js';
import { fastAddress, fastData, fastQuantity, withFastPath } from './fastPath.js';
import { Address, BlockNumberOrHash, BlockNumberOrTag, Data, Hash32, Quantity, StorageSlot } from './primitives.js';

/** A 1..32-byte hex number that may carry leading zeros (signature parts, storage words). */
const Word = z
  .string({ error: 'expected a hex string of at most 32 bytes' })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex string of at most 32 bytes' })
  .transform(hexToBigInt);

export const AccessList = z.array(z.object({ address: Address, storageKeys: z.array(Hash32) }));

export const AuthorizationList = z.array(
  z.object({ chainId: Quantity, address: Address, nonce: Quantity, yParity: Quantity, r: Word, s: Word }),
);

/** A transaction request (eth_call, eth_estimateGas, eth_sendTransaction). `input` wins over `data`. */
const TransactionRequestSchema = z
  .object({
    from: Address.optional(),
    to: Address.nullable().optional(),
    gas: Quantity.optional(),
    gasPrice: Quantity.optional(),
    maxFeePerGas: Quantity.optional(),
    maxPriorityFeePerGas: Quantity.optional(),
    value: Quantity.optional(),
    data: Data.optional(),
    input: Data.optional(),
    nonce: Quantity.optional(),
    accessList: AccessList.optional(),
    authorizationList: AuthorizationList.optional(),
    type: Quantity.optional(),
    chainId: Quantity.optional(),
  })
  .refine((r) => !(r.data && r.input && Buffer.compare(Buffer.from(r.data), Buffer.from(r.input)) !== 0), {
    error: 'both "data" and "input" are set and not equal; use "input"',
  });
type TransactionRequestOutput = z.output<typeof TransactionRequestSchema>;

/** A plain field of a transaction request decoded as its schema does (fastPath.ts); undefined if not plain or not valid. */
function fastRequestField(key: string, value: unknown): unknown {
  switch (key) {
    case 'from':
      return fastAddress(value);
    case 'to':
      return value === null ? null : fastAddress(value);
    case 'gas':
    case 'gasPrice':
    case 'maxFeePerGas':
    case 'maxPriorityFeePerGas':
    case 'value':
    case 'nonce':
    case 'type':
    case 'chainId':
      return fastQuantity(value);
    case 'data':
    case 'input':
      return fastData(value);
    default:
      return undefined;
  }
}

/**
 * The fast path of a transaction request: an object of plain fields only (no access or
 * authorization list, no unknown key), each valid; anything else is the schema's.
 */
function fastTransactionRequest(value: unknown): TransactionRequestOutput | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const decoded = fastRequestField(key, (value as Record<string, unknown>)[key]);
    if (decoded === undefined) return undefined;
    out[key] = decoded;
  }
  const { data, input } = out as { data?: Uint8Array; input?: Uint8Array };
  if (data && input && Buffer.compare(data, input) !== 0) return undefined;
  return out as TransactionRequestOutput;
}

export const TransactionRequestObject = withFastPath(TransactionRequestSchema, fastTransactionRequest);
export type TransactionRequestObject = TransactionRequestOutput;

const StorageMap = z.record(z.string(), Word).transform((map, ctx) => {
  const out = new Map<bigint, bigint>();
  for (const [key, value] of Object.entries(map)) {
    const slot = StorageSlot.safeParse(key);
    if (!slot.success) {
      ctx.addIssue({ code: 'custom', message: `invalid storage slot ${key}` });
      return z.NEVER;
    }
    out.set(slot.data, value);
  }
  return out;
});

export const AccountOverride = z.object({
  balance: Quantity.optional(),
  nonce: Quantity.optional(),
  code: Data.optional(),
  state: StorageMap.optional(),
  stateDiff: StorageMap.optional(),
});

/** geth's `stateOverride` set: address → account override. */
export const StateOverrideSet = z.record(z.string(), AccountOverride).transform((set, ctx) => {
  const out = new Map<string, z.output<typeof AccountOverride>>();
  for (const [key, value] of Object.entries(set)) {
    const address = Address.safeParse(key);
    if (!address.success) {
      ctx.addIssue({ code: 'custom', message: `invalid address ${key}` });
      return z.NEVER;
    }
    if (value.state && value.stateDiff) {
      ctx.addIssue({ code: 'custom', message: `account ${key} has both 'state' and 'stateDiff'` });
      return z.NEVER;
    }
    out.set(address.data, value);
  }
  return out;
});

const TopicEntry = z.union([Hash32, z.null(), z.array(Hash32.nullable())], { error: 'expected a topic hash, null, or an array of topic hashes' });

/** eth_getLogs filter: `blockHash`, or a `fromBlock`/`toBlock` range (default latest). */
export const LogFilterObject = z
  .object({
    fromBlock: BlockNumberOrTag.optional(),
    toBlock: BlockNumberOrTag.optional(),
    blockHash: Hash32.optional(),
    address: z.union([Address, z.array(Address)]).optional(),
    topics: z.array(TopicEntry).max(4, { error: 'at most 4 topic positions' }).optional(),
  })
  .refine((f) => !(f.blockHash && (f.fromBlock || f.toBlock)), { error: 'cannot specify both blockHash and fromBlock/toBlock' });

/** A block count given as a hex quantity or a plain JSON number (viem and ethers differ). */
const BlockCount = z.union([Quantity, z.number().int().nonnegative().transform(BigInt)], { error: 'expected a block count' });

export const ethSchema = {
  eth_chainId: defineMethod(),
  eth_blockNumber: defineMethod(),
  eth_accounts: defineMethod(),
  eth_coinbase: defineMethod(),
  eth_syncing: defineMethod(),
  eth_gasPrice: defineMethod(),
  eth_maxPriorityFeePerGas: defineMethod(),
  eth_getBalance: defineMethod(param('address', Address), optionalParam('block', BlockNumberOrHash)),
  eth_getCode: defineMethod(param('address', Address), optionalParam('block', BlockNumberOrHash)),
  eth_getTransactionCount: defineMethod(param('address', Address), optionalParam('block', BlockNumberOrHash)),
  eth_getStorageAt: defineMethod(param('address', Address), param('slot', StorageSlot), optionalParam('block', BlockNumberOrHash)),
  eth_getProof: defineMethod(param('address', Address), param('storageKeys', z.array(StorageSlot)), optionalParam('block', BlockNumberOrHash)),
  eth_call: defineMethod(param('transaction', TransactionRequestObject), optionalParam('block', BlockNumberOrHash), optionalParam('stateOverrides', StateOverrideSet)),
  eth_estimateGas: defineMethod(param('transaction', TransactionRequestObject), optionalParam('block', BlockNumberOrHash), optionalParam('stateOverrides', StateOverrideSet)),
  eth_feeHistory: defineMethod(param('blockCount', BlockCount), param('newestBlock', BlockNumberOrTag), optionalParam('rewardPercentiles', z.array(z.number()))),
  eth_sendRawTransaction: defineMethod(param('transaction', Data)),
  eth_sendTransaction: defineMethod(param('transaction', TransactionRequestObject)),
  eth_getTransactionByHash: defineMethod(param('hash', Hash32)),
  eth_getTransactionReceipt: defineMethod(param('hash', Hash32)),
  eth_getTransactionByBlockNumberAndIndex: defineMethod(param('block', BlockNumberOrTag), param('index', Quantity)),
  eth_getTransactionByBlockHashAndIndex: defineMethod(param('blockHash', Hash32), param('index', Quantity)),
  eth_getBlockByNumber: defineMethod(param('block', BlockNumberOrTag), optionalParam('fullTransactions', z.boolean())),
  eth_getBlockByHash: defineMethod(param('blockHash', Hash32), optionalParam('fullTransactions', z.boolean())),
  eth_getBlockTransactionCountByNumber: defineMethod(param('block', BlockNumberOrTag)),
  eth_getBlockTransactionCountByHash: defineMethod(param('blockHash', Hash32)),
  eth_getBlockReceipts: defineMethod(param('block', BlockNumberOrHash)),
  eth_getLogs: defineMethod(param('filter', LogFilterObject)),
  eth_createAccessList: defineMethod(param('transaction', TransactionRequestObject), optionalParam('block', BlockNumberOrHash)),
  eth_blobBaseFee: defineMethod(),
} as const;

// The GraphQL schema of Custom webhooks: one block with its transactions, logs and call frames
// (`callTracerTraces`) as nested types, filters on each list, in the hosted provider's shape
// (itself modelled on EIP-1767, geth's GraphQL API). Resolvers read a BlockNode and never the chain,
// except `parent`, which asks the context's block loader. Every resolver reports to the context's
// result meter, if any (customQuery.ts bounds a result's size with it).
import {
  defaultFieldResolver,
  getNullableType,
  isListType,
  isNonNullType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  type GraphQLNullableType,
} from 'graphql';
import type { Hex } from '../../rpc/hex.js';
import type { BlockData } from '../extract/blockData.js';
import { AddressScalar, BigIntScalar, Bytes32Scalar, BytesScalar, LongScalar } from './scalars.js';
import {
  compileAddressCriteria,
  compileLogFilter,
  createBlockNode,
  type AddressCriteria,
  type BlockNode,
  type GraphqlContext,
  type LogFilter,
  type LogNode,
  type TraceNode,
  type TransactionNode,
} from './blockNodes.js';

const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
/** `[T!]`: lists never hold nulls. */
const listOf = <T extends GraphQLNullableType>(type: T) => new GraphQLList(new GraphQLNonNull(type));

interface AccountNode {
  address: Hex;
}
const account = (address: Hex | null | undefined): AccountNode | null => (address ? { address } : null);

/**
 * Wraps each resolver so the context's meter sees every resolved value. Once the meter reports the
 * result too large, lists resolve empty and back-references null, so execution winds down at once
 * instead of walking the rest of the block (the result is refused anyway).
 */
function metered<TSource>(fields: GraphQLFieldConfigMap<TSource, GraphqlContext>): GraphQLFieldConfigMap<TSource, GraphqlContext> {
  const out: GraphQLFieldConfigMap<TSource, GraphqlContext> = {};
  for (const [name, config] of Object.entries(fields)) {
    const resolve = (config.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<TSource, GraphqlContext>;
    // What a field resolves to once the result is too large: no resolver runs, so no list is walked.
    const nullable = !isNonNullType(config.type);
    const stopped = isListType(getNullableType(config.type)) ? [] : nullable ? null : undefined;
    const settle = (value: unknown, ctx: GraphqlContext): unknown => {
      ctx.meter?.add(name, value);
      return value;
    };
    out[name] = {
      ...config,
      resolve: (source, args, ctx, info) => {
        if (ctx.meter?.exceeded && stopped !== undefined) return stopped;
        const value = resolve(source, args, ctx, info);
        return value instanceof Promise ? value.then((v) => settle(v, ctx)) : settle(value, ctx);
      },
    };
  }
  return out;
}

const AccountType = new GraphQLObjectType<AccountNode>({
  name: 'Account',
  description: 'An account (EOA or contract) by address.',
  fields: () => metered({ address: { type: nonNull(AddressScalar) } }),
});

const AddressCriteriaInput = new GraphQLInputObjectType({
  name: 'AddressCriteria',
  description: 'Matches when `from` (if non-empty) contains the sender and `to` (if non-empty) contains the recipient.',
  fields: { from: { type: new GraphQLList(nonNull(AddressScalar)) }, to: { type: new GraphQLList(nonNull(AddressScalar)) } },
});

const TransactionsFilterInput = new GraphQLInputObjectType({
  name: 'TransactionsFilterCriteria',
  description: 'A transaction is kept when any entry of `addresses` matches (no entries: every transaction).',
  fields: { addresses: { type: new GraphQLList(nonNull(AddressCriteriaInput)) } },
});

const CallTracerTracesFilterInput = new GraphQLInputObjectType({
  name: 'CallTracerTracesFilterCriteria',
  description: 'A call frame is kept when any entry of `addresses` matches (no entries: every frame).',
  fields: { addresses: { type: new GraphQLList(nonNull(AddressCriteriaInput)) } },
});

const LogsFilterInput = new GraphQLInputObjectType({
  name: 'BlockLogsFilterCriteria',
  description: 'eth_getLogs semantics: any of `addresses`; per topic position any listed value ([] = anything).',
  fields: {
    addresses: { type: new GraphQLList(nonNull(AddressScalar)) },
    topics: { type: new GraphQLList(nonNull(new GraphQLList(nonNull(Bytes32Scalar)))) },
  },
});

const AccessTupleType = new GraphQLObjectType<{ address: Hex; storageKeys: Hex[] }>({
  name: 'AccessTuple',
  fields: () => metered({ address: { type: nonNull(AddressScalar) }, storageKeys: { type: nonNull(listOf(Bytes32Scalar)) } }),
});

const tx = (node: TransactionNode) => node.block.data.transactions[node.index]!;
const receipt = (node: TransactionNode) => node.block.data.receipts[node.index]!;

const LogType: GraphQLObjectType<LogNode, GraphqlContext> = new GraphQLObjectType<LogNode, GraphqlContext>({
  name: 'Log',
  fields: () => metered({
    index: { type: nonNull(LongScalar), description: 'Position of the log in the block.', resolve: (n) => n.log.logIndex },
    account: { type: nonNull(AccountType), description: 'The contract that emitted the log.', resolve: (n) => account(n.log.address) },
    topics: { type: nonNull(listOf(Bytes32Scalar)), resolve: (n) => n.log.topics },
    data: { type: nonNull(BytesScalar), resolve: (n) => n.log.data },
    transaction: { type: nonNull(TransactionType), resolve: (n): TransactionNode => ({ block: n.block, index: n.txIndex }) },
  }),
});

const TransactionType: GraphQLObjectType<TransactionNode, GraphqlContext> = new GraphQLObjectType<TransactionNode, GraphqlContext>({
  name: 'Transaction',
  fields: () => metered({
    hash: { type: nonNull(Bytes32Scalar), resolve: (n) => tx(n).hash },
    nonce: { type: nonNull(LongScalar), resolve: (n) => tx(n).nonce },
    index: { type: LongScalar, resolve: (n) => n.index },
    from: { type: nonNull(AccountType), resolve: (n) => account(tx(n).from) },
    to: { type: AccountType, description: 'Null for contract creation.', resolve: (n) => account(tx(n).to) },
    value: { type: nonNull(BigIntScalar), resolve: (n) => tx(n).value },
    gasPrice: { type: nonNull(BigIntScalar), resolve: (n) => tx(n).gasPrice ?? receipt(n).effectiveGasPrice },
    maxFeePerGas: { type: BigIntScalar, resolve: (n) => tx(n).maxFeePerGas ?? null },
    maxPriorityFeePerGas: { type: BigIntScalar, resolve: (n) => tx(n).maxPriorityFeePerGas ?? null },
    gas: { type: nonNull(LongScalar), resolve: (n) => tx(n).gas },
    inputData: { type: nonNull(BytesScalar), resolve: (n) => tx(n).input },
    block: { type: BlockType, resolve: (n) => n.block },
    status: { type: LongScalar, description: '1 success, 0 failure.', resolve: (n) => receipt(n).status },
    gasUsed: { type: LongScalar, resolve: (n) => receipt(n).gasUsed },
    cumulativeGasUsed: { type: LongScalar, resolve: (n) => receipt(n).cumulativeGasUsed },
    effectiveGasPrice: { type: BigIntScalar, resolve: (n) => receipt(n).effectiveGasPrice },
    createdContract: { type: AccountType, resolve: (n) => account(receipt(n).contractAddress) },
    logs: {
      type: listOf(LogType),
      resolve: (n) => n.block.logsByTx[n.index] ?? [],
    },
    r: { type: BigIntScalar, resolve: (n) => tx(n).r ?? null },
    s: { type: BigIntScalar, resolve: (n) => tx(n).s ?? null },
    v: { type: BigIntScalar, resolve: (n) => tx(n).v ?? tx(n).yParity ?? null },
    type: { type: LongScalar, resolve: (n) => tx(n).type },
    accessList: { type: listOf(AccessTupleType), resolve: (n) => tx(n).accessList ?? null },
  }),
});

const CallTracerTraceType: GraphQLObjectType<TraceNode, GraphqlContext> = new GraphQLObjectType<TraceNode, GraphqlContext>({
  name: 'CallTracerTrace',
  description: "One call frame of geth's callTracer (the top frame has an empty traceAddressPath).",
  fields: () => metered({
    type: { type: nonNull(GraphQLString), description: 'CALL, STATICCALL, DELEGATECALL, CALLCODE, CREATE, CREATE2 or SELFDESTRUCT.', resolve: (n) => n.frame.type },
    from: { type: nonNull(AccountType), resolve: (n) => account(n.frame.from) },
    to: { type: AccountType, resolve: (n) => account(n.frame.to) },
    value: { type: BigIntScalar, resolve: (n) => n.frame.value ?? null },
    gas: { type: BigIntScalar, resolve: (n) => n.frame.gas ?? null },
    gasUsed: { type: BigIntScalar, resolve: (n) => n.frame.gasUsed ?? null },
    input: { type: nonNull(BytesScalar), resolve: (n) => n.frame.input ?? '0x' },
    output: { type: BytesScalar, resolve: (n) => n.frame.output ?? null },
    error: { type: GraphQLString, resolve: (n) => n.frame.error ?? null },
    revertReason: { type: GraphQLString, resolve: (n) => n.frame.revertReason ?? null },
    subtraceCount: { type: nonNull(GraphQLInt), resolve: (n) => n.frame.calls?.length ?? 0 },
    traceAddressPath: { type: nonNull(listOf(GraphQLInt)), resolve: (n) => n.path },
    transaction: { type: nonNull(TransactionType), resolve: (n): TransactionNode => ({ block: n.block, index: n.txIndex }) },
  }),
});

const header = (n: BlockNode) => n.data.header;
/** Ancestors indexed once per block however many times a query reaches them (`transactions { block { parent … } }`). */
const ancestorNodes = new WeakMap<BlockData, BlockNode>();
const ancestorNode = (data: BlockData): BlockNode => {
  let node = ancestorNodes.get(data);
  if (!node) ancestorNodes.set(data, (node = createBlockNode(data)));
  return node;
};

function blockFields(): GraphQLFieldConfigMap<BlockNode, GraphqlContext> {
  return {
    number: { type: nonNull(LongScalar), resolve: (n) => header(n).number },
    hash: { type: nonNull(Bytes32Scalar), resolve: (n) => header(n).hash },
    parent: {
      type: BlockType,
      description: 'The parent block (loaded on demand); null for genesis.',
      resolve: async (n, _args, ctx) => {
        if (BigInt(header(n).number) === 0n) return null;
        const data = await ctx.loadBlock(header(n).parentHash);
        return data ? ancestorNode(data) : null;
      },
    },
    nonce: { type: nonNull(BytesScalar), resolve: (n) => header(n).nonce },
    transactionsRoot: { type: nonNull(Bytes32Scalar), resolve: (n) => header(n).transactionsRoot },
    transactionCount: { type: LongScalar, resolve: (n) => n.data.transactions.length },
    stateRoot: { type: nonNull(Bytes32Scalar), resolve: (n) => header(n).stateRoot },
    receiptsRoot: { type: nonNull(Bytes32Scalar), resolve: (n) => header(n).receiptsRoot },
    miner: { type: nonNull(AccountType), resolve: (n) => account(header(n).miner) },
    extraData: { type: nonNull(BytesScalar), resolve: (n) => header(n).extraData },
    gasLimit: { type: nonNull(LongScalar), resolve: (n) => header(n).gasLimit },
    gasUsed: { type: nonNull(LongScalar), resolve: (n) => header(n).gasUsed },
    baseFeePerGas: { type: BigIntScalar, resolve: (n) => header(n).baseFeePerGas ?? null },
    timestamp: { type: nonNull(LongScalar), resolve: (n) => header(n).timestamp },
    logsBloom: { type: nonNull(BytesScalar), resolve: (n) => header(n).logsBloom },
    mixHash: { type: nonNull(Bytes32Scalar), resolve: (n) => header(n).mixHash },
    difficulty: { type: nonNull(BigIntScalar), resolve: (n) => header(n).difficulty },
    totalDifficulty: { type: BigIntScalar, resolve: (n) => header(n).totalDifficulty ?? null },
    transactions: {
      type: listOf(TransactionType),
      args: { filter: { type: TransactionsFilterInput } },
      resolve: (n, args: { filter?: { addresses?: AddressCriteria[] | null } | null }) => {
        const match = compileAddressCriteria(args.filter?.addresses);
        const out: TransactionNode[] = [];
        n.data.transactions.forEach((t, index) => {
          if (!match || match(t.from, t.to)) out.push({ block: n, index });
        });
        return out;
      },
    },
    transactionAt: {
      type: TransactionType,
      args: { index: { type: nonNull(GraphQLInt) } },
      resolve: (n, args: { index: number }) => (args.index >= 0 && args.index < n.data.transactions.length ? { block: n, index: args.index } : null),
    },
    logs: {
      type: nonNull(listOf(LogType)),
      args: { filter: { type: LogsFilterInput } },
      resolve: (n, args: { filter?: LogFilter | null }) => {
        const match = compileLogFilter(args.filter);
        return n.logs.filter((l) => match(l.log));
      },
    },
    callTracerTraces: {
      type: nonNull(listOf(CallTracerTraceType)),
      args: { filter: { type: CallTracerTracesFilterInput } },
      resolve: (n, args: { filter?: { addresses?: AddressCriteria[] | null } | null }) => {
        const match = compileAddressCriteria(args.filter?.addresses);
        return match ? n.traces.filter((t) => match(t.frame.from, t.frame.to ?? null)) : n.traces;
      },
    },
  };
}

// Block, Transaction and Log refer to each other; field thunks resolve the cycle.
const BlockType: GraphQLObjectType<BlockNode, GraphqlContext> = new GraphQLObjectType<BlockNode, GraphqlContext>({ name: 'Block', fields: () => metered(blockFields()) });

const QueryType = new GraphQLObjectType<{ block: BlockNode }, GraphqlContext>({
  name: 'Query',
  fields: {
    block: { type: nonNull(BlockType), description: 'The block this notification is about.', resolve: (root) => root.block },
  },
});

/** The schema (built once; graphql-js schemas are immutable and safe to share). */
export const customWebhookSchema = new GraphQLSchema({ query: QueryType });

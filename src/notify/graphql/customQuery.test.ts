import { describe, it, expect } from 'vitest';
import { printSchema } from 'graphql';
import type { Hex } from '../../rpc/hex.js';
import { compileCustomQuery, isEmptyResult, prepareBlock, runCustomQuery, validateCustomWebhookQuery, type CompiledCustomQuery } from './customQuery.js';
import { customWebhookSchema } from './blockSchema.js';
import { TRANSFER_TOPIC } from '../extract/transfers.js';
import { loadActivityFixture, scenarioBlock } from '../extract/testing/activityFixture.js';
import type { BlockData } from '../extract/blockData.js';

const fixture = loadActivityFixture();
const { a, b, c } = fixture.accounts;
const { token, router1 } = fixture.contracts;
const byHash = new Map<string, BlockData>(fixture.canonical.map((block) => [block.header.hash, block]));
const context = { loadBlock: async (hash: Hex) => byHash.get(hash) };

function compiled(query: string, variables?: Record<string, unknown>): CompiledCustomQuery {
  const result = compileCustomQuery(query, variables);
  if (!result.ok) throw new Error(result.message);
  return result.query;
}

async function run(query: string, block: BlockData, variables?: Record<string, unknown>) {
  return runCustomQuery(compiled(query, variables), prepareBlock(block), context);
}

describe('Custom webhook queries', () => {
  it('default: block fields use the provider encodings (Long as number, hashes as hex)', async () => {
    const block = scenarioBlock(fixture, 'erc20');
    const result = await run('{ block { hash number timestamp gasUsed baseFeePerGas transactionCount parent { hash number } } }', block);
    expect(result.errors).toEqual([]);
    expect(result.empty).toBe(false);
    expect(result.data).toEqual({
      block: {
        hash: block.header.hash,
        number: 3,
        timestamp: Number(block.header.timestamp),
        gasUsed: Number(block.header.gasUsed),
        baseFeePerGas: `0x${BigInt(block.header.baseFeePerGas!).toString(16)}`,
        transactionCount: 3,
        parent: { hash: block.header.parentHash, number: 2 },
      },
    });
  });

  it('behavior: logs filtered by address and topics, with nested account and transaction', async () => {
    const block = scenarioBlock(fixture, 'erc20');
    const padded = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
    const result = await run(
      `query ($to: [Bytes32!]!) { block { logs(filter: {addresses: ["${token}"], topics: ["${TRANSFER_TOPIC}", [], $to]}) {
        index data topics account { address } transaction { hash index from { address } to { address } value status gasUsed } } } }`,
      block,
      { to: [padded(b)] },
    );
    expect(result.errors).toEqual([]);
    const log = block.receipts[1]!.logs[0]!;
    expect(result.data).toEqual({
      block: {
        logs: [
          {
            index: Number(log.logIndex),
            data: log.data,
            topics: log.topics,
            account: { address: token },
            transaction: {
              hash: block.transactions[1]!.hash,
              index: 1,
              from: { address: a },
              to: { address: token },
              value: '0x0',
              status: 1,
              gasUsed: Number(block.receipts[1]!.gasUsed),
            },
          },
        ],
      },
    });
  });

  it('behavior: transactions filter by from/to criteria (any entry matches)', async () => {
    const ids = async (query: string, block: BlockData) => ((await run(query, block)).data as { block: { transactions: { hash: string }[] } }).block.transactions.map((t) => t.hash);
    const erc20 = scenarioBlock(fixture, 'erc20');
    expect(await ids(`{ block { transactions(filter: {addresses: [{to: ["${token}"]}]}) { hash } } }`, erc20)).toHaveLength(3);
    expect(await ids(`{ block { transactions(filter: {addresses: [{from: ["${b}"]}, {to: ["${b}"]}]}) { hash } } }`, erc20)).toEqual([]);
    const eth = scenarioBlock(fixture, 'ethExternal');
    expect(await ids(`{ block { transactions(filter: {addresses: [{from: ["${a.toUpperCase().replace('0X', '0x')}"], to: ["${b}"]}]}) { hash } } }`, eth)).toEqual([eth.transactions[0]!.hash]);
    expect(await ids('{ block { transactions { hash } } }', erc20)).toHaveLength(3);
  });

  it('behavior: callTracerTraces lists every frame with path, subtrace count and value', async () => {
    const block = scenarioBlock(fixture, 'split');
    const all = await run('{ block { callTracerTraces { type traceAddressPath subtraceCount } } }', block);
    expect(all.data).toEqual({
      block: {
        callTracerTraces: [
          { type: 'CALL', traceAddressPath: [], subtraceCount: 2 },
          { type: 'CALL', traceAddressPath: [0], subtraceCount: 0 },
          { type: 'CALL', traceAddressPath: [1], subtraceCount: 0 },
        ],
      },
    });
    const toC = await run(`{ block { callTracerTraces(filter: {addresses: [{from: ["${router1}"], to: ["${c}"]}]}) { from { address } to { address } value input output error gas gasUsed traceAddressPath transaction { hash } } } }`, block);
    const frame = block.callFrames![0]!.calls![1]!;
    expect(toC.data).toEqual({
      block: {
        callTracerTraces: [
          {
            from: { address: router1 },
            to: { address: c },
            value: '0x1bc16d674ec80000',
            input: '0x',
            output: frame.output ?? null,
            error: null,
            gas: `0x${BigInt(frame.gas!).toString(16)}`,
            gasUsed: `0x${BigInt(frame.gasUsed!).toString(16)}`,
            traceAddressPath: [1],
            transaction: { hash: block.transactions[0]!.hash },
          },
        ],
      },
    });
  });

  it('behavior: reverted frames keep their error in callTracerTraces', async () => {
    const result = await run('{ block { callTracerTraces { type error traceAddressPath } } }', scenarioBlock(fixture, 'delegateFailCreate'));
    const traces = (result.data as { block: { callTracerTraces: { type: string; error: string | null; traceAddressPath: number[] }[] } }).block.callTracerTraces;
    expect(traces.filter((t) => t.error)).toEqual([{ type: 'CALL', error: 'execution reverted', traceAddressPath: [0] }]);
    expect(traces.some((t) => t.type === 'DELEGATECALL')).toBe(true);
    expect(traces.some((t) => t.type === 'CREATE')).toBe(true);
  });

  it('behavior: a result whose lists are all empty is empty; one without lists never is', async () => {
    const block = scenarioBlock(fixture, 'ethExternal');
    const logs = await run(`{ block { hash logs(filter: {addresses: ["${token}"]}) { data } } }`, block);
    expect(logs.empty).toBe(true);
    expect(logs.data).toEqual({ block: { hash: block.header.hash, logs: [] } });
    expect((await run('{ block { hash } }', block)).empty).toBe(false);
    expect(isEmptyResult({ block: { logs: [], transactions: [{ logs: [] }] } })).toBe(false);
    expect(isEmptyResult({ block: { logs: [], transactions: [] } })).toBe(true);
  });

  it('behavior: without call frames the traces list is empty rather than an error', async () => {
    const block = { ...scenarioBlock(fixture, 'split'), callFrames: null };
    const result = await run('{ block { callTracerTraces { type } } }', block);
    expect(result).toEqual({ data: { block: { callTracerTraces: [] } }, errors: [], empty: true });
  });

  it('behavior: a parent the source no longer has resolves to null', async () => {
    const result = await runCustomQuery(compiled('{ block { parent { hash } } }'), prepareBlock(fixture.orphaned[0]!), { loadBlock: async () => undefined });
    expect(result.data).toEqual({ block: { parent: null } });
  });

  it('args: maxResultBytes refuses a result that grows past it, and leaves smaller results unchanged', async () => {
    const block = scenarioBlock(fixture, 'erc20');
    const query = compiled('{ block { transactions { hash inputData logs { data topics } } logs { data transaction { hash from { address } } } } }');
    const whole = await runCustomQuery(query, prepareBlock(block), context);
    const size = JSON.stringify(whole.data).length;
    expect(size).toBeGreaterThan(1000);
    expect(await runCustomQuery(query, prepareBlock(block), context, { maxResultBytes: 2 * size })).toEqual(whole);
    expect(await runCustomQuery(query, prepareBlock(block), context, { maxResultBytes: Math.floor(size / 2) })).toEqual({ data: null, errors: [], empty: false, tooLarge: true });
  });

  it('args: variables are coerced and validated with the query', () => {
    expect(validateCustomWebhookQuery('query ($a: [Address!]) { block { transactions(filter: {addresses: [{from: $a}]}) { hash } } }')).toBeNull();
    expect(validateCustomWebhookQuery('query ($a: [Address!]!) { block { transactions(filter: {addresses: [{from: $a}]}) { hash } } }')).toMatchInlineSnapshot(`"Variable "$a" of required type "[Address!]!" was not provided."`);
    expect(validateCustomWebhookQuery('query ($a: [Address!]!) { block { transactions(filter: {addresses: [{from: $a}]}) { hash } } }', { a: ['0x12'] })).toMatch(/Address must be 0x followed by 40 hex digits/);
  });

  it('error: invalid queries are rejected with the GraphQL message', () => {
    expect(validateCustomWebhookQuery('{ block { hash ')).toMatchInlineSnapshot(`"Syntax Error: Expected Name, found <EOF>."`);
    expect(validateCustomWebhookQuery('{ block { hsh } }')).toMatchInlineSnapshot(`"Cannot query field "hsh" on type "Block". Did you mean "hash"?"`);
    expect(validateCustomWebhookQuery('{ block { logs(filter: {addresses: ["0x1"]}) { data } } }')).toMatch(/Address must be 0x followed by 40 hex digits/);
    expect(validateCustomWebhookQuery('mutation { block { hash } }')).toBe('only query operations are supported, not mutation');
    expect(validateCustomWebhookQuery('query A { block { hash } } query B { block { number } }')).toBe('graphql_query must contain exactly one operation');
    expect(validateCustomWebhookQuery('')).toBe('graphql_query is empty');
    const deep = `{ block { ${'parent { '.repeat(12)}hash${' }'.repeat(12)} } }`;
    expect(validateCustomWebhookQuery(deep)).toBe('graphql_query nests fields deeper than 12 levels');
  });

  it('default: the schema prints as SDL with the documented root and filters', () => {
    const sdl = printSchema(customWebhookSchema);
    expect(sdl).toContain('logs(filter: BlockLogsFilterCriteria): [Log!]!');
    expect(sdl).toContain('callTracerTraces(filter: CallTracerTracesFilterCriteria): [CallTracerTrace!]!');
    expect(sdl).toContain('transactions(filter: TransactionsFilterCriteria): [Transaction!]');
  });
});

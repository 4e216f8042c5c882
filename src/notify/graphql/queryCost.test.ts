import { describe, expect, it } from 'vitest';
import { compileCustomQuery, validateCustomWebhookQuery } from './customQuery.js';
import { fragmentBomb } from './testing/fragmentBomb.js';

const ALL_TRANSACTION_FIELDS =
  'hash nonce index from { address } to { address } value gasPrice maxFeePerGas maxPriorityFeePerGas gas inputData status gasUsed ' +
  'cumulativeGasUsed effectiveGasPrice createdContract { address } r s v type accessList { address storageKeys }';

describe('Custom webhook query cost model', () => {
  it('default: everyday queries, the README examples and a whole-block dump pass', () => {
    const queries = [
      '{ block { hash number timestamp parent { hash } } }',
      '{ block { hash number logs(filter: {addresses: [], topics: []}) { data topics index account { address } transaction { hash from { address } } } } }',
      `{ block { number transactions { ${ALL_TRANSACTION_FIELDS} logs { index topics data account { address } } } logs { index topics data account { address } transaction { hash } }
         callTracerTraces { type from { address } to { address } value gas gasUsed input output error revertReason subtraceCount traceAddressPath transaction { hash } } } }`,
      '{ block { ...B parent { ...B parent { parent { parent { hash } } } } } } fragment B on Block { hash number transactions { ...T } } fragment T on Transaction { hash logs { data } }',
      '{ block { a: logs(filter: {topics: [["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"]]}) { data } b: logs { topics } c: transactions { hash } } }',
      '{ block { transactions { block { hash number } logs { transaction { hash block { number } } } } } }',
    ];
    for (const query of queries) expect(validateCustomWebhookQuery(query), query).toBeNull();
  });

  it('error: the fragment bomb (20 nested fragments, 2 aliases each) is refused for its depth, naming the fragment', () => {
    expect(validateCustomWebhookQuery(fragmentBomb(20))).toBe('graphql_query nests fields deeper than 12 levels (through fragment F5)');
    expect(validateCustomWebhookQuery(fragmentBomb(22))).toBe('graphql_query nests fields deeper than 12 levels (through fragment F5)');
  });

  it('error: depth counts through inline fragments and fragment spreads alike', () => {
    const inline = `{ block { ${'... on Block { parent { '.repeat(12)}hash${' } }'.repeat(12)} } }`;
    expect(validateCustomWebhookQuery(inline)).toBe('graphql_query nests fields deeper than 12 levels');
    const spreads = '{ block { ...A } } fragment A on Block { logs { transaction { ...B } } } fragment B on Transaction { block { logs { transaction { ...C } } } } ' +
      'fragment C on Transaction { block { logs { transaction { block { logs { transaction { hash } } } } } } }';
    expect(validateCustomWebhookQuery(spreads)).toBe('graphql_query nests fields deeper than 12 levels (through fragment C)');
  });

  it('error: aliases and fragment reuse count as selections after expansion (a wide bomb within the depth limit)', () => {
    const fragments = Array.from({ length: 6 }, (_, i) =>
      `fragment W${i} on Block { ${Array.from({ length: 10 }, (_, k) => (i === 0 ? `h${k}: hash` : `...W${i - 1}`)).join(' ')} }`);
    // Repeating a spread is legal GraphQL; after expansion W5 selects 10^6 fields.
    const query = `{ block { ...W5 } } ${fragments.join(' ')}`;
    expect(validateCustomWebhookQuery(query)).toBe(
      'graphql_query selects too many fields: 1,000,001 field selections after expanding fragments exceed the limit of 1,000 (every alias and every use of a fragment counts)',
    );
    const aliases = `{ block { ${Array.from({ length: 1001 }, (_, k) => `a${k}: hash`).join(' ')} } }`;
    expect(validateCustomWebhookQuery(aliases)).toMatch(/^graphql_query selects too many fields: 1,002 field selections after expanding fragments exceed the limit of 1,000/);
  });

  it('error: nested lists multiply the estimated result and an explosive fan-out is refused', () => {
    const fanOut = '{ block { transactions { block { transactions { block { transactions { hash from { address } } } } } } } }';
    expect(validateCustomWebhookQuery(fanOut)).toMatchInlineSnapshot(
      `"graphql_query is too expensive: estimated cost 108,180,601 exceeds the limit of 100,000 (one per value in the result, with lists assumed to hold 300 transactions, 1000 logs and 1000 call frames per block and 10 logs per transaction; nested lists multiply)"`,
    );
    expect(validateCustomWebhookQuery('{ block { logs { transaction { logs { transaction { logs { data } } } } } } }')).toMatch(/^graphql_query is too expensive: estimated cost [\d,]+ exceeds the limit of 100,000/);
  });

  it('error: parent nesting is bounded (each level loads a block); introspection is refused', () => {
    expect(validateCustomWebhookQuery('{ block { parent { parent { parent { parent { parent { hash } } } } } } }')).toBe(
      'graphql_query nests parent deeper than 4 levels (each level loads another block)',
    );
    expect(validateCustomWebhookQuery('{ __schema { types { name } } block { hash } }')).toBe('graphql_query may not use introspection (__schema, __type)');
  });

  it('error: fragment cycles are refused by graphql-js validation before the cost walk', () => {
    expect(validateCustomWebhookQuery('{ block { ...A } } fragment A on Block { parent { ...B } } fragment B on Block { parent { ...A } }')).toBe(
      'Cannot spread fragment "A" within itself via "B".',
    );
  });

  it('behavior: a compiled query carries its shape (how many ancestors it reads)', () => {
    const result = compileCustomQuery('{ block { ...P } } fragment P on Block { parent { parent { number } } transactions { hash } }');
    expect(result.ok && result.query.shape).toEqual({ depth: 4, selections: 6, parentDepth: 2, cost: 1 + (1 + (1 + 1)) + 300 * (1 + 1) });
  });
});

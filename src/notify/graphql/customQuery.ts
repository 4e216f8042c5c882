// Custom (GRAPHQL) webhook queries: validated once when the webhook is created (the message becomes
// the API's 400 answer), with the cost model of queryCost.ts, compiled once, then run against each
// new block with a bound on the result's size (queryWorker.ts runs them off the main thread).
import { execute, getOperationAST, getVariableValues, Kind, parse, validate, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import { customWebhookSchema } from './blockSchema.js';
import { createBlockNode, type BlockNode, type GraphqlContext, type ResultMeter } from './blockNodes.js';
import { checkQueryCost, DEFAULT_QUERY_LIMITS, type QueryShape } from './queryCost.js';
import type { BlockData } from '../extract/blockData.js';

/** Deepest field nesting accepted, counted through fragments (block › logs › transaction › logs › account is 5). */
export const MAX_QUERY_DEPTH = DEFAULT_QUERY_LIMITS.maxDepth;
/** Longest query text accepted, in characters. */
export const MAX_QUERY_LENGTH = 20_000;

/** A query parsed, validated and bound to its variable values. */
export interface CompiledCustomQuery {
  document: DocumentNode;
  variables: Record<string, unknown>;
  /** What the query selects, fragments expanded (`parentDepth`: ancestors it may read). */
  shape: QueryShape;
}

export type CompileResult = { ok: true; query: CompiledCustomQuery } | { ok: false; message: string };

/**
 * Parses and validates a Custom webhook query against the block schema: one `query` operation
 * within the limits of queryCost.ts (depth, selections, `parent` nesting, estimated result size),
 * and every variable either supplied, nullable or defaulted. Returns the compiled query or the
 * GraphQL error message(s).
 */
export function compileCustomQuery(query: string, variables: Record<string, unknown> = {}): CompileResult {
  if (typeof query !== 'string' || query.trim() === '') return { ok: false, message: 'graphql_query is empty' };
  if (query.length > MAX_QUERY_LENGTH) return { ok: false, message: `graphql_query is longer than ${MAX_QUERY_LENGTH} characters` };
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: 5_000 });
  } catch (error) {
    return { ok: false, message: errorText(error) };
  }
  const errors = validate(customWebhookSchema, document, undefined, { maxErrors: 10 });
  if (errors.length) return { ok: false, message: errors.map((e) => e.message).join('; ') };
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) return { ok: false, message: 'graphql_query must contain exactly one operation' };
  const operation = getOperationAST(document)!;
  if (operation.operation !== 'query') return { ok: false, message: `only query operations are supported, not ${operation.operation}` };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const cost = checkQueryCost(customWebhookSchema, operation, fragments);
  if (!cost.ok) return cost;
  const coerced = getVariableValues(customWebhookSchema, operation.variableDefinitions ?? [], variables, { maxErrors: 10 });
  if (coerced.errors) return { ok: false, message: coerced.errors.map((e) => e.message).join('; ') };
  return { ok: true, query: { document, variables, shape: cost.shape } };
}

/** The create-webhook hook: null when the query is acceptable, else the message for a 400 answer. */
export function validateCustomWebhookQuery(query: string, variables?: Record<string, unknown>): string | null {
  const result = compileCustomQuery(query, variables);
  return result.ok ? null : result.message;
}

export interface CustomQueryResult {
  /** The query's `data` (null only when execution failed outright). */
  data: Record<string, unknown> | null;
  /** Execution error messages (a validated query only fails on data it cannot load). */
  errors: string[];
  /** True when every list in the result is empty (and there is at least one list). */
  empty: boolean;
  /** Set (and `data` null) when the result grew past `maxResultBytes`. */
  tooLarge?: true;
}

/** A block prepared once for all Custom webhooks of that block. */
export function prepareBlock(block: BlockData): BlockNode {
  return createBlockNode(block);
}

/**
 * Runs a compiled query over one block. With `maxResultBytes`, a meter adds up the size of every
 * resolved value as the result is built; past the limit, execution winds down (lists resolve
 * empty) and the result is refused with `tooLarge`, so an oversized result is never held whole.
 */
export async function runCustomQuery(
  query: Pick<CompiledCustomQuery, 'document' | 'variables'>,
  block: BlockNode,
  context: GraphqlContext,
  options: { maxResultBytes?: number } = {},
): Promise<CustomQueryResult> {
  const meter = options.maxResultBytes === undefined ? undefined : createResultMeter(options.maxResultBytes);
  const result = await execute({
    schema: customWebhookSchema,
    document: query.document,
    rootValue: { block },
    contextValue: { ...context, meter },
    variableValues: query.variables,
  });
  if (meter?.exceeded) return { data: null, errors: [], empty: false, tooLarge: true };
  const data = (result.data as Record<string, unknown> | null | undefined) ?? null;
  return { data, errors: (result.errors ?? []).map((e) => e.message), empty: data === null || isEmptyResult(data) };
}

/**
 * Approximates the JSON size of a result from its resolved values: the key, quotes and separators
 * of each field plus the length of each string (hex values are strings; Long and BigInt values
 * are serialized from them at about the same length).
 */
function createResultMeter(maxBytes: number): ResultMeter {
  let bytes = 0;
  const meter = {
    exceeded: false,
    add(fieldName: string, value: unknown) {
      bytes += fieldName.length + 4 + valueBytes(value);
      if (bytes > maxBytes) meter.exceeded = true;
    },
  };
  return meter;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) {
    let n = 2;
    // Objects in a list are counted by their own fields; scalars (topics, paths) here.
    for (const item of value) n += 1 + (typeof item === 'string' ? item.length + 2 : typeof item === 'object' && item !== null ? 2 : 8);
    return n;
  }
  return 8;
}

/**
 * The hosted provider's "empty message": the query selected lists (logs, transactions, traces)
 * and all came back empty. A result with no list at all (say `block { hash }`) is never empty.
 */
export function isEmptyResult(data: unknown): boolean {
  let sawList = false;
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) {
      sawList = true;
      return value.length > 0;
    }
    if (value && typeof value === 'object') return Object.values(value).some(visit);
    return false;
  };
  return !visit(data) && sawList;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

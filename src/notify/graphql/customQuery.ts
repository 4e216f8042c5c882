// Custom (GRAPHQL) webhook queries: validated once when the webhook is created (the message becomes
// the API's 400 answer), compiled once, then run against each new block.
import { execute, getOperationAST, getVariableValues, GraphQLError, Kind, parse, validate, type ASTNode, type DocumentNode, type ValidationContext, type ASTVisitor } from 'graphql';
import { customWebhookSchema } from './blockSchema.js';
import { createBlockNode, type BlockNode, type GraphqlContext } from './blockNodes.js';
import type { BlockData } from '../extract/blockData.js';

/** Deepest field nesting accepted (block › logs › transaction › logs › account is 5). */
export const MAX_QUERY_DEPTH = 12;
/** Longest query text accepted, in characters. */
export const MAX_QUERY_LENGTH = 20_000;

/** A query parsed, validated and bound to its variable values. */
export interface CompiledCustomQuery {
  document: DocumentNode;
  variables: Record<string, unknown>;
}

export type CompileResult = { ok: true; query: CompiledCustomQuery } | { ok: false; message: string };

/**
 * Parses and validates a Custom webhook query against the block schema: one `query` operation,
 * depth at most {@link MAX_QUERY_DEPTH}, and every variable either supplied, nullable or
 * defaulted. Returns the compiled query or the GraphQL error message(s).
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
  const depthErrors = validate(customWebhookSchema, document, [maxDepthRule]);
  if (depthErrors.length) return { ok: false, message: depthErrors[0]!.message };
  const coerced = getVariableValues(customWebhookSchema, operation.variableDefinitions ?? [], variables, { maxErrors: 10 });
  if (coerced.errors) return { ok: false, message: coerced.errors.map((e) => e.message).join('; ') };
  return { ok: true, query: { document, variables } };
}

/** The create-webhook hook: null when the query is acceptable, else the message for a 400 answer. */
export function validateCustomWebhookQuery(query: string, variables?: Record<string, unknown>): string | null {
  const result = compileCustomQuery(query, variables);
  return result.ok ? null : result.message;
}

function maxDepthRule(context: ValidationContext): ASTVisitor {
  let depth = 0;
  return {
    Field: {
      enter(node: ASTNode) {
        depth++;
        if (depth > MAX_QUERY_DEPTH) {
          context.reportError(new GraphQLError(`graphql_query nests fields deeper than ${MAX_QUERY_DEPTH} levels`, { nodes: node }));
        }
      },
      leave() {
        depth--;
      },
    },
  };
}

export interface CustomQueryResult {
  /** The query's `data` (null only when execution failed outright). */
  data: Record<string, unknown> | null;
  /** Execution error messages (a validated query only fails on data it cannot load). */
  errors: string[];
  /** True when every list in the result is empty (and there is at least one list). */
  empty: boolean;
}

/** A block prepared once for all Custom webhooks of that block. */
export function prepareBlock(block: BlockData): BlockNode {
  return createBlockNode(block);
}

/** Runs a compiled query over one block. */
export async function runCustomQuery(query: CompiledCustomQuery, block: BlockNode, context: GraphqlContext): Promise<CustomQueryResult> {
  const result = await execute({
    schema: customWebhookSchema,
    document: query.document,
    rootValue: { block },
    contextValue: context,
    variableValues: query.variables,
  });
  const data = (result.data as Record<string, unknown> | null | undefined) ?? null;
  return { data, errors: (result.errors ?? []).map((e) => e.message), empty: data === null || isEmptyResult(data) };
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

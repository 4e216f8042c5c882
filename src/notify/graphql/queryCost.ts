// The static cost model of Custom webhook queries, checked once at creation: field depth, field
// selections and `parent` nesting counted through fragment spreads and inline fragments, and an
// estimated result size in which every list multiplies what it holds by an assumed length.
import {
  getNamedType,
  getNullableType,
  isListType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** The limits a query must stay within; each has its own message naming it. */
export interface QueryLimits {
  /** Deepest field nesting, counted through fragments (block › logs › transaction › logs › account is 5). */
  maxDepth: number;
  /** Field selections after expanding every fragment spread (an alias is a selection of its own). */
  maxSelections: number;
  /** Nested `parent` levels (each loads another block). */
  maxParentDepth: number;
  /** Estimated values in the result, with every list at its assumed length. */
  maxCost: number;
}

export const DEFAULT_QUERY_LIMITS: Readonly<QueryLimits> = { maxDepth: 12, maxSelections: 1_000, maxParentDepth: 4, maxCost: 100_000 };

/**
 * Assumed length of each list field (`Type.field`), used only to estimate a query's result: about
 * a full mainnet block (a few hundred transactions, a thousand logs and call frames). Filters are
 * not counted as narrowing: a filter may match everything.
 */
export const ASSUMED_LIST_LENGTHS: Readonly<Record<string, number>> = {
  'Block.transactions': 300,
  'Block.logs': 1_000,
  'Block.callTracerTraces': 1_000,
  'Transaction.logs': 10,
  'Transaction.accessList': 8,
  'AccessTuple.storageKeys': 8,
  'Log.topics': 4,
  'CallTracerTrace.traceAddressPath': 4,
};
/** Any list not named above. */
const OTHER_LIST_LENGTH = 10;

/** What a query (or one of its fragments) selects, fragments expanded. */
export interface QueryShape {
  depth: number;
  selections: number;
  parentDepth: number;
  /** Estimated result values for one parent object. */
  cost: number;
}

const NOTHING: QueryShape = { depth: 0, selections: 0, parentDepth: 0, cost: 0 };

/**
 * Measures the operation with fragments expanded (each fragment measured once, so a fragment used
 * a million times costs one walk) and checks it against `limits`. The document must already have
 * passed graphql-js validation, which refuses fragment cycles and unknown fields.
 * Returns the shape, or the message naming the limit that was exceeded.
 */
export function checkQueryCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  limits: QueryLimits = DEFAULT_QUERY_LIMITS,
): { ok: true; shape: QueryShape } | { ok: false; message: string } {
  const root = schema.getQueryType()!;
  const memo = new Map<string, QueryShape>();
  let introspection = false;

  function fragmentShape(name: string): QueryShape {
    const hit = memo.get(name);
    if (hit) return hit;
    const fragment = fragments.get(name)!;
    const shape = measure(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) as GraphQLObjectType);
    memo.set(name, shape);
    return shape;
  }

  function fieldShape(type: GraphQLObjectType, name: string, selectionSet: SelectionSetNode | undefined): QueryShape {
    if (name === '__typename') return { depth: 1, selections: 1, parentDepth: 0, cost: 1 };
    const field = type.getFields()[name];
    if (!field) {
      // __schema and __type: the block is the only thing a webhook query is for.
      introspection = true;
      return NOTHING;
    }
    const length = isListType(getNullableType(field.type)) ? (ASSUMED_LIST_LENGTHS[`${type.name}.${name}`] ?? OTHER_LIST_LENGTH) : 1;
    const inner = selectionSet ? measure(selectionSet, getNamedType(field.type) as GraphQLObjectType) : NOTHING;
    return {
      depth: 1 + inner.depth,
      selections: 1 + inner.selections,
      parentDepth: (name === 'parent' ? 1 : 0) + inner.parentDepth,
      cost: length * (1 + inner.cost),
    };
  }

  function measure(selectionSet: SelectionSetNode, type: GraphQLObjectType): QueryShape {
    const total = { ...NOTHING };
    for (const selection of selectionSet.selections) {
      let shape: QueryShape;
      if (selection.kind === Kind.FIELD) shape = fieldShape(type, selection.name.value, selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) shape = fragmentShape(selection.name.value);
      else shape = measure(selection.selectionSet, typeOf(selection.typeCondition?.name.value, type));
      total.depth = Math.max(total.depth, shape.depth);
      total.selections += shape.selections;
      total.parentDepth = Math.max(total.parentDepth, shape.parentDepth);
      total.cost += shape.cost;
    }
    return total;
  }

  const typeOf = (name: string | undefined, fallback: GraphQLObjectType): GraphQLObjectType => (name ? (schema.getType(name) as GraphQLObjectType) : fallback);

  /** The fragment in which the first field past `maxDepth` sits (null: in the operation itself). */
  function deepFragment(selectionSet: SelectionSetNode, type: GraphQLNamedType, level: number, via: string | null): string | null | undefined {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (level + 1 > limits.maxDepth) return via;
        const shape = fieldShape(type as GraphQLObjectType, selection.name.value, selection.selectionSet);
        if (selection.selectionSet && level + shape.depth > limits.maxDepth) {
          const field = (type as GraphQLObjectType).getFields()[selection.name.value]!;
          return deepFragment(selection.selectionSet, getNamedType(field.type), level + 1, via);
        }
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        if (level + fragmentShape(name).depth > limits.maxDepth) {
          const fragment = fragments.get(name)!;
          return deepFragment(fragment.selectionSet, typeOf(fragment.typeCondition.name.value, type as GraphQLObjectType), level, name);
        }
      } else if (level + measure(selection.selectionSet, type as GraphQLObjectType).depth > limits.maxDepth) {
        return deepFragment(selection.selectionSet, typeOf(selection.typeCondition?.name.value, type as GraphQLObjectType), level, via);
      }
    }
    return undefined;
  }

  const shape = measure(operation.selectionSet, root);
  if (introspection) return { ok: false, message: 'graphql_query may not use introspection (__schema, __type)' };
  if (shape.depth > limits.maxDepth) {
    const via = deepFragment(operation.selectionSet, root, 0, null);
    return { ok: false, message: `graphql_query nests fields deeper than ${limits.maxDepth} levels${via ? ` (through fragment ${via})` : ''}` };
  }
  if (shape.selections > limits.maxSelections) {
    return {
      ok: false,
      message: `graphql_query selects too many fields: ${count(shape.selections)} field selections after expanding fragments exceed the limit of ${count(limits.maxSelections)} (every alias and every use of a fragment counts)`,
    };
  }
  if (shape.parentDepth > limits.maxParentDepth) {
    return { ok: false, message: `graphql_query nests parent deeper than ${limits.maxParentDepth} levels (each level loads another block)` };
  }
  if (shape.cost > limits.maxCost) {
    return {
      ok: false,
      message:
        `graphql_query is too expensive: estimated cost ${count(shape.cost)} exceeds the limit of ${count(limits.maxCost)} ` +
        '(one per value in the result, with lists assumed to hold 300 transactions, 1000 logs and 1000 call frames per block and 10 logs per transaction; ' +
        'nested lists multiply)',
    };
  }
  return { ok: true, shape };
}

/** 1,234,567 while exact; 1.2e+21 beyond. */
function count(n: number): string {
  return n < 1e15 ? Math.round(n).toLocaleString('en-US') : n.toExponential(1);
}

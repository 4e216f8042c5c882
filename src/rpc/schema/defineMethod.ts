// Declares a JSON-RPC method's positional parameters as named runtime schemas. Validation and the
// handler's static parameter types both come from the same declaration, so they cannot drift.
import { z } from 'zod';
import { InvalidParamsError } from '../errors.js';
import { fastPathOf } from './fastPath.js';

export interface ParamSpec<S extends z.ZodType = z.ZodType, O extends boolean = boolean> {
  name: string;
  schema: S;
  optional: O;
}

export interface MethodSpec<P extends readonly ParamSpec[] = readonly ParamSpec[]> {
  params: P;
}

/** A required positional parameter. */
export function param<S extends z.ZodType>(name: string, schema: S): ParamSpec<S, false> {
  return { name, schema, optional: false };
}

/** An optional trailing positional parameter (absent or `null` both count as missing). */
export function optionalParam<S extends z.ZodType>(name: string, schema: S): ParamSpec<S, true> {
  return { name, schema, optional: true };
}

export function defineMethod<const P extends readonly ParamSpec[]>(...params: P): MethodSpec<P> {
  return { params };
}

/** Maps a params tuple to decoded values; mapping over the type parameter itself keeps it a tuple. */
type DecodedParams<P extends readonly ParamSpec[]> = {
  -readonly [K in keyof P]: P[K] extends ParamSpec<infer S, infer O> ? (O extends true ? z.output<S> | undefined : z.output<S>) : never;
};

/** The decoded parameter tuple a handler receives. */
export type ParamsOf<M extends MethodSpec> = DecodedParams<M['params']>;

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
  return `${issue.message}${path}`;
}

/**
 * Validates raw JSON-RPC `params` against a method spec. Throws InvalidParamsError naming the
 * offending parameter by position and name (geth says "invalid argument 0: ...").
 */
export function parseParams<M extends MethodSpec>(method: string, spec: M, raw: unknown): ParamsOf<M> {
  let list: unknown[];
  if (raw === undefined || raw === null) list = [];
  else if (Array.isArray(raw)) list = raw;
  else throw new InvalidParamsError(`${method}: params must be an array`);
  const specs = spec.params;
  if (list.length > specs.length) {
    throw new InvalidParamsError(`${method}: too many arguments, want at most ${specs.length}, got ${list.length}`);
  }
  const out: unknown[] = [];
  for (let i = 0; i < specs.length; i++) {
    const p = specs[i]!;
    const value = list[i];
    if (value === undefined || (value === null && p.optional)) {
      if (!p.optional) throw new InvalidParamsError(`${method}: missing value for required argument ${i} (${p.name})`);
      out.push(undefined);
      continue;
    }
    const fast = fastPathOf(p.schema)?.(value);
    if (fast !== undefined) {
      out.push(fast);
      continue;
    }
    const result = p.schema.safeParse(value);
    if (!result.success) {
      const first = result.error.issues[0];
      throw new InvalidParamsError(
        `${method}: invalid argument ${i} (${p.name}): ${first ? describeIssue(first) : 'invalid value'}`,
      );
    }
    out.push(result.data);
  }
  return out as ParamsOf<M>;
}

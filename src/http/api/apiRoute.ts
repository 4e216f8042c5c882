// The shape of one management endpoint, whoever owns it (keys, webhooks, follower, operations):
// what the router dispatches on, what the OpenAPI document describes, and the handler. The body
// schema both validates and documents the request.
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { parseBody } from './parseBody.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface QueryParamDoc {
  name: string;
  required: boolean;
  type: 'string' | 'integer';
  description: string;
}

export interface ApiInput<B> {
  body: B;
  query: URLSearchParams;
  /** Path parameters (`:id` in the path), percent-decoded. */
  params: Record<string, string>;
  nowMs: number;
  requestId: string;
  /** The request's headers (the dashboard's session routes read its cookie and Origin). */
  headers: IncomingHttpHeaders;
}

/** A reply other than `200` with a JSON body: another status, a text body or more headers. */
export class ApiReply {
  constructor(
    readonly status: number,
    /** A string is sent as it is; anything else as JSON. */
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface ApiRoute {
  method: HttpMethod;
  /** Path below the mount point (`/create-webhook`, `/keys/:id`); `:name` segments are parameters. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  query?: QueryParamDoc[];
  body?: z.ZodType;
  /** Largest body this route reads; default: the app's limit. */
  maxBodyBytes?: number;
  /** False: answered without the auth token. Default true. */
  auth?: boolean;
  /** Status of the documented success answer. Default 200. */
  status?: number;
  /** JSON schema of the success answer (`contentType` says when it is not JSON). */
  response: object;
  contentType?: string;
  /** Error answers besides 400 and 401 that the document lists, by status. */
  errors?: Record<number, string>;
  /** Returns the JSON body of a 200 reply or an ApiReply; throws RpcError subclasses (with httpStatus) for the rest. */
  handle(input: ApiInput<unknown>): Promise<unknown>;
}

export type RouteSpec<B> = Omit<ApiRoute, 'handle' | 'body'> & { body?: z.ZodType<B>; handle(input: ApiInput<B>): Promise<unknown> };

/** A route whose handler gets its body already checked against `body` (a 400 naming the field otherwise). */
export function defineApiRoute<B = undefined>(spec: RouteSpec<B>): ApiRoute {
  return {
    ...spec,
    handle: (input) => spec.handle({ ...input, body: (spec.body ? parseBody(spec.body, input.body) : undefined) as B }),
  };
}

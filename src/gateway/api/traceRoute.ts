// `POST /api/trace`: the dashboard's trace explorer runs one trace method on a served network
// through the same backend as the JSON-RPC endpoint (signed-in operators need no API key here, and
// it is not charged to one). Only trace methods are accepted; the answer is the method's result.
import { z } from 'zod';
import { defineApiRoute, type ApiRoute } from '../../http/api/apiRoute.js';
import { invalidField } from '../../http/api/parseBody.js';
import { RpcError } from '../../rpc/errors.js';
import { rawJsonToValue } from '../../rpc/rawJson.js';
import { networkKey } from '../../config/networkNames.js';
import type { NetworkRouter } from '../router/networkRouter.js';

export const TRACE_METHODS = ['debug_traceTransaction', 'debug_traceCall', 'trace_transaction', 'trace_replayTransaction', 'trace_call'] as const;
const TIMEOUT_MS = 60_000;

const TraceBody = z.object({
  network: z.string({ error: 'must be a string' }).optional(),
  method: z.enum(TRACE_METHODS, { error: `must be one of ${TRACE_METHODS.join(', ')}` }),
  params: z.array(z.unknown(), { error: 'must be an array (the method\'s JSON-RPC params)' }).max(4, { error: 'must hold at most 4 params' }),
});

export function createTraceRoutes(options: { networks: readonly NetworkRouter[] }): ApiRoute[] {
  return [
    defineApiRoute({
      method: 'POST',
      path: '/trace',
      operationId: 'trace',
      summary: `Run a trace method (${TRACE_METHODS.join(', ')}) on a network (default: the first) and return its result.`,
      tag: 'Networks',
      body: TraceBody,
      // As the JSON-RPC endpoint's default: a call's data can be large (10,000 addresses are 1.3 MB of hex).
      maxBodyBytes: 5 * 1024 * 1024,
      response: { type: 'object', required: ['data'], properties: { data: { description: 'the JSON-RPC result' } } },
      errors: { 404: 'Unknown network', 422: 'The method answered a JSON-RPC error (message and code)' },
      async handle({ body, requestId }) {
        const router = body.network === undefined ? options.networks[0] : options.networks.find((n) => n.key === networkKey(body.network!));
        if (!router) throw new RpcError(`network: no network ${body.network!.slice(0, 64)}`, { httpStatus: 404, data: { field: 'network' } });
        const backend = router.resolve(body.method);
        if (!backend) throw invalidField('method', `${body.method} is not served on ${router.name}`);
        try {
          return { data: rawJsonToValue(await backend.call(body.method, body.params, { requestId, signal: AbortSignal.timeout(TIMEOUT_MS) })) };
        } catch (error) {
          if (!(error instanceof RpcError)) throw error;
          throw new RpcError(`${body.method}: ${error.message}`, { httpStatus: 422, code: error.code, data: { field: 'params', code: error.code } });
        }
      },
    }),
  ];
}

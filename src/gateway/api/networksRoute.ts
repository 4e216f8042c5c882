// `GET /api/networks`: every served network with its chain id and head block, asked of the
// network's own backend (embedded chain or upstreams) as a JSON-RPC client would; the dashboard's
// header polls it. Upstream health stays GET /api/upstreams.
import { defineApiRoute, type ApiRoute } from '../../http/api/apiRoute.js';
import { rawJsonToValue } from '../../rpc/rawJson.js';
import type { NetworkRouter } from '../router/networkRouter.js';

const TIMEOUT_MS = 3_000;

export function createNetworksRoutes(options: { networks: readonly NetworkRouter[] }): ApiRoute[] {
  const ask = async (router: NetworkRouter, method: string, requestId: string): Promise<string | null> => {
    const backend = router.resolve(method);
    if (!backend) return null;
    const result = rawJsonToValue(await backend.call(method, [], { requestId, signal: AbortSignal.timeout(TIMEOUT_MS) }));
    return typeof result === 'string' ? result : null;
  };
  return [
    defineApiRoute({
      method: 'GET',
      path: '/networks',
      operationId: 'list-networks',
      summary: 'Every served network (gateway order) with its chain id and head block number; error says why a network did not answer.',
      tag: 'Networks',
      response: {
        type: 'object',
        required: ['data'],
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              required: ['network', 'path', 'chain_id', 'head_block', 'error'],
              properties: {
                network: { type: 'string' },
                path: { type: 'string', description: 'JSON-RPC path prefix (/<network>/v2/<key>)' },
                chain_id: { type: ['string', 'null'], description: 'hex' },
                head_block: { type: ['string', 'null'], description: 'hex block number' },
                error: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
      async handle({ requestId }) {
        const data = await Promise.all(
          options.networks.map(async (router) => {
            try {
              const [chainId, head] = await Promise.all([ask(router, 'eth_chainId', requestId), ask(router, 'eth_blockNumber', requestId)]);
              return { network: router.name, path: `/${router.key}/v2/`, chain_id: chainId, head_block: head, error: null };
            } catch (error) {
              return { network: router.name, path: `/${router.key}/v2/`, chain_id: null, head_block: null, error: (error as Error).message.slice(0, 200) };
            }
          }),
        );
        return { data };
      },
    }),
  ];
}

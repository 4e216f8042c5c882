// A `--role gateway --embedded-upstream URL` process serves the embedded chain's network without a
// chain of its own: the network becomes an upstream network of one node, the owning process's
// internal endpoint (gateway/internalEndpoint.ts), so routing, the cache, trace paths and
// eth_subscribe work as for any upstream network. The owner's chain id is checked by the probes.
import type { ServedNetwork } from '../config/networks.js';
import { INTERNAL_PATH_PREFIX, INTERNAL_TOKEN_HEADER } from '../gateway/internalEndpoint.js';
import type { UpstreamNetwork } from './networkBackends.js';

/** How often a gateway polls the owner's head (newHeads and logs subscriptions wait at most this). */
export const EMBEDDED_HEAD_POLL_MS = 250;

/** The owner's internal URL of a network: `<ownerUrl>/internal/<network>`. */
export function internalUrl(ownerUrl: string, network: string): string {
  return new URL(`${INTERNAL_PATH_PREFIX}${encodeURIComponent(network)}`, ownerUrl).toString();
}

/** The served networks with the embedded one turned into an upstream network on the owner. */
export function embeddedAsUpstream(served: readonly ServedNetwork[], ownerUrl: string, token: string): ServedNetwork[] {
  return served.map((network): ServedNetwork | UpstreamNetwork =>
    network.kind !== 'embedded'
      ? network
      : { kind: 'upstream', name: network.name, chainId: network.chainId, upstreams: [{ url: internalUrl(ownerUrl, network.name), headers: { [INTERNAL_TOKEN_HEADER]: token }, weight: 1 }] },
  );
}

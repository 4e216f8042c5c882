// The config file's `networks` section: each network's name, chain id, upstream nodes and whether
// the embedded chain serves it; its schema (errors name the key, e.g. `networks[1].upstreams[0].url`)
// and the start-up check of what this version can serve. Routing between upstreams is not here.
import { z } from 'zod';
import { ServiceError } from '../rpc/errors.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NETWORK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

export const UpstreamConfig = z.strictObject({
  url: z.string({ error: 'must be an http(s) URL' }).refine(isHttpUrl, { error: 'must be an http(s) URL' }),
  /** Sent with every request to this upstream, e.g. `Authorization`. */
  headers: z
    .record(
      z.string().regex(HEADER_NAME, { error: 'header names are HTTP tokens' }),
      z.string({ error: 'must be a string' }).refine((v) => !/[\r\n\0]/.test(v), { error: 'must not hold CR, LF or NUL' }),
    )
    .optional(),
  /** Share of the traffic relative to the network's other upstreams. Default 1. */
  weight: z.number({ error: 'must be a positive number' }).positive({ error: 'must be a positive number' }).default(1),
});
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;

export const NetworkConfig = z
  .strictObject({
    name: z.string({ error: 'must be a string' }).regex(NETWORK_NAME, { error: 'must be 1-63 letters, digits, _ or -, starting with a letter or digit' }),
    chainId: z.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' }),
    upstreams: z.array(UpstreamConfig, { error: 'must be a list of {url, headers?, weight?}' }).default([]),
    /** Served by the embedded dev chain (whose chain id is the `chainId` option). */
    embedded: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .refine((n) => n.embedded || n.upstreams.length > 0, { path: ['upstreams'], error: 'a network needs at least one upstream or embedded: true' });
export type NetworkConfig = z.infer<typeof NetworkConfig>;

export const NetworksSection = z
  .array(NetworkConfig, { error: 'must be a list of networks' })
  .superRefine((networks, ctx) => {
    const seen = new Set<string>();
    networks.forEach((network, i) => {
      const name = network.name.toLowerCase();
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate network name ${network.name}` });
      seen.add(name);
    });
    const embedded = networks.flatMap((n, i) => (n.embedded ? [i] : []));
    if (embedded.length > 1) ctx.addIssue({ code: 'custom', path: [embedded[1]!, 'embedded'], message: 'only one network can be served by the embedded chain' });
  });

/** `['networks', 1, 'upstreams', 0, 'url']` → `networks[1].upstreams[0].url`. */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

export class NetworkNotServedError extends ServiceError {
  override name = 'NetworkNotServedError';
}

/**
 * Refuses, at start, a `networks` section this version cannot serve yet: networks with upstreams
 * (routing to them comes with issue 12's next items), or an embedded network whose chain id is not
 * the embedded chain's. Throws NetworkNotServedError naming the key.
 */
export function refuseUnservedNetworks(networks: readonly NetworkConfig[] | undefined, embeddedChainId: number): void {
  networks?.forEach((network, i) => {
    if (network.upstreams.length > 0) {
      throw new NetworkNotServedError(`networks[${i}] (${network.name}): networks with upstreams are not yet served; this version serves only the embedded chain (embedded: true, no upstreams)`);
    }
    if (network.chainId !== embeddedChainId) {
      throw new NetworkNotServedError(`networks[${i}].chainId: ${network.chainId} is not the embedded chain's chain id ${embeddedChainId} (the chainId option)`);
    }
  });
}

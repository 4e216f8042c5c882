// The config file's `networks` section: each network's name, chain id, upstream nodes and whether
// the embedded chain serves it; its schema (errors name the key, e.g. `networks[1].upstreams[0].url`)
// and the plan of served networks (section, `--upstream`, the embedded chain) with the start-up
// check of what this version can serve. Talking to upstreams and routing between them is not here.
import { z } from 'zod';
import { ServiceError } from '../rpc/errors.js';
import { NETWORK_NAME, RESERVED_NETWORK_KEYS, RESERVED_NETWORK_KEYS_TEXT, networkKey, networkNameForChainId } from './networkNames.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const isHttpUrl = (value: string): boolean => {
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
    name: z
      .string({ error: 'must be a string' })
      .regex(NETWORK_NAME, { error: 'must be 1-63 letters, digits, _ or -, starting with a letter or digit' })
      .refine((name) => !RESERVED_NETWORK_KEYS.includes(networkKey(name)), { error: `must not be ${RESERVED_NETWORK_KEYS_TEXT} (paths of the gateway)` }),
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
      // Paths match names case-insensitively and with - for _, so those spellings are one name.
      const name = networkKey(network.name);
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

/** A network the service serves, in the order of the gateway (the first is also `/v2/<key>`). */
export type ServedNetwork =
  | { kind: 'embedded'; name: string; chainId: bigint }
  | { kind: 'upstream'; name: string; chainId: bigint; upstreams: readonly UpstreamConfig[] };

/** What planNetworks reads from the ServiceConfig. */
export interface NetworkPlanInput {
  networks?: readonly NetworkConfig[];
  /** `--upstream` URLs: one network of those nodes, named from `probedChainId`. */
  upstream?: readonly string[];
  /** Name of the embedded chain's network when the networks section has no `embedded: true` entry. */
  networkName: string;
  /** The embedded chain's chain id (the `chainId` option). */
  chainId: number;
}

/**
 * The served networks: the `networks` section as listed, or one network of the `--upstream` nodes
 * (named from the chain id they answered, `probedChainId`), and in either case the embedded chain:
 * as the section's `embedded: true` entry where it is listed, else as a network of its own named
 * `networkName`, after the others. Throws NetworkNotServedError naming the key for what this
 * version cannot serve: a network served by both the embedded chain and upstreams, an embedded
 * network on another chain id than the embedded chain's, or two networks of one name.
 */
export function planNetworks(input: NetworkPlanInput, probedChainId?: bigint): ServedNetwork[] {
  const served: ServedNetwork[] = [];
  let embeddedListed = false;
  input.networks?.forEach((network, i) => {
    if (!network.embedded) {
      served.push({ kind: 'upstream', name: network.name, chainId: BigInt(network.chainId), upstreams: network.upstreams });
      return;
    }
    if (network.upstreams.length > 0) {
      throw new NetworkNotServedError(`networks[${i}].upstreams: a network served by the embedded chain takes no upstreams (${network.name} has embedded: true)`);
    }
    if (network.chainId !== input.chainId) {
      throw new NetworkNotServedError(`networks[${i}].chainId: ${network.chainId} is not the embedded chain's chain id ${input.chainId} (the chainId option)`);
    }
    embeddedListed = true;
    served.push({ kind: 'embedded', name: network.name, chainId: BigInt(network.chainId) });
  });
  if (input.upstream?.length) {
    if (probedChainId === undefined) throw new TypeError('planNetworks: --upstream needs the probed chain id');
    served.push({ kind: 'upstream', name: networkNameForChainId(probedChainId), chainId: probedChainId, upstreams: input.upstream.map((url) => ({ url, weight: 1 })) });
  }
  if (!embeddedListed) {
    const clash = served.find((n) => networkKey(n.name) === networkKey(input.networkName));
    if (clash) throw new NetworkNotServedError(`networkName: ${input.networkName} is already the name of the upstream network ${clash.name} (chain ${clash.chainId}); name the embedded chain's network otherwise`);
    served.push({ kind: 'embedded', name: input.networkName, chainId: BigInt(input.chainId) });
  }
  return served;
}

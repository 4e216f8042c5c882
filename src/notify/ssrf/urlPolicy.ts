// Which webhook URLs the service may call: http(s) only, and (unless allowed) never an address on
// loopback, private, link-local, metadata or reserved networks. Checked when a webhook is created
// and again on every connection through a custom DNS `lookup`, so a name that later resolves to an
// internal address (DNS rebinding) is refused too.
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { ServiceError } from '../../rpc/errors.js';
import { classifyAddress, type AddressCategory } from './classifyAddress.js';

export interface UrlPolicyOptions {
  /** Allow loopback targets (the embedded dev default, so local listeners work). */
  allowLoopback: boolean;
  /** Allow private, link-local and reserved targets; metadata addresses still need the allow-list. */
  allowPrivateNetworks?: boolean;
  /** Always-allowed targets: host names (`hooks.internal`, `*.corp.example`), IPs or CIDRs (`10.1.0.0/16`). */
  allowList?: readonly string[];
  /** Resolver used at creation time and by `lookup`; defaults to the system resolver (dns.lookup). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface UrlPolicy {
  /** Refusal reason from the URL alone (syntax, scheme, literal IP), or null. No DNS. */
  checkSyntax(url: string): string | null;
  /** checkSyntax, then every resolved address. A host that does not resolve passes (checked again on connect). */
  check(url: string): Promise<string | null>;
  /** Refusal reason for `address` reached through `hostname`, or null. */
  checkAddress(hostname: string, address: string): string | null;
  /** A node:net `lookup` that fails with a BlockedAddressError for refused addresses. */
  lookup: LookupFunction;
}

/** Connection-time refusal of a resolved address. */
export class BlockedAddressError extends ServiceError {
  override name = 'BlockedAddressError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_BLOCKED';
}

export const MAX_URL_LENGTH = 2048;

const systemResolve = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

function buildAllowList(entries: readonly string[]): { hosts: string[]; suffixes: string[]; nets: BlockList } {
  const hosts: string[] = [];
  const suffixes: string[] = [];
  const nets = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
    if (!entry) continue;
    const [ip, bits] = entry.split('/') as [string, string | undefined];
    const version = isIP(ip);
    if (version) {
      const type = version === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) nets.addAddress(ip, type);
      else nets.addSubnet(ip, Number(bits), type);
    } else if (entry.startsWith('*.')) suffixes.push(entry.slice(1));
    else hosts.push(entry);
  }
  return { hosts, suffixes, nets };
}

const ARTICLE: Record<AddressCategory, string> = {
  public: 'a public',
  loopback: 'a loopback',
  private: 'a private',
  'link-local': 'a link-local',
  metadata: 'a cloud metadata',
  reserved: 'a reserved',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
};

export function createUrlPolicy(options: UrlPolicyOptions): UrlPolicy {
  const allow = buildAllowList(options.allowList ?? []);
  const resolve = options.resolve ?? systemResolve;

  const hostAllowed = (hostname: string) => {
    const h = hostname.toLowerCase();
    return allow.hosts.includes(h) || allow.suffixes.some((s) => h.endsWith(s));
  };

  function checkAddress(hostname: string, address: string): string | null {
    if (hostAllowed(hostname)) return null;
    const bare = address.replace(/^\[|\]$/g, '');
    const version = isIP(bare);
    if (version && allow.nets.check(bare, version === 4 ? 'ipv4' : 'ipv6')) return null;
    const category = classifyAddress(bare);
    if (category === 'public') return null;
    if (category === 'loopback' && options.allowLoopback) return null;
    if (options.allowPrivateNetworks && (category === 'private' || category === 'link-local' || category === 'reserved')) return null;
    return `host ${hostname} is ${ARTICLE[category]} address (${bare}); refused unless allow-listed`;
  }

  function parse(url: string): { url: URL } | { reason: string } {
    if (url.length > MAX_URL_LENGTH) return { reason: `must be at most ${MAX_URL_LENGTH} characters` };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { reason: 'is not a valid absolute URL' };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { reason: 'must use http or https' };
    if (!parsed.hostname) return { reason: 'has no host' };
    return { url: parsed };
  }

  function checkSyntax(url: string): string | null {
    const p = parse(url);
    if ('reason' in p) return p.reason;
    const host = p.url.hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? checkAddress(host, host) : null;
  }

  async function check(url: string): Promise<string | null> {
    const reason = checkSyntax(url);
    if (reason) return reason;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) || hostAllowed(host)) return null;
    let addresses: LookupAddress[];
    try {
      addresses = await resolve(host);
    } catch {
      return null;
    }
    for (const a of addresses) {
      const refused = checkAddress(host, a.address);
      if (refused) return refused;
    }
    return null;
  }

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        // Fail closed: one refused address refuses the host, so a mixed answer cannot slip through.
        const refused = addresses.map((a) => checkAddress(hostname, a.address)).find((r) => r !== null);
        if (refused) return callback(new BlockedAddressError(refused), '', 0);
        if (usable.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (lookupOptions.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  return { checkSyntax, check, checkAddress, lookup };
}

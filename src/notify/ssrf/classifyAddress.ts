// Classifies an IP address as public or as one of the kinds a webhook must not reach from a
// production server (loopback, private, link-local, cloud metadata, reserved, multicast).
// IPv6 forms that embed an IPv4 address (mapped, translated, NAT64, 6to4) are judged by the
// embedded address; local-use NAT64 and Teredo tunnels are refused whole.
import { isIP } from 'node:net';

export type AddressCategory = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved' | 'multicast' | 'unspecified';

type Range = readonly [prefix: number[], bits: number, category: AddressCategory];

// Order matters: the first matching range wins, so metadata comes before link-local/private.
const V4_RANGES: readonly Range[] = [
  [[169, 254, 169, 254], 32, 'metadata'], // AWS, GCP, Azure, OpenStack
  [[169, 254, 170, 2], 32, 'metadata'], // AWS ECS task metadata
  [[100, 100, 100, 200], 32, 'metadata'], // Alibaba Cloud
  [[192, 0, 0, 192], 32, 'metadata'], // Oracle Cloud
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[10, 0, 0, 0], 8, 'private'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 168, 0, 0], 16, 'private'],
  [[100, 64, 0, 0], 10, 'private'], // carrier-grade NAT
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 0, 2, 0], 24, 'reserved'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[198, 51, 100, 0], 24, 'reserved'],
  [[203, 0, 113, 0], 24, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

const V6_RANGES: readonly Range[] = [
  [[0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128, 'metadata'], // AWS IMDS over IPv6
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfc], 7, 'private'], // unique local
  [[0xfe, 0xc0], 10, 'private'], // deprecated site-local
  [[0xff], 8, 'multicast'],
  // RFC 8215 local-use NAT64: a translator of the server's own network, whatever IPv4 it embeds.
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'private'],
  // Teredo (RFC 4380): a tunnel whose end points are IPv4 addresses outside this policy's sight.
  [[0x20, 0x01, 0x00, 0x00], 32, 'reserved'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'], // documentation
  [[0x01, 0, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // discard
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, 'reserved'], // deprecated IPv4-compatible
];

function inRange(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyBytes(bytes: readonly number[], ranges: readonly Range[]): AddressCategory {
  for (const [prefix, bits, category] of ranges) if (inRange(bytes, prefix, bits)) return category;
  return 'public';
}

/** The 16 bytes of an IPv6 address (any textual form, including a trailing dotted quad). */
export function ipv6ToBytes(ip: string): number[] {
  let text = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = dotted[1]!.split('.').map(Number);
    text = text.slice(0, -dotted[1]!.length) + `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [(n >> 8) & 0xff, n & 0xff];
  });
}

/** Category of an IPv4 or IPv6 address; throws TypeError for anything that is not an IP. */
export function classifyAddress(ip: string): AddressCategory {
  const bare = ip.replace(/^\[|\]$/g, '');
  const version = isIP(bare.replace(/%.*$/, ''));
  if (version === 4) return classifyBytes(bare.split('.').map(Number), V4_RANGES);
  if (version !== 6) throw new TypeError(`not an IP address: ${ip}`);
  const b = ipv6ToBytes(bare);
  const embedded =
    inRange(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96) || // IPv4-mapped ::ffff:a.b.c.d
    inRange(b, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96) || // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765)
    inRange(b, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96) // well-known NAT64 64:ff9b::a.b.c.d
      ? b.slice(12, 16)
      : inRange(b, [0x20, 0x02], 16)
        ? b.slice(2, 6)
        : null;
  if (embedded) return classifyBytes(embedded, V4_RANGES);
  return classifyBytes(b, V6_RANGES);
}

import { describe, expect, it } from 'vitest';
import { classifyAddress, ipv6ToBytes } from './classifyAddress.js';
import { createUrlPolicy } from './urlPolicy.js';

describe('classifyAddress', () => {
  it('default: public addresses pass', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1']) expect(classifyAddress(ip)).toBe('public');
  });
  it('behavior: internal ranges are named, metadata before link-local', () => {
    expect(
      ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', 'fd12::1', '169.254.169.254', '169.254.1.1', 'fe80::1', 'fd00:ec2::254', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', '240.0.0.1', '192.0.2.1', '2001:db8::1'].map(
        (ip) => [ip, classifyAddress(ip)],
      ),
    ).toMatchInlineSnapshot(`
      [
        [
          "127.0.0.1",
          "loopback",
        ],
        [
          "::1",
          "loopback",
        ],
        [
          "10.1.2.3",
          "private",
        ],
        [
          "172.16.0.1",
          "private",
        ],
        [
          "192.168.1.1",
          "private",
        ],
        [
          "100.64.0.1",
          "private",
        ],
        [
          "fd12::1",
          "private",
        ],
        [
          "169.254.169.254",
          "metadata",
        ],
        [
          "169.254.1.1",
          "link-local",
        ],
        [
          "fe80::1",
          "link-local",
        ],
        [
          "fd00:ec2::254",
          "metadata",
        ],
        [
          "0.0.0.0",
          "unspecified",
        ],
        [
          "::",
          "unspecified",
        ],
        [
          "224.0.0.1",
          "multicast",
        ],
        [
          "ff02::1",
          "multicast",
        ],
        [
          "240.0.0.1",
          "reserved",
        ],
        [
          "192.0.2.1",
          "reserved",
        ],
        [
          "2001:db8::1",
          "reserved",
        ],
      ]
    `);
  });
  it('behavior: IPv6 forms embedding IPv4 are judged by the IPv4 address', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('64:ff9b::10.0.0.1')).toBe('private');
    expect(classifyAddress('2002:c0a8:0101::1')).toBe('private');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
    expect(ipv6ToBytes('1::2')).toEqual([0, 1, ...Array(12).fill(0), 0, 2]);
  });
  it('behavior: IPv4-translated, local-use NAT64 and Teredo addresses are not public', () => {
    expect(
      ['::ffff:0:10.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '64:ff9b:1::a00:1', '64:ff9b:1:a00:1::', '64:ff9b:1:ffff::8.8.8.8', '2001::1', '2001:0:4136:e378:8000:63bf:f5ff:fffe', '64:ff9b::a00:1', '2002:a00:1::1'].map((ip) => [
        ip,
        classifyAddress(ip),
      ]),
    ).toEqual([
      ['::ffff:0:10.0.0.1', 'private'],
      ['::ffff:0:7f00:1', 'loopback'],
      ['::ffff:0:a9fe:a9fe', 'metadata'],
      ['64:ff9b:1::a00:1', 'private'],
      ['64:ff9b:1:a00:1::', 'private'],
      ['64:ff9b:1:ffff::8.8.8.8', 'private'],
      ['2001::1', 'reserved'],
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'reserved'],
      ['64:ff9b::a00:1', 'private'],
      ['2002:a00:1::1', 'private'],
    ]);
    // Public IPv4 behind the translated and well-known NAT64 forms stays reachable.
    expect(['::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '2001:4860:4860::8888'].map((ip) => classifyAddress(ip))).toEqual(['public', 'public', 'public', 'public']);
  });
  it('error: not an IP', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
  });
});

describe('createUrlPolicy', () => {
  const fakeDns: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'], 'rebind.example': ['93.184.216.34', '169.254.169.254'], 'intranet.example': ['10.0.0.7'] };
  const resolve = async (host: string) => {
    const list = fakeDns[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const production = createUrlPolicy({ allowLoopback: false, resolve });

  it('default: public http(s) URLs pass; unresolvable names pass creation (checked again on connect)', async () => {
    expect(await production.check('https://hooks.example/path?q=1')).toBeNull();
    expect(await production.check('http://93.184.216.34:8080/')).toBeNull();
    expect(await production.check('https://not-yet.example/')).toBeNull();
  });

  it('error: schemes, syntax and internal targets are refused with a reason', async () => {
    const reasons = await Promise.all(
      ['ftp://hooks.example/', 'not a url', 'http://127.0.0.1/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data', 'https://rebind.example/', 'https://intranet.example/', `https://hooks.example/${'a'.repeat(2100)}`].map((u) =>
        production.check(u),
      ),
    );
    expect(reasons).toMatchInlineSnapshot(`
      [
        "must use http or https",
        "is not a valid absolute URL",
        "host 127.0.0.1 is a loopback address (127.0.0.1); refused unless allow-listed",
        "host 127.0.0.1 is a loopback address (127.0.0.1); refused unless allow-listed",
        "host 127.0.0.1 is a loopback address (127.0.0.1); refused unless allow-listed",
        "host ::1 is a loopback address (::1); refused unless allow-listed",
        "host 169.254.169.254 is a cloud metadata address (169.254.169.254); refused unless allow-listed",
        "host rebind.example is a cloud metadata address (169.254.169.254); refused unless allow-listed",
        "host intranet.example is a private address (10.0.0.7); refused unless allow-listed",
        "must be at most 2048 characters",
      ]
    `);
  });

  it('args: dev mode allows loopback only; allow-list by host, wildcard or CIDR; private networks on request', async () => {
    const dev = createUrlPolicy({ allowLoopback: true, resolve });
    expect(await dev.check('http://127.0.0.1:3000/hook')).toBeNull();
    expect(await dev.check('http://intranet.example/')).not.toBeNull();
    expect(await dev.check('http://169.254.169.254/')).not.toBeNull();
    const listed = createUrlPolicy({ allowLoopback: false, allowList: ['intranet.example', '*.corp.example', '127.0.0.0/8'], resolve });
    expect(await listed.check('http://intranet.example/')).toBeNull();
    expect(listed.checkAddress('a.corp.example', '10.9.9.9')).toBeNull();
    expect(await listed.check('http://127.0.0.2/')).toBeNull();
    expect(await listed.check('http://[::1]/')).not.toBeNull();
    const privateOk = createUrlPolicy({ allowLoopback: false, allowPrivateNetworks: true, resolve });
    expect(await privateOk.check('http://intranet.example/')).toBeNull();
    expect(await privateOk.check('http://169.254.169.254/')).not.toBeNull();
  });

  it('behavior: the connection-time lookup fails closed on any refused address', async () => {
    const lookup = (host: string, all: boolean) =>
      new Promise<unknown>((resolve, reject) => production.lookup(host, { all }, (err, address) => (err ? reject(err) : resolve(address))));
    expect(await lookup('hooks.example', true)).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await lookup('hooks.example', false)).toBe('93.184.216.34');
    await expect(lookup('rebind.example', true)).rejects.toMatchObject({ name: 'BlockedAddressError', code: 'ERR_WEBHOOK_ADDRESS_BLOCKED' });
    await expect(lookup('nowhere.example', false)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('error: production refuses translated, local NAT64 and Teredo targets at creation and on connect', async () => {
    const tunnels: Record<string, string[]> = { 'nat64.example': ['64:ff9b:1::a00:1'], 'teredo.example': ['2001:0:4136:e378:8000:63bf:f5ff:fffe'], 'xlat.example': ['::ffff:0:a9fe:a9fe'] };
    const policy = createUrlPolicy({ allowLoopback: false, resolve: async (host) => (tunnels[host] ?? []).map((address) => ({ address, family: 6 })) });
    expect(await Promise.all(['http://[64:ff9b:1::a00:1]/', 'http://[::ffff:0:10.0.0.1]/', 'http://[2001::1]/', 'http://nat64.example/', 'http://xlat.example/'].map((u) => policy.check(u)))).toEqual([
      'host 64:ff9b:1::a00:1 is a private address (64:ff9b:1::a00:1); refused unless allow-listed',
      'host ::ffff:0:a00:1 is a private address (::ffff:0:a00:1); refused unless allow-listed',
      'host 2001::1 is a reserved address (2001::1); refused unless allow-listed',
      'host nat64.example is a private address (64:ff9b:1::a00:1); refused unless allow-listed',
      'host xlat.example is a cloud metadata address (::ffff:0:a9fe:a9fe); refused unless allow-listed',
    ]);
    const lookup = (host: string) => new Promise<unknown>((resolve, reject) => policy.lookup(host, { all: true }, (err, address) => (err ? reject(err) : resolve(address))));
    for (const host of Object.keys(tunnels)) await expect(lookup(host)).rejects.toMatchObject({ name: 'BlockedAddressError' });
  });
});

// The config file's `networks` section and `--upstream`: the README's example loads, every bad
// entry is refused with its key named, and the plan of served networks puts the embedded chain
// where the section lists it, else after the others.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startService } from '../main.js';
import { loadConfig } from './loadConfig.js';
import { planNetworks } from './networks.js';
import { networkKey, networkNameForChainId } from './networkNames.js';

const dir = mkdtempSync(join(tmpdir(), 'tracehook-networks-'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const readmeExample = /### Networks\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1]!;

let n = 0;
const load = (yaml: string, flags: Record<string, unknown> = {}) => {
  const file = join(dir, `c${n++}.yaml`);
  writeFileSync(file, yaml);
  return loadConfig({ flags: { config: file, dataDir: join(dir, `data${n}`), ...flags }, env: {} });
};
const withNetworks = (networks: unknown) => stringify({ networks });

describe('networks config section', () => {
  it('default: the README example loads, with weight 1 where none is given', () => {
    const config = load(readmeExample);
    expect(config.networks).toEqual([
      {
        name: 'ETH_MAINNET',
        chainId: 1,
        embedded: false,
        upstreams: [
          { url: 'http://reth-1.internal:8545', weight: 2 },
          { url: 'https://eth.provider.example/v1', weight: 1, headers: { Authorization: 'Bearer replace-with-your-token' } },
        ],
      },
      { name: 'LOCAL', chainId: 31337, embedded: true, upstreams: [] },
    ]);
    expect(planNetworks(config).map((n) => `${n.kind}:${n.name}:${n.chainId}`)).toEqual(['upstream:ETH_MAINNET:1', 'embedded:LOCAL:31337']);
  });

  it('default: no networks section leaves networks undefined', () => {
    expect(load('port: 9000\n').networks).toBeUndefined();
  });

  it.each([
    [[{ name: 'A', chainId: 1, embedded: true }, { name: 'B', chainId: 1, upstreams: [{ url: 'ftp://x' }] }], 'invalid option networks[1].upstreams[0].url: must be an http(s) URL'],
    [[{ name: 'A', chainId: 1, upstreams: [{ url: 'not a url' }] }], 'invalid option networks[0].upstreams[0].url: must be an http(s) URL'],
    [[{ name: 'A', chainId: 1, upstreams: [{}] }], 'invalid option networks[0].upstreams[0].url: must be an http(s) URL'],
    [[{ name: 'A', chainId: 1, upstreams: [{ url: 'http://a', weight: 0 }] }], 'invalid option networks[0].upstreams[0].weight: must be a positive number'],
    [[{ name: 'A', chainId: 1, upstreams: [{ url: 'http://a', headers: { 'X-Key': 'a\r\nInjected: 1' } }] }], 'invalid option networks[0].upstreams[0].headers.X-Key: must not hold CR, LF or NUL'],
    [[{ name: 'A', chainId: -1, embedded: true }], 'invalid option networks[0].chainId: must be a positive integer'],
    [[{ name: 'bad name', chainId: 1, embedded: true }], 'invalid option networks[0].name: must be 1-63 letters, digits, _ or -, starting with a letter or digit'],
    [[{ name: 'A', chainId: 1 }], 'invalid option networks[0].upstreams: a network needs at least one upstream or embedded: true'],
    [[{ name: 'A', chainId: 1, embedded: true }, { name: 'a', chainId: 2, embedded: true }], 'invalid option networks[1].name: duplicate network name a'],
    [[{ name: 'ETH_MAINNET', chainId: 1, embedded: true }, { name: 'eth-mainnet', chainId: 2, embedded: true }], 'invalid option networks[1].name: duplicate network name eth-mainnet'],
    [[{ name: 'Api', chainId: 1, embedded: true }], 'invalid option networks[0].name: must not be v2, api or internal (paths of the gateway)'],
    [[{ name: 'Internal', chainId: 1, embedded: true }], 'invalid option networks[0].name: must not be v2, api or internal (paths of the gateway)'],
    [[{ name: 'A', chainId: 1, embedded: true }, { name: 'B', chainId: 2, embedded: true }], 'invalid option networks[1].embedded: only one network can be served by the embedded chain'],
    [[{ name: 'A', chainId: 1, embedded: true, upstream: [] }], 'invalid option networks[0]: Unrecognized key: "upstream"'],
    [{ name: 'A' }, 'invalid option networks: must be a list of networks'],
  ])('error: %j is refused naming its key', (networks, message) => {
    expect(() => load(withNetworks(networks))).toThrow(message);
  });

  it('behavior: the embedded chain is the section\'s embedded network where listed, else a network of its own after the others', () => {
    const plan = (networks: unknown, flags: Record<string, unknown> = {}) => planNetworks(load(withNetworks(networks), flags)).map((n) => `${n.kind}:${n.name}`);
    expect(plan([{ name: 'L', chainId: 31337, embedded: true }, { name: 'ETH_MAINNET', chainId: 1, upstreams: [{ url: 'http://a' }] }])).toEqual(['embedded:L', 'upstream:ETH_MAINNET']);
    expect(plan([{ name: 'ETH_MAINNET', chainId: 1, upstreams: [{ url: 'http://a' }] }])).toEqual(['upstream:ETH_MAINNET', 'embedded:LOCAL']);
    expect(plan([{ name: 'ETH_MAINNET', chainId: 1, upstreams: [{ url: 'http://a' }] }], { networkName: 'ETH_SEPOLIA' })).toEqual(['upstream:ETH_MAINNET', 'embedded:ETH_SEPOLIA']);
    expect(planNetworks(load('port: 9000\n')).map((n) => n.name)).toEqual(['LOCAL']);
  });

  it('behavior: --upstream makes one network named from the probed chain id, before the embedded one', () => {
    const config = load('upstream: [http://a:8545, http://b:8545]\n');
    expect(planNetworks(config, 1n)).toEqual([
      { kind: 'upstream', name: 'ETH_MAINNET', chainId: 1n, upstreams: [{ url: 'http://a:8545', weight: 1 }, { url: 'http://b:8545', weight: 1 }] },
      { kind: 'embedded', name: 'LOCAL', chainId: 31337n },
    ]);
    expect(planNetworks(config, 31337n).map((n) => n.name)).toEqual(['CHAIN_31337', 'LOCAL']);
  });

  it('args: TRACEHOOK_UPSTREAM takes comma-separated URLs, as the repeated flag does', () => {
    expect(loadConfig({ flags: { dataDir: join(dir, 'env') }, env: { TRACEHOOK_UPSTREAM: 'http://a:8545, https://b.example/v1' } }).upstream).toEqual(['http://a:8545', 'https://b.example/v1']);
  });

  it('args: chain ids with a well-known name, and the key paths compare', () => {
    expect([1n, 11155111n, 17000n, 8453n, 84532n, 10n, 42161n, 137n, 5n].map(networkNameForChainId)).toEqual([
      'ETH_MAINNET',
      'ETH_SEPOLIA',
      'ETH_HOLESKY',
      'BASE_MAINNET',
      'BASE_SEPOLIA',
      'OPT_MAINNET',
      'ARB_MAINNET',
      'MATIC_MAINNET',
      'CHAIN_5',
    ]);
    expect(['ETH_MAINNET', 'eth-mainnet', 'Eth_MainNet'].map(networkKey)).toEqual(['eth-mainnet', 'eth-mainnet', 'eth-mainnet']);
  });

  it.each([
    [[{ name: 'LOCAL', chainId: 5, embedded: true }], {}, "networks[0].chainId: 5 is not the embedded chain's chain id 31337 (the chainId option)"],
    [[{ name: 'LOCAL', chainId: 31337, embedded: true, upstreams: [{ url: 'http://a' }] }], {}, 'networks[0].upstreams: a network served by the embedded chain takes no upstreams (LOCAL has embedded: true)'],
    [[{ name: 'ETH_MAINNET', chainId: 1, upstreams: [{ url: 'http://a' }] }], { networkName: 'eth-mainnet' }, 'networkName: eth-mainnet is already the name of the upstream network ETH_MAINNET (chain 1)'],
  ])('error: %j is not served, naming the key', (networks, flags, message) => {
    expect(() => planNetworks(load(withNetworks(networks), flags))).toThrow(message);
  });

  it.each([
    ['upstream: [http://a, "ftp://user:secret@b"]\n', 'invalid option upstream[1]: must be an http(s) URL'],
    ['upstream: [http://a]\nnetworks: [{name: A, chainId: 1, upstreams: [{url: "http://b"}]}]\n', 'invalid option upstream: give upstream nodes either with upstream (--upstream) or in the networks section, not both'],
    ['networkName: "v2"\n', 'invalid option networkName: networkName must not be v2, api or internal'],
    ['networkName: "a b"\n', 'invalid option networkName: networkName must be 1-63 letters'],
    ['embeddedUpstream: "http://user:secret@owner:8545"\n', 'invalid option embeddedUpstream: embeddedUpstream is for --role gateway processes'],
    ['role: gateway\ndatabaseUrl: postgres://db/x\nembeddedUpstream: "ftp://secret@owner"\n', 'invalid option embeddedUpstream: embeddedUpstream must be an http(s) URL'],
    ['role: gateway\ndatabaseUrl: postgres://db/x\nembeddedUpstream: "http://owner:8545"\nloadState: s.json\n', 'invalid option embeddedUpstream: embeddedUpstream: forkUrl, loadState and dumpState belong to the process that owns the embedded chain'],
    ['processes: 2\n', 'invalid option processes: processes above 1 share keys, webhooks and deliveries through PostgreSQL: give --database-url'],
    ['processes: 2\ndatabaseUrl: postgres://db/x\nrole: gateway\n', 'invalid option processes: processes above 1 need --role all'],
    ['processes: 0\n', 'invalid option processes: processes must be between 1 and 64'],
  ])('error: %j is refused naming its key, never echoing a URL', (yaml, message) => {
    let thrown: Error | undefined;
    try {
      load(yaml);
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toContain(message);
    expect(thrown?.message).not.toContain('secret');
  });

  it('error: an embedded network on another chain id stops the start before the data dir is touched', async () => {
    const config = load(withNetworks([{ name: 'LOCAL', chainId: 5, embedded: true }]));
    await expect(startService(config)).rejects.toThrow("networks[0].chainId: 5 is not the embedded chain's chain id 31337");
    expect(() => readFileSync(join(config.dataDir, 'secrets.json'))).toThrow();
  });
});

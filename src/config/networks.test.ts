// The config file's `networks` section: the README's example loads, every bad entry is refused
// with its key named, and a start with upstream networks is refused as not yet served.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startService } from '../main.js';
import { loadConfig } from './loadConfig.js';
import { refuseUnservedNetworks } from './networks.js';

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
      { name: 'LOCAL', chainId: 31337, embedded: true, upstreams: [] },
      {
        name: 'ETH_MAINNET',
        chainId: 1,
        embedded: false,
        upstreams: [
          { url: 'http://reth-1.internal:8545', weight: 2 },
          { url: 'http://erigon-1.internal:8545', weight: 1 },
          { url: 'https://eth.provider.example/v1', weight: 1, headers: { Authorization: 'Bearer replace-with-your-token' } },
        ],
      },
    ]);
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
    [[{ name: 'A', chainId: 1, embedded: true }, { name: 'B', chainId: 2, embedded: true }], 'invalid option networks[1].embedded: only one network can be served by the embedded chain'],
    [[{ name: 'A', chainId: 1, embedded: true, upstream: [] }], 'invalid option networks[0]: Unrecognized key: "upstream"'],
    [{ name: 'A' }, 'invalid option networks: must be a list of networks'],
  ])('error: %j is refused naming its key', (networks, message) => {
    expect(() => load(withNetworks(networks))).toThrow(message);
  });

  it('behavior: only an embedded network on the embedded chain\'s chain id is served for now', () => {
    expect(() => refuseUnservedNetworks(undefined, 31337)).not.toThrow();
    expect(() => refuseUnservedNetworks(load(withNetworks([{ name: 'LOCAL', chainId: 31337, embedded: true }])).networks, 31337)).not.toThrow();
    expect(() => refuseUnservedNetworks(load(withNetworks([{ name: 'LOCAL', chainId: 5, embedded: true }])).networks, 31337)).toThrow(
      "networks[0].chainId: 5 is not the embedded chain's chain id 31337 (the chainId option)",
    );
  });

  it('error: a start with an upstream network is refused as not yet served, before the data dir is touched', async () => {
    const config = load(readmeExample);
    await expect(startService(config)).rejects.toThrow(
      'networks[1] (ETH_MAINNET): networks with upstreams are not yet served; this version serves only the embedded chain (embedded: true, no upstreams)',
    );
    expect(() => readFileSync(join(config.dataDir, 'secrets.json'))).toThrow();
  });
});

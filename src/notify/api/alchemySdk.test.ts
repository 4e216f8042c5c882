// The hosted provider's public SDK (alchemy-sdk, unpatched) managing webhooks against our /api: its
// `url` setting is the base its Notify namespace appends `/create-webhook` etc. to.
import { Alchemy, Network, WebhookType, type AddressActivityWebhook, type NftActivityWebhook } from 'alchemy-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { createWebhooksApi } from './webhooksApi.js';

const TOKEN = 'sdk-auth-token-0123456789';
const HOOK_URL = 'https://hooks.example.com/tracehook';
const ADDR = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const ADDR2 = '0x00000000219ab540356cBB839Cbe05303d7705Fa';
const NFT = '0x57f1887a8BF19b14fC0dF6Fd9B2acc9Af147eA85';

describe('alchemy-sdk Notify namespace against /api', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let server: RouteServer;
  let notifier: Notifier;
  let alchemy: Alchemy;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    // hooks.example.com does not resolve offline; such a URL passes creation and is checked on connect.
    notifier = createNotifier({ db });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: ['ETH_MAINNET', 'ETH_SEPOLIA'] }));
    alchemy = new Alchemy({ authToken: TOKEN, url: server.url, maxRetries: 1 });
  });
  afterAll(async () => {
    await server.close();
    await notifier.stop();
    await cleanup();
  });

  it('default: creates, lists, updates and deletes an address activity webhook', async () => {
    const created: AddressActivityWebhook = await alchemy.notify.createWebhook(HOOK_URL, WebhookType.ADDRESS_ACTIVITY, { addresses: [ADDR], network: Network.ETH_SEPOLIA });
    expect(created).toMatchObject({ network: Network.ETH_SEPOLIA, type: WebhookType.ADDRESS_ACTIVITY, url: HOOK_URL, isActive: true, version: 'V2' });
    expect(created.id).toMatch(/^wh_/);
    expect(created.signingKey).toMatch(/^whsec_/);
    expect(Number.isNaN(Date.parse(created.timeCreated))).toBe(false);

    const all = await alchemy.notify.getAllWebhooks();
    expect(all.totalCount).toBe(1);
    // Listings carry the SDK's signingKey field, but never the key itself.
    expect(all.webhooks[0]).toEqual({ ...created, signingKey: '' });

    await alchemy.notify.updateWebhook(created, { addAddresses: [ADDR2], removeAddresses: [ADDR] });
    expect(await alchemy.notify.getAddresses(created.id)).toEqual({ addresses: [ADDR2.toLowerCase()], totalCount: 1, pageKey: undefined });
    await alchemy.notify.updateWebhook(created.id, { newAddresses: [ADDR, ADDR2] });
    const firstPage = await alchemy.notify.getAddresses(created.id, { limit: 1 });
    expect(firstPage.totalCount).toBe(2);
    const secondPage = await alchemy.notify.getAddresses(created.id, { limit: 1, pageKey: firstPage.pageKey });
    expect([...firstPage.addresses, ...secondPage.addresses].sort()).toEqual([ADDR, ADDR2].map((a) => a.toLowerCase()).sort());

    await alchemy.notify.updateWebhook(created.id, { isActive: false });
    expect((await alchemy.notify.getAllWebhooks()).webhooks[0]!.isActive).toBe(false);

    await alchemy.notify.deleteWebhook(created.id);
    expect((await alchemy.notify.getAllWebhooks()).totalCount).toBe(0);
    await expect(alchemy.notify.deleteWebhook(created.id)).rejects.toThrow(/404/);
  });

  it('default: NFT activity filters round-trip through the SDK', async () => {
    const nft: NftActivityWebhook = await alchemy.notify.createWebhook(HOOK_URL, WebhookType.NFT_ACTIVITY, { filters: [{ contractAddress: NFT, tokenId: 42 }] });
    expect(nft.network).toBe(Network.ETH_MAINNET);
    await alchemy.notify.updateWebhook(nft, { addFilters: [{ contractAddress: ADDR }], removeFilters: [{ contractAddress: NFT, tokenId: '42' }] });
    expect(await alchemy.notify.getNftFilters(nft)).toEqual({ filters: [{ contractAddress: ADDR.toLowerCase() }], totalCount: 1, pageKey: undefined });
    await alchemy.notify.deleteWebhook(nft);
  });

  it('error: the SDK surfaces our 400 and 401 answers', async () => {
    await expect(alchemy.notify.createWebhook('ftp://nope', WebhookType.ADDRESS_ACTIVITY, { addresses: [ADDR] })).rejects.toThrow(/400.*webhook_url: must use http or https/);
    const wrong = new Alchemy({ authToken: 'wrong-token-0123456789', url: server.url, maxRetries: 1 });
    await expect(wrong.notify.getAllWebhooks()).rejects.toThrow(/401/);
  });
});

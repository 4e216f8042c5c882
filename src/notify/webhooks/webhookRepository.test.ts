import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toNumber, type SqlDatabase } from '../../store/sql.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { createWebhookIds } from './webhookIds.js';
import { createWebhookRepository, type WebhookRepository } from './webhookRepository.js';
import { findActiveWebhooks, findAddressSubscribers, findNftSubscribers } from './webhookSubscriptions.js';
import { signingKeysAt, type NewWebhook } from './webhookTypes.js';

const T0 = 1_700_000_000_000;
const ids = createWebhookIds();
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

function newWebhook(overrides: Partial<NewWebhook> = {}): NewWebhook {
  return {
    id: ids.webhookId(),
    network: 'ETH_MAINNET',
    type: 'ADDRESS_ACTIVITY',
    url: 'https://hooks.example/x',
    name: 'n',
    appId: null,
    signingKey: ids.signingKey(),
    graphqlQuery: null,
    skipEmptyMessages: false,
    addresses: [addr(1)],
    nftFilters: [],
    createdAt: T0,
    ...overrides,
  };
}

describe('createWebhookIds', () => {
  it('default: ids have the provider\'s shape; signing keys are Standard Webhooks secrets', () => {
    expect(ids.webhookId()).toMatch(/^wh_[a-z2-7]{16}$/);
    expect(ids.eventId()).toMatch(/^whevt_[a-z2-7]{16}$/);
    const key = ids.signingKey();
    expect(Buffer.from(key.slice(6), 'base64')).toHaveLength(24);
    const fixed = createWebhookIds((n) => new Uint8Array(n).fill(0xff));
    expect(fixed.webhookId()).toBe('wh_7777777777777777');
  });
});

for (const impl of notifyTestDatabases) {
  describe(`webhook repository (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    let repo: WebhookRepository;
    beforeEach(async () => {
      ({ db, cleanup } = await impl.open());
      repo = createWebhookRepository(db);
    });
    afterEach(async () => cleanup());

    it('default: stores and reads back a webhook with its filters', async () => {
      const w = await repo.create(newWebhook({ addresses: [addr(2).toUpperCase().replace('0X', '0x'), addr(1), addr(1)] }), 10);
      expect(w).toMatchObject({ network: 'ETH_MAINNET', type: 'ADDRESS_ACTIVITY', isActive: true, pausedAt: null, createdAt: T0, failingSince: null, previousSigningKey: null });
      expect(await repo.get(w!.id)).toEqual(w);
      expect((await repo.listAddresses(w!.id, { limit: 10 })).items).toEqual([addr(1), addr(2)]);
      expect(await repo.get('wh_missing')).toBeNull();
    });

    it('behavior: refuses to create past the limit, writing nothing', async () => {
      for (let i = 0; i < 2; i++) expect(await repo.create(newWebhook({ createdAt: T0 + i }), 2)).not.toBeNull();
      expect(await repo.create(newWebhook(), 2)).toBeNull();
      expect(await repo.list()).toHaveLength(2);
      expect(toNumber((await db.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhook_addresses'))[0]!.n)).toBe(2);
    });

    it('behavior: concurrent creates never exceed the limit', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => repo.create(newWebhook({ createdAt: T0 + i }), 5)));
      expect(results.filter((r) => r !== null)).toHaveLength(5);
      expect(await repo.list()).toHaveLength(5);
    });

    it('behavior: address updates are idempotent, bounded and paged by cursor', async () => {
      const w = (await repo.create(newWebhook(), 10))!;
      expect(await repo.updateAddresses(w.id, { add: [addr(3), addr(3), addr(2)], remove: [addr(1), addr(9)] }, 5)).toBe(2);
      expect(await repo.updateAddresses(w.id, { add: [addr(3)], remove: [] }, 5)).toBe(2);
      await expect(repo.updateAddresses(w.id, { add: [4, 5, 6, 7].map(addr), remove: [] }, 5)).rejects.toThrow('addresses: a webhook tracks at most 5 addresses (this change would make 6)');
      expect((await repo.listAddresses(w.id, { limit: 10 })).totalCount).toBe(2);
      expect(await repo.updateAddresses('wh_missing', { add: [], remove: [] }, 5)).toBeNull();
      expect(await repo.updateAddresses(w.id, { add: [addr(7)], remove: [], replace: true }, 5)).toBe(1);
      const big = Array.from({ length: 950 }, (_, i) => addr(i + 100));
      await repo.updateAddresses(w.id, { add: big, remove: [] }, 100_000);
      const pages: string[] = [];
      let after: string | null = null;
      do {
        const page = await repo.listAddresses(w.id, { limit: 400, after });
        pages.push(...page.items);
        after = page.after;
      } while (after);
      expect(pages).toEqual([addr(7), ...big].sort());
    });

    it('behavior: NFT filters keep whole-contract and per-token entries apart', async () => {
      const w = (await repo.create(newWebhook({ type: 'NFT_ACTIVITY', addresses: [], nftFilters: [{ contractAddress: addr(5), tokenId: null }, { contractAddress: addr(5), tokenId: '7' }] }), 10))!;
      await repo.updateNftFilters(w.id, { add: [{ contractAddress: addr(4), tokenId: '1' }], remove: [{ contractAddress: addr(5), tokenId: null }] }, 10);
      const first = await repo.listNftFilters(w.id, { limit: 1 });
      const rest = await repo.listNftFilters(w.id, { limit: 5, after: first.after });
      expect([...first.items, ...rest.items]).toEqual([
        { contractAddress: addr(4), tokenId: '1' },
        { contractAddress: addr(5), tokenId: '7' },
      ]);
      expect(rest.after).toBeNull();
    });

    it('behavior: rotation keeps the previous key signing until the grace period ends', async () => {
      const w = (await repo.create(newWebhook(), 10))!;
      const r = (await repo.rotateSigningKey(w.id, 'whsec_new', T0 + 100, T0))!;
      expect([r.signingKey, r.previousSigningKey, r.previousKeyExpiresAt]).toEqual(['whsec_new', w.signingKey, T0 + 100]);
      expect(signingKeysAt(r, T0 + 99)).toEqual(['whsec_new', w.signingKey]);
      expect(signingKeysAt(r, T0 + 100)).toEqual(['whsec_new']);
    });

    it('behavior: follower lookups see only active webhooks of the network and type', async () => {
      const a = (await repo.create(newWebhook({ addresses: [addr(1), addr(2)] }), 10))!;
      const off = (await repo.create(newWebhook({ addresses: [addr(1)] }), 10))!;
      await repo.create(newWebhook({ network: 'ETH_SEPOLIA', addresses: [addr(1)] }), 10);
      const nft = (await repo.create(newWebhook({ type: 'NFT_ACTIVITY', addresses: [], nftFilters: [{ contractAddress: addr(1), tokenId: '3' }] }), 10))!;
      await repo.update(off.id, { isActive: false }, T0);
      expect(await findAddressSubscribers(db, 'ETH_MAINNET', [addr(1).toUpperCase().replace('0X', '0x'), addr(2), addr(3)])).toEqual([
        { webhookId: a.id, address: addr(1) },
        { webhookId: a.id, address: addr(2) },
      ]);
      expect(await findNftSubscribers(db, 'ETH_MAINNET', [addr(1)])).toEqual([{ webhookId: nft.id, contractAddress: addr(1), tokenId: '3' }]);
      expect((await findActiveWebhooks(db, 'ETH_MAINNET')).map((w) => w.id).sort()).toEqual([a.id, nft.id].sort());
      expect((await findActiveWebhooks(db, 'ETH_MAINNET', 'NFT_ACTIVITY')).map((w) => w.id)).toEqual([nft.id]);
    });
  });
}

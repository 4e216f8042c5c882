import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hexToBytes, type Hex } from '../../rpc/hex.js';
import type { SqlDatabase } from '../../store/sql.js';
import { createManualClock } from '../clock.js';
import { silentLogger } from '../notifyLogger.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import { loadActivityFixture } from '../extract/testing/activityFixture.js';
import type { BlockData } from '../extract/blockData.js';
import { createChainFollower, type ChainFollower, type ChainFollowerOptions } from './chainFollower.js';
import { createMemoryBlockSource, type MemoryBlockSource } from './memoryBlockSource.js';
import { readCursor, requestBackfill } from './followerStore.js';
import { createTestOutbox, createTestWebhook, followerTestDatabases, notificationsOf } from './testing/followerHarness.js';

const fixture = loadActivityFixture();
const { a, b, c, d } = fixture.accounts;
const { token, nft, router1 } = fixture.contracts;
const NETWORK = 'TRACEHOOK_DEV';
const canonical = fixture.canonical;
const orphan = fixture.orphaned[0]!;
const withOrphan: BlockData[] = [...canonical.slice(0, 10), orphan];

/** Answers symbol()/decimals() from the eth_call results recorded with the blocks. */
const recordedCall = async (to: Hex, data: Hex) => {
  const calls = fixture.tokenCalls[to];
  const answer = data === '0x95d89b41' ? calls?.symbol : calls?.decimals;
  return answer ? hexToBytes(answer) : null;
};

type Activity = Record<string, unknown> & { log: Record<string, unknown> | null };

for (const impl of followerTestDatabases) {
  describe(`chain follower (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    let source: MemoryBlockSource;
    const clock = createManualClock();
    let outbox: ReturnType<typeof createTestOutbox>;
    beforeEach(async () => {
      ({ db, cleanup } = await impl.open());
      outbox = createTestOutbox(clock);
    });
    const started: ChainFollower[] = [];
    afterEach(async () => {
      // stop() also ends the Custom query worker of followers that ran GRAPHQL webhooks.
      await Promise.all(started.splice(0).map((f) => f.stop()));
      await cleanup();
    });

    const follower = (overrides: Partial<ChainFollowerOptions> = {}) => {
      const f = createChainFollower({ network: NETWORK, db, source, outbox, clock, ...overrides });
      started.push(f);
      return f;
    };

    it('default: starts after the current head and notifies only for later blocks', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 3), call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      const f = follower();
      expect(await f.syncOnce()).toEqual({ blocks: 0, reorgs: 0, retracted: 0, backfilled: 0, events: 0 });
      expect(f.cursor()).toEqual({ number: 2n, hash: canonical[2]!.header.hash });
      for (const block of canonical.slice(3, 5)) source.append(block);
      expect(await f.syncOnce()).toMatchObject({ blocks: 2, events: 2 });
      const sent = await notificationsOf(db, watcher.id);
      expect(sent.map((n) => (n.body.event.activity as Activity[]).map((x) => [x.blockNum, x.category, x.toAddress]))).toEqual([
        [['0x3', 'token', b]],
        [['0x4', 'internal', b]],
      ]);
      expect(await readCursor(db, NETWORK)).toEqual({ number: 4n, hash: canonical[4]!.header.hash });
      expect(outbox.wakes).toBe(2);
    });

    it('behavior: with no webhook the cursor passes blocks without reading them; a webhook made later is notified of the next blocks', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 2), call: recordedCall });
      const f = follower();
      await f.syncOnce();
      for (const block of canonical.slice(2, 5)) source.append(block);
      expect(await f.syncOnce()).toMatchObject({ blocks: 3, events: 0 });
      expect(source.blocksRead()).toBe(0);
      expect(await readCursor(db, NETWORK)).toEqual({ number: 4n, hash: canonical[4]!.header.hash });
      // An inactive webhook wants nothing either.
      const paused = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      await createWebhookRepository(db).update(paused.id, { isActive: false }, clock.now());
      source.append(canonical[5]!);
      expect(await f.syncOnce()).toMatchObject({ blocks: 1, events: 0 });
      expect(source.blocksRead()).toBe(0);
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      source.append(canonical[6]!);
      expect(await f.syncOnce()).toMatchObject({ blocks: 1, events: 1 });
      expect((await notificationsOf(db, watcher.id)).map((n) => (n.body.event.activity as Activity[])[0]!.blockNum)).toEqual(['0x6']);
    });

    it('behavior: a reorg of quietly passed blocks finds its common ancestor among them', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 2), call: recordedCall });
      const errors: string[] = [];
      const f = follower({ logger: { ...silentLogger, error: (_fields, message) => errors.push(message) } });
      await f.syncOnce();
      for (const block of canonical.slice(2, 11)) source.append(block);
      expect(await f.syncOnce()).toMatchObject({ blocks: 9 });
      source.setChain(withOrphan);
      expect(await f.syncOnce()).toEqual({ blocks: 1, reorgs: 1, retracted: 0, backfilled: 0, events: 0 });
      expect(f.cursor()).toEqual({ number: 10n, hash: orphan.header.hash });
      expect(source.blocksRead()).toBe(0);
      // Found among the recorded blocks, not given up on as deeper than the retention window.
      expect(errors).toEqual([]);
    });

    it('behavior: one ADDRESS_ACTIVITY notification per block with every activity of the watched address', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 10), call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b.toUpperCase().replace('0X', '0x')] });
      await follower({ startAt: 2n }).syncOnce();
      const sent = await notificationsOf(db, watcher.id);
      expect(sent.map((n) => n.body.event.activity as Activity[]).map((list) => list.map((x) => `${x.blockNum}:${x.category}:${x.typeTraceAddress ?? ''}`))).toEqual([
        ['0x2:external:'],
        ['0x3:token:'],
        ['0x4:internal:call_0'],
        ['0x6:internal:call_0_0'],
        ['0x7:erc721:', '0x7:erc721:', '0x7:erc721:'],
        ['0x8:erc1155:'],
      ]);
      const first = sent[0]!;
      expect(first.type).toBe('ADDRESS_ACTIVITY');
      expect(first.body).toEqual({
        webhookId: watcher.id,
        id: expect.stringMatching(/^whevt_[a-z2-7]{16}$/),
        createdAt: new Date(clock.now()).toISOString(),
        type: 'ADDRESS_ACTIVITY',
        event: {
          network: NETWORK,
          activity: [
            {
              fromAddress: a,
              toAddress: b,
              blockNum: '0x2',
              hash: canonical[2]!.transactions[0]!.hash,
              value: 1.5,
              asset: 'ETH',
              category: 'external',
              rawContract: { rawValue: '0x14d1120d7b160000', address: null, decimals: 18 },
              erc721TokenId: null,
              erc1155Metadata: null,
              typeTraceAddress: null,
              log: null,
            },
          ],
        },
      });
      const tokenActivity = (sent[1]!.body.event.activity as Activity[])[0]!;
      expect(tokenActivity).toMatchObject({ value: 1.234567, asset: 'ATK', rawContract: { address: token, decimals: 6 } });
      expect(tokenActivity.log).toMatchObject({ address: token, blockHash: canonical[3]!.header.hash, removed: false });
    });

    it('behavior: NFT_ACTIVITY and GRAPHQL webhooks get their own payloads; empty Custom results are skipped on request', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 10), call: recordedCall });
      const nftHook = await createTestWebhook(db, { type: 'NFT_ACTIVITY', nftFilters: [{ contractAddress: nft, tokenId: '7' }] });
      const everyNft = await createTestWebhook(db, { type: 'NFT_ACTIVITY', nftFilters: [{ contractAddress: '*', tokenId: null }] });
      const query = `{ block { number logs(filter: {addresses: ["${token}"]}) { transaction { hash } } } }`;
      const custom = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: query });
      const customSkip = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: query, skipEmptyMessages: true });
      await follower({ startAt: 2n }).syncOnce();
      const nftSent = await notificationsOf(db, nftHook.id);
      expect(nftSent).toHaveLength(1);
      expect((nftSent[0]!.body.event.activity as Activity[]).map((x) => [x.fromAddress, x.toAddress, x.contractAddress, x.erc721TokenId, x.category])).toEqual([
        ['0x0000000000000000000000000000000000000000', a, nft, '0x7', 'erc721'],
        [a, b, nft, '0x7', 'erc721'],
      ]);
      // The '*' contract follows every NFT of the network: 4 ERC-721 then 5 ERC-1155 transfers.
      const every = (await notificationsOf(db, everyNft.id)).map((n) => (n.body.event.activity as Activity[]).map((x) => x.category));
      expect(every).toEqual([['erc721', 'erc721', 'erc721', 'erc721'], ['erc1155', 'erc1155', 'erc1155', 'erc1155', 'erc1155']]);
      const all = await notificationsOf(db, custom.id);
      expect(all.map((n) => [n.body.event.sequenceNumber, (n.body.event.data as { block: { number: number } }).block.number])).toEqual(
        [2, 3, 4, 5, 6, 7, 8, 9].map((block, i) => [String(i + 1), block]),
      );
      expect(all[1]!.body.event).toEqual({
        data: { block: { number: 3, logs: canonical[3]!.transactions.map((t) => ({ transaction: { hash: t.hash } })) } },
        sequenceNumber: '2',
        network: NETWORK,
      });
      expect((await notificationsOf(db, customSkip.id)).map((n) => n.body.event.sequenceNumber)).toEqual(['1']);
    });

    it('behavior: a reorg retracts what was sent for the dropped block before the new branch', async () => {
      source = createMemoryBlockSource({ blocks: withOrphan, call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [d, c] });
      const custom = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { hash number } }' });
      const f = follower({ startAt: 9n });
      await f.syncOnce();
      source.setChain(canonical);
      expect(await f.syncOnce()).toEqual({ blocks: 2, reorgs: 1, retracted: 2, backfilled: 0, events: 4 });
      const sent = await notificationsOf(db, watcher.id);
      const summary = sent.map((n) => (n.body.event.activity as Activity[]).map((x) => ({ block: x.blockNum, to: x.toAddress, removed: x.removed ?? false, logRemoved: x.log?.removed ?? null })));
      expect(summary).toEqual([
        [
          { block: '0xa', to: d, removed: false, logRemoved: null },
          { block: '0xa', to: d, removed: false, logRemoved: false },
        ],
        [
          { block: '0xa', to: d, removed: true, logRemoved: null },
          { block: '0xa', to: d, removed: true, logRemoved: true },
        ],
        [{ block: '0xa', to: c, removed: false, logRemoved: null }],
        [{ block: '0xb', to: d, removed: false, logRemoved: false }],
      ]);
      // The retraction repeats the activity as sent, apart from the removed flags.
      const [original, retraction] = sent as [(typeof sent)[0], (typeof sent)[0]];
      const strip = (list: Activity[]) => list.map(({ removed: _r, log, ...rest }) => ({ ...rest, log: log ? { ...log, removed: false } : null }));
      expect(strip(retraction.body.event.activity as Activity[])).toEqual(original.body.event.activity);
      expect((retraction.body.event.activity as Activity[])[1]!.log).toMatchObject({ blockHash: orphan.header.hash, transactionHash: orphan.transactions[1]!.hash });
      const customSent = await notificationsOf(db, custom.id);
      expect(customSent.map((n) => n.body.event)).toEqual([
        { data: { block: { hash: canonical[9]!.header.hash, number: 9 } }, sequenceNumber: '1', network: NETWORK },
        { data: { block: { hash: orphan.header.hash, number: 10 } }, sequenceNumber: '2', network: NETWORK },
        { data: { block: { hash: orphan.header.hash, number: 10 } }, sequenceNumber: '3', network: NETWORK, removed: true },
        { data: { block: { hash: canonical[10]!.header.hash, number: 10 } }, sequenceNumber: '4', network: NETWORK },
        { data: { block: { hash: canonical[11]!.header.hash, number: 11 } }, sequenceNumber: '5', network: NETWORK },
      ]);
      expect(f.cursor()).toEqual({ number: 11n, hash: canonical[11]!.header.hash });
    });

    it('behavior: a rewind with no new block (evm_revert) retracts at once', async () => {
      source = createMemoryBlockSource({ blocks: withOrphan, call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [d] });
      const f = follower({ startAt: 10n });
      await f.syncOnce();
      source.setChain(canonical.slice(0, 10));
      expect(await f.syncOnce()).toMatchObject({ blocks: 0, reorgs: 1, retracted: 1 });
      expect(f.cursor()).toEqual({ number: 9n, hash: canonical[9]!.header.hash });
      const sent = await notificationsOf(db, watcher.id);
      expect(sent.map((n) => (n.body.event.activity as Activity[]).map((x) => x.removed ?? false))).toEqual([
        [false, false],
        [true, true],
      ]);
      // Nothing is retracted twice, and nothing more happens until the chain moves.
      expect(await f.syncOnce()).toEqual({ blocks: 0, reorgs: 0, retracted: 0, backfilled: 0, events: 0 });
    });

    it('behavior: a restart resumes at the next block; a crash inside a block commits nothing of it', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 6), call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b, c] });
      await follower({ startAt: 2n }).syncOnce();
      for (const block of canonical.slice(6, 12)) source.append(block);
      // The outbox fails while block 7 is being written: the whole block rolls back.
      let calls = 0;
      const failing = { ...outbox, appendEvents: async (...args: Parameters<typeof outbox.appendEvents>) => (++calls === 2 ? Promise.reject(new Error('disk full')) : outbox.appendEvents(...args)) };
      await expect(follower({ outbox: failing }).syncOnce()).rejects.toThrow('disk full');
      expect(await readCursor(db, NETWORK)).toEqual({ number: 6n, hash: canonical[6]!.header.hash });
      // A fresh process (new follower, same store) resumes at 7.
      const restarted = follower();
      expect(await restarted.syncOnce()).toMatchObject({ blocks: 5, reorgs: 0 });
      const blocks = (await notificationsOf(db, watcher.id)).map((n) => (n.body.event.activity as Activity[])[0]!.blockNum);
      expect(blocks).toEqual(['0x2', '0x3', '0x4', '0x5', '0x6', '0x7', '0x8', '0xa']);
    });

    it('behavior: confirmation depth holds blocks back until they are deep enough', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 5), call: recordedCall });
      await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      const f = follower({ startAt: 2n, confirmations: 2 });
      expect(await f.syncOnce()).toMatchObject({ blocks: 1 });
      expect(f.cursor()!.number).toBe(2n);
      source.append(canonical[5]!);
      expect(await f.syncOnce()).toMatchObject({ blocks: 1 });
      expect(f.cursor()!.number).toBe(3n);
    });

    it('behavior: addresses added between blocks apply from the next block; removed ones stop', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 4), call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      const repo = createWebhookRepository(db);
      const f = follower({ startAt: 2n });
      await f.syncOnce();
      await repo.updateAddresses(watcher.id, { add: [c], remove: [b] }, Infinity);
      source.append(canonical[4]!);
      await f.syncOnce();
      const sent = await notificationsOf(db, watcher.id);
      expect(sent.map((n) => (n.body.event.activity as Activity[]).map((x) => `${x.blockNum}:${x.toAddress}`))).toEqual([[`0x2:${b}`], [`0x3:${b}`], [`0x4:${c}`]]);
    });

    it('behavior: a backfill from a past block sends history in order, then live blocks, each once', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 7), call: recordedCall });
      const f = follower({ startAt: 6n });
      await f.syncOnce();
      const late = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [router1] });
      await db.transaction((tx) => requestBackfill(tx, { webhookId: late.id, network: NETWORK, fromBlock: 2n, nowMs: clock.now() }));
      source.append(canonical[7]!);
      expect(await f.syncOnce()).toMatchObject({ blocks: 1, backfilled: 6 });
      source.append(canonical[8]!);
      source.append(canonical[9]!);
      await f.syncOnce();
      const blocks = (await notificationsOf(db, late.id)).map((n) => (n.body.event.activity as Activity[])[0]!.blockNum);
      // router1 appears in blocks 4, 5, 6 (and 9, a failed call that moved nothing).
      expect(blocks).toEqual(['0x4', '0x5', '0x6']);
      const custom = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number } }' });
      await db.transaction((tx) => requestBackfill(tx, { webhookId: custom.id, network: NETWORK, fromBlock: 7n, nowMs: clock.now() }));
      source.append(canonical[10]!);
      await f.syncOnce();
      source.append(canonical[11]!);
      await f.syncOnce();
      const numbers = (await notificationsOf(db, custom.id)).map((n) => (n.body.event.data as { block: { number: number } }).block.number);
      expect(numbers).toEqual([7, 8, 9, 10, 11]);
    });

    it('args: retainBlocks bounds the kept rows; a reorg deeper than that still resumes on the new chain', async () => {
      source = createMemoryBlockSource({ blocks: withOrphan, call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b, c, d] });
      const f = follower({ startAt: 2n, retainBlocks: 1 });
      await f.syncOnce();
      const kept = await db.query<{ block_number: unknown }>('SELECT block_number FROM follower_blocks WHERE network = $1 ORDER BY block_number', [NETWORK]);
      expect(kept.map((r) => Number(r.block_number))).toEqual([10]);
      const sentRows = await db.query<{ block_number: unknown }>('SELECT DISTINCT block_number FROM follower_deliveries WHERE network = $1', [NETWORK]);
      expect(sentRows.map((r) => Number(r.block_number))).toEqual([10]);
      source.setChain(canonical);
      expect(await f.syncOnce()).toMatchObject({ reorgs: 1, retracted: 1, blocks: 2 });
      const last = (await notificationsOf(db, watcher.id)).slice(-3).map((n) => (n.body.event.activity as Activity[]).map((x) => `${x.blockNum}:${x.toAddress}:${x.removed ?? false}`));
      expect(last).toEqual([[`0xa:${d}:true`, `0xa:${d}:true`], [`0xa:${c}:false`], [`0xb:${d}:false`]]);
    });

    it('behavior: blocks before genesis are not needed: startAt 0 processes genesis first', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 3), call: recordedCall });
      const custom = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number parent { number } } }' });
      await follower({ startAt: 0n }).syncOnce();
      expect((await notificationsOf(db, custom.id)).map((n) => n.body.event.data)).toEqual([
        { block: { number: 0, parent: null } },
        { block: { number: 1, parent: { number: 0 } } },
        { block: { number: 2, parent: { number: 1 } } },
      ]);
    });

    it('error: two followers on one network never both write a block', async () => {
      source = createMemoryBlockSource({ blocks: canonical.slice(0, 3), call: recordedCall });
      const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      const first = follower({ startAt: 2n });
      const second = follower({ startAt: 2n });
      await first.syncOnce();
      await second.syncOnce();
      source.append(canonical[3]!);
      await first.syncOnce();
      await expect(second.syncOnce()).rejects.toThrow('moved by another process');
      // After the conflict the second one reloads the cursor and carries on without duplicates.
      source.append(canonical[4]!);
      await second.syncOnce();
      await first.syncOnce().catch(() => undefined);
      const blocks = (await notificationsOf(db, watcher.id)).map((n) => (n.body.event.activity as Activity[])[0]!.blockNum);
      expect(blocks).toEqual(['0x2', '0x3', '0x4']);
    });

    it('behavior: catching up over thousands of empty blocks gives the event loop back every few ms', async () => {
      // anvil_mine of thousands of blocks: the follower finds them all at once.
      const blocks: BlockData[] = [canonical[0]!];
      const count = impl.name === 'sqlite' ? 1500 : 150; // PostgreSQL answers over a socket: slower, and it yields anyway
      for (let n = 1; n <= count; n++) {
        const parent = blocks[n - 1]!.header;
        const hash = `0x${n.toString(16).padStart(64, 'e')}` as Hex;
        blocks.push({ header: { ...parent, number: `0x${n.toString(16)}`, hash, parentHash: parent.hash }, transactions: [], receipts: [], callFrames: [] });
      }
      source = createMemoryBlockSource({ blocks, call: recordedCall });
      // A webhook, so every block goes the whole way (with none they pass quietly, in a few tens of ms).
      await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b] });
      const f = follower({ startAt: 0n });
      let ticks = 0;
      let longestGapMs = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        longestGapMs = Math.max(longestGapMs, now - last);
        last = now;
        ticks++;
      }, 1);
      const startedAt = performance.now();
      try {
        expect(await f.syncOnce()).toMatchObject({ blocks: count + 1 });
      } finally {
        clearInterval(timer);
      }
      const tookMs = performance.now() - startedAt;
      // Before, the whole catch-up was promise callbacks: no timer ran until it ended.
      expect(ticks, `${ticks} ticks in ${tookMs.toFixed(0)} ms`).toBeGreaterThan(10);
      expect(longestGapMs).toBeLessThan(Math.max(100, tookMs / 5));
      expect(f.cursor()?.number).toBe(BigInt(count));
    });
  });
}

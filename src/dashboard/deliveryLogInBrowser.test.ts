// The delivery log and replay used as a person would, in Debian's Chromium against a real
// `tracehook start` whose retry window is shortened with --webhook-retry-window-sec: a listener
// answering 500 leaves events failed past the window, every attempt shows its request headers, the
// body and the answer; one event and then all failed events are replayed from the page and arrive;
// the log filters by status, pages 20 at a time and is live; the URL, the addresses and an NFT
// webhook's filters are edited in place; Test Webhook gives up at --webhook-timeout-ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { startTestListener } from '../notify/testing/testListener.js';
import { ACCOUNT1, ACCOUNT2, LAPTOP, PHONE, cutOffAtRight, startDashboardHarness, type DashboardHarness } from './testing/dashboardHarness.js';

let h: DashboardHarness;
let healthy = false;
let webhookId: string;
let log: Locator;
/** The event rows of the log (each has its open/close button), without the opened details. */
let eventRows: Locator;

const eventIds = async () => ((await h.api('GET', `/webhook-events?webhook_id=${webhookId}&limit=100`)).json.data as { event_id: string; status: string }[]);

beforeAll(async () => {
  h = await startDashboardHarness({
    args: ['--webhook-retry-window-sec', '2', '--webhook-timeout-ms', '1000'],
    respond: () => (healthy ? { status: 200, body: '{"received":true}' } : { status: 500, body: 'listener database down' }),
  });
  await h.signIn();
  log = h.page.getByTestId('delivery-log');
  eventRows = log.locator('tbody > tr:has(button[aria-expanded])');
}, 120_000);

afterAll(async () => h?.close());

describe('delivery log in Chromium', { timeout: 60_000 }, () => {
  it('error: a listener answering 500 past the retry window leaves the events failed; each attempt shows the request headers as sent, the body and the answer', async () => {
    const created = await h.api('POST', '/create-webhook', { network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: h.listener.url, addresses: [ACCOUNT2], name: 'flaky listener' });
    expect(created.status).toBe(200);
    webhookId = (created.json.data as { id: string }).id;
    await h.send({ to: ACCOUNT2, value: '0x1' });
    await h.send({ to: ACCOUNT2, value: '0x2' });
    await h.page.goto(`${h.service.baseUrl}/#/webhooks/${webhookId}`);
    await h.page.getByRole('heading', { name: 'flaky listener' }).waitFor();
    // Two seconds of retries, then failed: the list shows it without a reload.
    await expect.poll(() => eventRows.filter({ hasText: 'failed' }).count(), { timeout: 30_000 }).toBe(2);
    await eventRows.first().getByRole('button', { expanded: false }).click();
    const detail = h.page.getByTestId('event-detail');
    const attempts = detail.getByTestId('attempt');
    await expect.poll(() => attempts.count()).toBeGreaterThanOrEqual(2);
    const body = (await detail.getByTestId('body-sent').textContent())!;
    const eventId = (JSON.parse(body) as { id: string }).id;
    for (const attempt of await attempts.all()) {
      expect(await attempt.textContent()).toMatch(/HTTP 500/);
      expect(await attempt.getByTestId('answer').textContent()).toBe('listener database down');
      const lines = (await attempt.getByTestId('request-headers').textContent())!.split('\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
      expect(Object.keys(headers)).toEqual(expect.arrayContaining(['Content-Type', 'User-Agent', 'X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']));
      expect(headers['webhook-id']).toBe(eventId);
      expect(headers['X-Service-Signature']).toMatch(/^[0-9a-f]{64}$/);
      // Exactly what one request the listener received carried, and that request's body is the one shown.
      const received = h.listener.requests.find((r) => r.headers['webhook-id'] === eventId && r.headers['webhook-timestamp'] === headers['webhook-timestamp'])!;
      expect(received.body).toBe(body);
      for (const [name, value] of Object.entries(headers)) expect([name, received.headers[name.toLowerCase()]]).toEqual([name, value]);
    }
    await h.shot('delivery-log-failed');
    // On a phone the attempts stack and nothing is cut off at the right.
    await h.page.setViewportSize(PHONE);
    expect(await cutOffAtRight(h.page)).toEqual([]);
    await h.shot('delivery-log-failed-phone');
    await h.page.setViewportSize(LAPTOP);
  });

  it('behavior: the failed filter lists only failed events; replaying one from the page delivers it, and its open attempt list shows the 200 live', async () => {
    healthy = true;
    await h.page.getByLabel('Status').selectOption('failed');
    await expect.poll(() => eventRows.count()).toBe(2);
    await h.page.getByLabel('Status').selectOption('succeeded');
    await h.page.getByText('No succeeded events.').waitFor();
    await h.page.getByLabel('Status').selectOption('');
    await expect.poll(() => eventRows.count()).toBe(2);
    // The event opened above stays open across filters.
    expect(await eventRows.first().getByRole('button', { expanded: true }).count()).toBe(1);
    const attempts = h.page.getByTestId('event-detail').getByTestId('attempt');
    // A failed event has at least one attempt: count them once the reopened detail has loaded them.
    await expect.poll(() => attempts.count()).toBeGreaterThan(0);
    const before = await attempts.count();
    await eventRows.first().getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => attempts.first().textContent(), { timeout: 15_000 }).toMatch(/HTTP 200.*succeeded/);
    expect(await attempts.count()).toBe(before + 1);
    expect(await attempts.first().getByTestId('answer').textContent()).toBe('{"received":true}');
    // The list itself refreshes every 3 s.
    await expect.poll(() => eventRows.first().textContent(), { timeout: 10_000 }).toContain('succeeded');
    expect(await eventRows.nth(1).textContent()).toContain('failed');
    await h.shot('delivery-log-replayed-one');
  });

  it('behavior: Replay all failed sends every failed event again and none is left failed', async () => {
    await h.page.getByRole('button', { name: 'Replay all failed' }).click();
    await h.page.getByText('1 failed event queued again.').waitFor();
    await expect.poll(() => eventRows.filter({ hasText: 'succeeded' }).count(), { timeout: 15_000 }).toBe(2);
    const events = await eventIds();
    expect(events.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    const delivered = new Set(h.listener.requests.filter((r) => r.status === 200).map((r) => r.headers['webhook-id']));
    expect(events.every((e) => delivered.has(e.event_id))).toBe(true);
    await h.page.getByLabel('Status').selectOption('failed');
    await h.page.getByText('No failed events.').waitFor();
    await h.page.getByLabel('Status').selectOption('');
  });

  it('behavior: new events appear on the live first page; the log pages 20 at a time, newest first', async () => {
    await expect.poll(() => eventRows.count()).toBe(2);
    // Close the opened event so only event rows are counted.
    const opened = log.getByRole('button', { expanded: true });
    if (await opened.count()) await opened.click();
    for (let i = 0; i < 21; i++) expect((await h.api('POST', '/send-test-webhook', { webhook_id: webhookId })).status).toBe(200);
    await expect.poll(() => eventRows.count(), { timeout: 15_000 }).toBe(20);
    expect(await h.page.getByText('Live: refreshed every 3 s.').isVisible()).toBe(true);
    const sequences = (await eventIds()).map((e) => e.event_id);
    expect(sequences).toHaveLength(23);
    expect(await eventRows.first().textContent()).toContain(sequences[0]!.slice(0, 18));
    await h.page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => eventRows.count()).toBe(3);
    expect(await eventRows.last().textContent()).toContain(sequences[22]!.slice(0, 18));
    expect(await h.page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    expect(await h.page.getByText('Live: refreshed every 3 s.').count()).toBe(0);
    await h.page.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(() => eventRows.count()).toBe(20);
    await h.shot('delivery-log-paged');
  });

  it('error: the URL and the addresses are edited in place; a bad URL and a bad address line are refused at their fields and change nothing', async () => {
    const saved = async () => ((await h.api('GET', '/team-webhooks')).json.data as { id: string; webhook_url: string }[]).find((w) => w.id === webhookId)!.webhook_url;
    const url = h.page.getByLabel('Webhook URL');
    await url.fill('ftp://127.0.0.1/hook');
    await h.page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => h.page.locator('#edit-url-error').textContent()).toMatch(/http/);
    expect(await saved()).toBe(h.listener.url);
    await url.fill(`${h.listener.url}?edited=1`);
    await h.page.getByRole('button', { name: 'Save' }).click();
    await h.page.getByText('Saved.').waitFor();
    expect(await saved()).toBe(`${h.listener.url}?edited=1`);

    const add = h.page.getByLabel('Add addresses');
    await add.fill(`${ACCOUNT1}\n0xnope`);
    await expect.poll(() => h.page.locator('#addr-add-bad').textContent()).toMatch(/line 2: 0xnope/);
    expect(await h.page.getByRole('button', { name: 'Update addresses' }).isDisabled()).toBe(true);
    await add.fill(ACCOUNT1);
    await h.page.getByRole('button', { name: 'Update addresses' }).click();
    await h.page.getByText('Added 1, removed 0.').waitFor();
    await h.page.getByLabel('Remove addresses').fill(ACCOUNT2);
    await h.page.getByRole('button', { name: 'Update addresses' }).click();
    await h.page.getByText('Added 0, removed 1.').waitFor();
    await expect.poll(() => h.page.getByTestId('addresses').textContent()).toBe(ACCOUNT1);
    expect((await h.api('GET', `/webhook-addresses?webhook_id=${webhookId}`)).json.data).toEqual([ACCOUNT1]);
  });

  it('error: an NFT Activity webhook\'s filters are shown and edited in place; a bad line is refused at its field', async () => {
    const NFT = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
    const created = await h.api('POST', '/create-webhook', { network: 'LOCAL', webhook_type: 'NFT_ACTIVITY', webhook_url: h.listener.url, nft_filters: [{ contract_address: NFT, token_id: '7' }], name: 'nft filters' });
    const id = (created.json.data as { id: string }).id;
    await h.page.goto(`${h.service.baseUrl}/#/webhooks/${id}`);
    await expect.poll(() => h.page.getByTestId('nft-filters').textContent()).toBe(`${NFT},7`);
    // Straight from the other webhook's page: its forms hold this webhook's values, not the last one's.
    expect([await h.page.getByLabel('Webhook URL').inputValue(), await h.page.getByLabel('Name', { exact: true }).inputValue()]).toEqual([h.listener.url, 'nft filters']);
    expect(await h.page.getByText('Saved.').count()).toBe(0);
    const add = h.page.getByLabel(/^Add filters/);
    await add.fill(`${NFT},8\n${NFT},eight`);
    await expect.poll(() => h.page.locator('#nft-add-bad').textContent()).toMatch(/line 2: .*token id is not a decimal or 0x number/);
    expect(await h.page.getByRole('button', { name: 'Update filters' }).isDisabled()).toBe(true);
    await add.fill(`${NFT},8`);
    await h.page.getByLabel('Remove filters').fill(`${NFT},7`);
    await h.page.getByRole('button', { name: 'Update filters' }).click();
    await h.page.getByText('Added 1, removed 1.').waitFor();
    await expect.poll(() => h.page.getByTestId('nft-filters').textContent()).toBe(`${NFT},8`);
    expect((await h.api('GET', `/webhook-nft-filters?webhook_id=${id}`)).json.data).toEqual([{ contract_address: NFT, token_id: '8' }]);
    await h.shot('webhook-detail-nft');
  });

  it('error: Test Webhook against a listener slower than --webhook-timeout-ms says it timed out; nothing is saved', async () => {
    const slow = await startTestListener(() => ({ status: 200, delayMs: 3_000 }));
    try {
      const url = h.page.getByLabel('Webhook URL');
      const before = await url.inputValue();
      await url.fill(slow.url);
      await h.page.getByRole('button', { name: 'Test Webhook' }).click();
      const result = h.page.getByTestId('test-result');
      await expect.poll(() => result.textContent(), { timeout: 5_000 }).toMatch(/^No answer: timed out after 1000 ms/);
      expect(await result.locator('.error').count()).toBe(1);
      expect(slow.requests).toHaveLength(1);
      await url.fill(before);
      const saved = (await h.api('GET', '/team-webhooks')).json.data as { webhook_url: string }[];
      expect(saved.some((w) => w.webhook_url === slow.url)).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it('default: no script error and no Content-Security-Policy violation on any page visited above', () => {
    expect(h.pageErrors).toEqual([]);
  });
});

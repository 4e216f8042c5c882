// How long the main pages take to load in Debian's Chromium, at a laptop's and a phone's width,
// each from a blank tab to its content on screen (the data from the API included), with a
// screenshot of each (.screenshots/<page>-<laptop|phone>.png), every field labelled, and on the
// phone nothing cut off at the right (no sideways scroll of the page or of a table).
// The figures are printed; the bound is generous for two shared cores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { ACCOUNT1, LAPTOP, PHONE, cutOffAtRight, startDashboardHarness, type DashboardHarness } from './testing/dashboardHarness.js';

const LOAD_BOUND_MS = 2_000;

let h: DashboardHarness;
let webhookId: string;

interface MainPage {
  name: string;
  hash: string;
  /** What shows the page is usable: its content, not a spinner. */
  ready(page: Page): Locator;
}

const pages: MainPage[] = [
  { name: 'sign-in', hash: '', ready: (p) => p.getByLabel('Auth token') },
  { name: 'webhooks', hash: '#/webhooks', ready: (p) => p.getByRole('link', { name: 'load-test listener' }) },
  { name: 'webhook-detail', hash: '', ready: (p) => p.getByTestId('delivery-log').getByText('succeeded') },
  { name: 'webhook-create', hash: '#/webhooks/new', ready: (p) => p.getByLabel('Webhook URL') },
  { name: 'keys', hash: '#/keys', ready: (p) => p.getByTestId('keys').locator('tbody tr').first() },
  { name: 'trace-explorer', hash: '#/trace', ready: (p) => p.getByLabel('Transaction hash') },
];

beforeAll(async () => {
  h = await startDashboardHarness();
  const created = await h.api('POST', '/create-webhook', { network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: h.listener.url, addresses: [ACCOUNT1], name: 'load-test listener' });
  webhookId = (created.json.data as { id: string }).id;
  pages.find((p) => p.name === 'webhook-detail')!.hash = `#/webhooks/${webhookId}`;
  await h.send({ to: ACCOUNT1, value: '0x1' });
  await h.listener.waitFor((rs) => rs.some((r) => r.status === 200), 20_000);
}, 120_000);

afterAll(async () => h?.close());

async function measure(page: Page, target: MainPage): Promise<{ readyMs: number; loadEventMs: number; kib: number }> {
  await page.goto('about:blank');
  const started = Date.now();
  await page.goto(`${h.service.baseUrl}/${target.hash}`);
  await target.ready(page).waitFor();
  const readyMs = Date.now() - started;
  const loadEventMs = (await page.evaluate('Math.round(performance.getEntriesByType("navigation")[0].loadEventEnd)')) as number;
  const bytes = (await page.evaluate('performance.getEntriesByType("resource").reduce((n, r) => n + r.transferSize, 0) + performance.getEntriesByType("navigation")[0].transferSize')) as number;
  return { readyMs, loadEventMs, kib: Math.round(bytes / 102.4) / 10 };
}

describe('page load in Chromium', { timeout: 90_000 }, () => {
  for (const [size, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    it(`behavior: each main page is usable within ${LOAD_BOUND_MS} ms at ${size} width (${viewport.width} px), with a screenshot${size === 'phone' ? ' and nothing cut off at the right' : ''}`, async () => {
      const { context, page } = await h.newPage(viewport);
      const figures: string[] = [];
      try {
        for (const target of pages) {
          if (target.name === 'webhooks') await h.signIn(page);
          const m = await measure(page, target);
          figures.push(`${target.name} ${m.readyMs} ms (load event ${m.loadEventMs} ms, ${m.kib} KiB)`);
          await h.shot(`${target.name}-${size}`, page);
          expect(m.readyMs, `${target.name} at ${size} width`).toBeLessThan(LOAD_BOUND_MS);
          // Every field has a label and every button a name a screen reader can say.
          const unnamed = await page.evaluate(`[...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => el.type !== 'hidden' && !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
            .map((el) => el.outerHTML.slice(0, 80))`);
          expect([target.name, unnamed]).toEqual([target.name, []]);
          if (size === 'phone') {
            expect([target.name, await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')]).toEqual([target.name, true]);
            // Nor inside a scrolled box: every cell, link, button and field is in view across.
            expect([target.name, await cutOffAtRight(page)]).toEqual([target.name, []]);
          }
        }
      } finally {
        console.log(`page load at ${size} width (${viewport.width}x${viewport.height}), blank tab to content: ${figures.join('; ')}`);
        await context.close();
      }
    });
  }

  it('default: no script error and no Content-Security-Policy violation on any page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});

// The webhook list: type, network, URL, active or paused, last delivery status and time, and how
// many recent events failed (from each webhook's event log). Polled every 5 s.
import { get, query } from './api';
import { TYPE_LABELS, statusClass, timeAgo } from './format';
import { usePoll } from './usePoll';
import type { Page, Webhook, WebhookEvent } from './types';

interface Row {
  webhook: Webhook;
  last?: WebhookEvent;
  failed: number;
}

async function loadRows(): Promise<Row[]> {
  const webhooks = (await get<{ data: Webhook[] }>('/team-webhooks')).data;
  return Promise.all(
    webhooks.map(async (webhook) => {
      const [last, failed] = await Promise.all([
        get<Page<WebhookEvent>>(`/webhook-events${query({ webhook_id: webhook.id, limit: 1 })}`),
        get<Page<WebhookEvent>>(`/webhook-events${query({ webhook_id: webhook.id, status: 'failed', limit: 100 })}`),
      ]);
      return { webhook, last: last.data[0], failed: failed.data.length };
    }),
  );
}

export function WebhooksPage() {
  const rows = usePoll(loadRows, 5000);
  return (
    <>
      <div class="row">
        <h1>Webhooks</h1>
        <a class="button primary" href="#/webhooks/new">
          New webhook
        </a>
      </div>
      {rows.error && <p class="error">{rows.error}</p>}
      {rows.data && rows.data.length === 0 && (
        <p class="empty">
          No webhooks yet. <a href="#/webhooks/new">Create one</a> to get a POST for every transfer of the addresses you choose.
        </p>
      )}
      {rows.data && rows.data.length > 0 && (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th>Name / URL</th>
                <th>Type</th>
                <th>Network</th>
                <th>State</th>
                <th>Last delivery</th>
                <th>Failed</th>
              </tr>
            </thead>
            <tbody>
              {rows.data.map(({ webhook: w, last, failed }) => (
                <tr key={w.id}>
                  <td data-label="Webhook">
                    <a href={`#/webhooks/${encodeURIComponent(w.id)}`}>{w.name || w.id}</a>
                    <div class="hint mono">{w.webhook_url}</div>
                  </td>
                  <td data-label="Type">{TYPE_LABELS[w.webhook_type]}</td>
                  <td data-label="Network">{w.network}</td>
                  <td data-label="State">{w.is_active ? <span class="badge ok">active</span> : <span class="badge warn">paused{w.paused_reason ? ` (${w.paused_reason})` : ''}</span>}</td>
                  <td data-label="Last delivery">{last ? <><span class={`badge ${statusClass(last.status)}`}>{last.status}{last.last_status_code ? ` ${last.last_status_code}` : ''}</span> {timeAgo(last.last_attempt_at ?? last.created_at)}</> : <span class="hint">none yet</span>}</td>
                  <td data-label="Failed" class={failed ? 'bad' : ''}>{failed >= 100 ? '100+' : failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

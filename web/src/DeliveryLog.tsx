// A webhook's delivery log: its events newest first with their state, filtered by status, a page
// at a time (the API's cursor), live on the first page; each event opens to its attempts (status,
// latency, error, start of the answer) and the exact body sent. Failed events can be replayed one
// by one or all at once.
import { useState } from 'preact/hooks';
import { get, post, query } from './api';
import { statusClass, timeAgo } from './format';
import { usePoll } from './usePoll';
import type { Attempt, Page, WebhookEvent } from './types';

const PAGE_SIZE = 20;

function EventDetail({ webhookId, event }: { webhookId: string; event: WebhookEvent }) {
  const detail = usePoll(
    async () => {
      const [attempts, full] = await Promise.all([
        get<Page<Attempt>>(`/webhook-deliveries${query({ webhook_id: webhookId, event_id: event.event_id, limit: 50 })}`),
        get<{ data: WebhookEvent }>(`/webhook-event${query({ webhook_id: webhookId, event_id: event.event_id })}`),
      ]);
      return { attempts: attempts.data, body: full.data.body };
    },
    0,
    [event.event_id, event.attempts],
  );
  if (detail.error) return <p class="error">{detail.error}</p>;
  if (!detail.data) return <p aria-busy="true">Loading…</p>;
  return (
    <div>
      <h3 class="hint">Attempts</h3>
      {detail.data.attempts.length === 0 ? (
        <p class="hint">No attempt yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Status</th>
              <th>Latency</th>
              <th>Outcome</th>
              <th>Answer</th>
            </tr>
          </thead>
          <tbody>
            {detail.data.attempts.map((a) => (
              <tr key={a.attempt_id}>
                <td>{new Date(a.attempted_at).toLocaleTimeString()}</td>
                <td class={a.status_code && a.status_code < 300 ? 'ok' : 'bad'}>{a.status_code ?? 'no answer'}</td>
                <td>{a.latency_ms} ms</td>
                <td>{a.outcome}</td>
                <td>
                  {a.error && <div class="bad">{a.error}</div>}
                  {a.response_body && <pre>{a.response_body}</pre>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3 class="hint">Body sent</h3>
      <pre>{detail.data.body}</pre>
    </div>
  );
}

export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<string>();
  const [message, setMessage] = useState<string>();
  const after = cursors[cursors.length - 1];
  const page = usePoll(() => get<Page<WebhookEvent>>(`/webhook-events${query({ webhook_id: webhookId, status, limit: PAGE_SIZE, after })}`), after ? 0 : 3000, [webhookId, status, after]);
  const replay = async (eventId?: string) => {
    setMessage(undefined);
    try {
      if (eventId) await post('/replay-webhook-event', { webhook_id: webhookId, event_id: eventId });
      else {
        const r = await post<{ data: { replayed: number } }>('/replay-failed-webhook-events', { webhook_id: webhookId, since: 0 });
        setMessage(`${r.data.replayed} failed event${r.data.replayed === 1 ? '' : 's'} queued again.`);
      }
      page.reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="log-title">
      <div class="row">
        <h2 id="log-title">Delivery log</h2>
        <label for="log-status" class="hint">
          Status
        </label>
        <select id="log-status" value={status} onChange={(e) => (setStatus(e.currentTarget.value), setCursors([]))}>
          <option value="">all</option>
          <option value="pending">pending</option>
          <option value="succeeded">succeeded</option>
          <option value="failed">failed</option>
        </select>
        <button type="button" onClick={() => replay()}>
          Replay all failed
        </button>
      </div>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {page.error && <p class="error">{page.error}</p>}
      {page.data && page.data.data.length === 0 && <p class="empty">{status ? `No ${status} events.` : 'No deliveries yet. Events appear here as blocks with matching activity arrive; Test Webhook checks the URL now.'}</p>}
      {page.data && page.data.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="delivery-log">
            <thead>
              <tr>
                <th>Event</th>
                <th>Created</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Last answer</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((e) => [
                <tr key={e.event_id}>
                  <td>
                    <button type="button" aria-expanded={open === e.event_id} onClick={() => setOpen(open === e.event_id ? undefined : e.event_id)}>
                      {open === e.event_id ? '▾' : '▸'} <span class="mono">{e.event_id.slice(0, 18)}</span>
                    </button>
                  </td>
                  <td>{timeAgo(e.created_at)}</td>
                  <td>
                    <span class={`badge ${statusClass(e.status)}`}>{e.status}</span>
                  </td>
                  <td>{e.attempts}</td>
                  <td>{e.last_status_code ?? e.last_error ?? '—'}</td>
                  <td>
                    {e.status === 'failed' && (
                      <button type="button" onClick={() => replay(e.event_id)}>
                        Replay
                      </button>
                    )}
                  </td>
                </tr>,
                open === e.event_id && (
                  <tr key={`${e.event_id}-detail`}>
                    <td colSpan={6}>
                      <EventDetail webhookId={webhookId} event={e} />
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      <div class="row">
        <button type="button" disabled={!cursors.length} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!page.data?.pagination.cursors.after} onClick={() => setCursors([...cursors, page.data!.pagination.cursors.after!])}>
          Older
        </button>
        {!after && <span class="hint">Live: refreshed every 3 s.</span>}
      </div>
    </section>
  );
}

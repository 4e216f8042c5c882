// A webhook's delivery log: its events newest first with their state, filtered by status, a page
// at a time (the API's cursor), live on the first page; each event opens to the exact body sent
// and its attempts (status, latency, the request headers as sent, the answer). Failed events can
// be replayed one by one or all at once.
import { useState } from 'preact/hooks';
import { get, post, query } from './api';
import { statusClass, timeAgo } from './format';
import { usePoll } from './usePoll';
import type { Attempt, Page, WebhookEvent } from './types';

const PAGE_SIZE = 20;

const ATTEMPTS_SHOWN = 50;

/** `Name: value` lines, as they went on the wire. */
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

function AttemptItem({ attempt: a }: { attempt: Attempt }) {
  const ok = a.status_code === 200;
  return (
    <li class="attempt" data-testid="attempt">
      <div class="row">
        <strong>{new Date(a.attempted_at).toLocaleTimeString()}</strong>
        <span class={ok ? 'ok' : 'bad'}>{a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`}</span>
        <span class="hint">
          {a.latency_ms} ms · {a.outcome}
          {a.first_attempt ? ' · first attempt' : ''}
        </span>
      </div>
      <div class="grid2">
        <div>
          <h4>Request headers</h4>
          {a.request_headers ? <pre data-testid="request-headers">{headerLines(a.request_headers)}</pre> : <p class="hint">Not recorded (attempt logged before headers were kept).</p>}
        </div>
        <div>
          <h4>Answer</h4>
          {a.error && <p class="bad">{a.error}</p>}
          {a.response_body ? <pre data-testid="answer">{a.response_body}</pre> : !a.error && <p class="hint">Empty body.</p>}
        </div>
      </div>
    </li>
  );
}

function EventDetail({ webhookId, event }: { webhookId: string; event: WebhookEvent }) {
  const detail = usePoll(
    async () => {
      const [attempts, full] = await Promise.all([
        get<Page<Attempt>>(`/webhook-deliveries${query({ webhook_id: webhookId, event_id: event.event_id, limit: ATTEMPTS_SHOWN })}`),
        get<{ data: WebhookEvent }>(`/webhook-event${query({ webhook_id: webhookId, event_id: event.event_id })}`),
      ]);
      return { attempts: attempts.data, more: Boolean(attempts.pagination.cursors.after), body: full.data.body };
    },
    0,
    // Reloaded whenever the list's poll sees another attempt, so a retry or replay shows here live.
    [event.event_id, event.attempts, event.status],
  );
  if (detail.error) return <p class="error">{detail.error}</p>;
  if (!detail.data) return <p aria-busy="true">Loading…</p>;
  return (
    <div data-testid="event-detail">
      <h3 class="hint">Body sent (the same bytes on every attempt)</h3>
      <pre data-testid="body-sent">{detail.data.body}</pre>
      <h3 class="hint">
        Attempts, newest first{detail.data.more ? ` (the latest ${ATTEMPTS_SHOWN})` : ''}
      </h3>
      {detail.data.attempts.length === 0 ? (
        <p class="hint">No attempt yet.</p>
      ) : (
        <ol class="attempts">
          {detail.data.attempts.map((a) => (
            <AttemptItem key={a.attempt_id} attempt={a} />
          ))}
        </ol>
      )}
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
          <table class="stack" data-testid="delivery-log">
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
                  <td data-label="Created">{timeAgo(e.created_at)}</td>
                  <td data-label="Status">
                    <span class={`badge ${statusClass(e.status)}`}>{e.status}</span>
                  </td>
                  <td data-label="Attempts">{e.attempts}</td>
                  <td data-label="Last answer">{e.last_status_code ?? e.last_error ?? '—'}</td>
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

// The Test Webhook button: sends one signed test notification to the URL in the form now
// (POST /api/test-webhook-url) and shows the listener's status, latency and start of its answer.
import { useState } from 'preact/hooks';
import { post } from './api';
import type { TestResult, WebhookType } from './types';

export function TestWebhook({ url, webhookId, type }: { url: string; webhookId?: string; type?: WebhookType }) {
  const [result, setResult] = useState<TestResult>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult((await post<{ data: TestResult }>('/test-webhook-url', { webhook_url: url, webhook_id: webhookId, webhook_type: type })).data);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const good = result && result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
  return (
    <div>
      <button type="button" onClick={run} disabled={busy || !url}>
        {busy ? 'Sending test…' : 'Test Webhook'}
      </button>
      <div aria-live="polite" data-testid="test-result">
        {error && <p class="error">{error}</p>}
        {result && (
          <div class={good ? 'notice' : 'error'}>
            {result.status_code !== null ? (
              <>
                Listener answered <strong class={good ? 'ok' : 'bad'}>{result.status_code}</strong> in {result.latency_ms} ms
              </>
            ) : (
              <>No answer: {result.error}</>
            )}
            {result.response_body ? <pre>{result.response_body}</pre> : null}
            <span class="hint">Signed with {result.signed_with === 'webhook' ? "this webhook's signing key" : 'a one-off key (the webhook is not saved yet)'}.</span>
          </div>
        )}
      </div>
    </div>
  );
}

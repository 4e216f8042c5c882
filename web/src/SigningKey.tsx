// A webhook's signing key: masked until revealed, copy, and rotate (the old key keeps signing for
// the grace period the API sets, 24 h by default, so listeners can switch over).
import { useState } from 'preact/hooks';
import { get, post } from './api';
import { ConfirmButton } from './Confirm';
import { CopyButton } from './CopyButton';
import type { Webhook } from './types';

export function SigningKey({ webhook, onRotated }: { webhook: Webhook; onRotated(w: Webhook): void }) {
  const [key, setKey] = useState<string>();
  const [error, setError] = useState<string>();
  const [rotated, setRotated] = useState(false);
  const fetchKey = async () => (await get<{ data: { signing_key: string } }>(`/webhook-signing-key?webhook_id=${encodeURIComponent(webhook.id)}`)).data.signing_key;
  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">Signing key</h2>
      <p class="hint">Listeners check X-Service-Signature (HMAC-SHA256 of the body) with this key.</p>
      <div class="row">
        <code data-testid="signing-key">{key ?? 'whsec_••••••••••••••••'}</code>
        <button type="button" aria-pressed={!!key} onClick={async () => (key ? setKey(undefined) : setKey(await fetchKey().catch((e: Error) => (setError(e.message), undefined))))}>
          {key ? 'Hide' : 'Reveal'}
        </button>
        <CopyButton text={fetchKey} />
        <ConfirmButton
          label="Rotate key"
          question="New signing key? The old one keeps signing for 24 h."
          confirmLabel="Rotate"
          onConfirm={async () => {
            try {
              const r = await post<{ data: Webhook }>('/rotate-webhook-signing-key', { webhook_id: webhook.id });
              setKey(r.data.signing_key);
              setRotated(true);
              onRotated(r.data);
            } catch (e) {
              setError((e as Error).message);
            }
          }}
        />
      </div>
      {rotated && (
        <p class="notice" role="status">
          Key rotated. {webhook.previous_signing_key_expires_at ? `The previous key also signs until ${new Date(webhook.previous_signing_key_expires_at).toLocaleString()}.` : ''}
        </p>
      )}
      {error && <p class="error">{error}</p>}
    </section>
  );
}

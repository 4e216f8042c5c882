// API keys: create (name, tier, allowed origins; the secret is shown once, with copy), the list,
// revoke with confirmation, and each key's usage.
import { useState } from 'preact/hooks';
import { get, post } from './api';
import { ConfirmButton } from './Confirm';
import { CopyButton } from './CopyButton';
import { FieldError, FormError } from './FieldError';
import { UsageChart } from './UsageChart';
import { timeAgo } from './format';
import { usePoll } from './usePoll';
import type { ApiKey } from './types';

function CreateKey({ onCreated }: { onCreated(): void }) {
  const [name, setName] = useState('');
  const [tier, setTier] = useState('free');
  const [origins, setOrigins] = useState('');
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const list = origins.split(/[\s,]+/).filter(Boolean);
    try {
      const r = await post<{ data: ApiKey & { api_key: string } }>('/keys', { name: name.trim(), tier, ...(list.length && { allowed_origins: list }) });
      setCreated({ name: r.data.name, secret: r.data.api_key });
      setName('');
      setOrigins('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="newkey-title">
      <h2 id="newkey-title">New API key</h2>
      {created && (
        <div class="notice" role="status">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now: it is not stored and will not be shown again.
          </p>
          <div class="row">
            <code data-testid="new-key">{created.secret}</code>
            <CopyButton text={created.secret} />
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        </div>
      )}
      <div class="grid2">
        <div>
          <label for="key-name">Name</label>
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} aria-describedby="key-name-error" />
          <FieldError error={error} field="name" id="key-name-error" />
        </div>
        <div>
          <label for="key-tier">Tier</label>
          <select id="key-tier" value={tier} onChange={(e) => setTier(e.currentTarget.value)}>
            <option value="free">free</option>
            <option value="payg">payg</option>
            <option value="enterprise">enterprise</option>
          </select>
        </div>
      </div>
      <label for="key-origins">
        Allowed origins <span class="hint">(optional; one per line, e.g. https://app.example.com; empty: any)</span>
      </label>
      <textarea id="key-origins" class="mono" rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} aria-describedby="key-origins-error" />
      <FieldError error={error} field="allowed_origins" id="key-origins-error" />
      <FormError error={error} fields={['name', 'allowed_origins']} />
      <button class="primary" type="submit" disabled={!name.trim()}>
        Create key
      </button>
    </form>
  );
}

export function KeysPage() {
  const keys = usePoll(() => get<{ data: ApiKey[] }>('/keys').then((r) => r.data), 0);
  const [usageOf, setUsageOf] = useState<string>();
  const [error, setError] = useState<string>();
  return (
    <>
      <h1>API keys</h1>
      <CreateKey onCreated={keys.reload} />
      {(keys.error || error) && <p class="error">{keys.error ?? error}</p>}
      {keys.data && keys.data.length === 0 && <p class="empty">No API keys yet: create one above and use it in /v2/&lt;key&gt;.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-wrap">
          <table class="stack" data-testid="keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Tier</th>
                <th>Origins</th>
                <th>Last used</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => [
                <tr key={k.id}>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Key" class="mono">{k.key_prefix}…</td>
                  <td data-label="Tier">{k.tier}</td>
                  <td data-label="Origins" class="mono">{k.allowed_origins?.join(' ') ?? 'any'}</td>
                  <td data-label="Last used">{timeAgo(k.last_used_at)}</td>
                  <td data-label="State">{k.active ? <span class="badge ok">active</span> : <span class="badge bad">revoked</span>}</td>
                  <td class="row">
                    <button type="button" aria-expanded={usageOf === k.id} onClick={() => setUsageOf(usageOf === k.id ? undefined : k.id)}>
                      Usage
                    </button>
                    {k.active && (
                      <ConfirmButton
                        label="Revoke"
                        question={`Revoke ${k.name}? Requests with it fail at once.`}
                        confirmLabel="Revoke key"
                        onConfirm={async () => {
                          try {
                            await post(`/keys/${encodeURIComponent(k.id)}/revoke`);
                            keys.reload();
                          } catch (e) {
                            setError((e as Error).message);
                          }
                        }}
                      />
                    )}
                  </td>
                </tr>,
                usageOf === k.id && (
                  <tr key={`${k.id}-usage`}>
                    <td colSpan={7}>
                      <UsageChart keyId={k.id} />
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

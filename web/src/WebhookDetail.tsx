// One webhook: state with pause/resume, edit of URL and name, Test Webhook on the URL in the form,
// the signing key, addresses (Address Activity) or NFT filters (NFT Activity), the delivery log,
// and delete with confirmation.
import { useEffect, useState } from 'preact/hooks';
import { api, get, post, query } from './api';
import { ConfirmButton } from './Confirm';
import { DeliveryLog } from './DeliveryLog';
import { FieldError, FormError } from './FieldError';
import { LinesEditor } from './LinesEditor';
import { NftFilters } from './NftFilters';
import { SigningKey } from './SigningKey';
import { TestWebhook } from './TestWebhook';
import { TYPE_LABELS } from './format';
import { parseAddresses } from './parseLines';
import type { Webhook } from './types';

function EditForm({ webhook, onSaved }: { webhook: Webhook; onSaved(w: Webhook): void }) {
  const [url, setUrl] = useState(webhook.webhook_url);
  const [name, setName] = useState(webhook.name ?? '');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const r = await api<{ data: Webhook }>('PUT', '/update-webhook', { webhook_id: webhook.id, webhook_url: url.trim(), name });
      onSaved(r.data);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={save} noValidate aria-labelledby="edit-title">
      <h2 id="edit-title">URL and name</h2>
      <label for="edit-url">Webhook URL</label>
      <input id="edit-url" class="mono" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} aria-describedby="edit-url-error" />
      <FieldError error={error} field="webhook_url" id="edit-url-error" />
      <label for="edit-name">Name</label>
      <input id="edit-name" value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={256} />
      <FieldError error={error} field="name" />
      <FormError error={error} fields={['webhook_url', 'name']} />
      {saved && <p class="notice" role="status">Saved.</p>}
      <div class="row">
        <button class="primary" type="submit" disabled={url.trim() === webhook.webhook_url && name === (webhook.name ?? '')}>
          Save
        </button>
        <TestWebhook url={url.trim()} webhookId={webhook.id} />
      </div>
    </form>
  );
}

const parseAddressLines = (text: string) => {
  const { addresses, bad } = parseAddresses(text);
  return { items: addresses, bad };
};

function Addresses({ webhookId }: { webhookId: string }) {
  return (
    <LinesEditor<string>
      webhookId={webhookId}
      id="addr"
      title="Addresses"
      testId="addresses"
      empty="No addresses: add some below to receive their activity."
      addLabel="Add addresses"
      removeLabel="Remove addresses"
      submitLabel="Update addresses"
      listPath="/webhook-addresses"
      updatePath="/update-webhook-addresses"
      updateBody={(add, remove) => ({ addresses_to_add: add, addresses_to_remove: remove })}
      parse={parseAddressLines}
      line={(address) => address}
    />
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const [webhook, setWebhook] = useState<Webhook>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    get<{ data: Webhook[] }>('/team-webhooks')
      .then((r) => {
        const found = r.data.find((w) => w.id === id);
        if (found) setWebhook(found);
        else setError(`No webhook ${id}: it may have been deleted.`);
      })
      .catch((e: Error) => setError(e.message));
  }, [id]);
  if (error)
    return (
      <p class="error">
        {error} <a href="#/webhooks">Back to the list</a>
      </p>
    );
  if (!webhook) return <p aria-busy="true">Loading…</p>;
  const setPaused = async (paused: boolean) => {
    try {
      setWebhook((await post<{ data: Webhook }>(paused ? '/pause-webhook' : '/resume-webhook', { webhook_id: webhook.id })).data);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <h1>{webhook.name || webhook.id}</h1>
      <div class="card">
        <div class="row">
          <span>{TYPE_LABELS[webhook.webhook_type]}</span>·<span>{webhook.network}</span>·<code>{webhook.id}</code>·
          {webhook.is_active ? <span class="badge ok">active</span> : <span class="badge warn">paused{webhook.paused_reason ? ` (${webhook.paused_reason})` : ''}</span>}
        </div>
        {webhook.paused_detail && <p class="hint">{webhook.paused_detail}</p>}
        <div class="row">
          {webhook.is_active ? (
            <button type="button" onClick={() => setPaused(true)}>
              Pause
            </button>
          ) : (
            <button type="button" onClick={() => setPaused(false)}>
              Resume
            </button>
          )}
          <ConfirmButton
            label="Delete webhook"
            question="Delete this webhook and its delivery log?"
            confirmLabel="Delete"
            onConfirm={async () => {
              try {
                await api('DELETE', `/delete-webhook${query({ webhook_id: webhook.id })}`);
                location.hash = '#/webhooks';
              } catch (e) {
                setError((e as Error).message);
              }
            }}
          />
        </div>
        {webhook.graphql_query && (
          <>
            <h2>GraphQL query</h2>
            <pre>{webhook.graphql_query}</pre>
          </>
        )}
      </div>
      <EditForm webhook={webhook} onSaved={setWebhook} />
      <SigningKey webhook={webhook} onRotated={setWebhook} />
      {webhook.webhook_type === 'ADDRESS_ACTIVITY' && <Addresses webhookId={webhook.id} />}
      {webhook.webhook_type === 'NFT_ACTIVITY' && <NftFilters webhookId={webhook.id} />}
      <DeliveryLog webhookId={webhook.id} />
    </>
  );
}

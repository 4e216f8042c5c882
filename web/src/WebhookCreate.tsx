// Create a webhook: one form per type (Address Activity with addresses pasted or from a file,
// checked line by line; NFT Activity with contract and token filters; Custom with a GraphQL query
// the server checks against its schema before saving), and Test Webhook on the URL as typed.
import { useEffect, useState } from 'preact/hooks';
import { BadLines } from './BadLines';
import { FieldError, FormError } from './FieldError';
import { TestWebhook } from './TestWebhook';
import { parseAddresses, parseNftFilters } from './parseLines';
import { NetworkSelect } from './NetworkSelect';
import { ApiError, post } from './api';
import type { Webhook, WebhookType } from './types';

const TYPES: { type: WebhookType; label: string; help: string }[] = [
  { type: 'ADDRESS_ACTIVITY', label: 'Address Activity', help: 'ETH and token transfers from or to the addresses you list.' },
  { type: 'NFT_ACTIVITY', label: 'NFT Activity', help: 'ERC-721 and ERC-1155 transfers of the contracts (and token ids) you list.' },
  { type: 'GRAPHQL', label: 'Custom (GraphQL)', help: 'Any block data your GraphQL query selects, for every new block.' },
];

const SAMPLE_QUERY = `{
  block {
    number
    hash
  }
}`;

export function WebhookCreate() {
  const [type, setType] = useState<WebhookType>('ADDRESS_ACTIVITY');
  const [network, setNetwork] = useState('');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [addresses, setAddresses] = useState('');
  const [nft, setNft] = useState('');
  const [query, setQuery] = useState(SAMPLE_QUERY);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // The query is checked against the block schema as it is written (POST /api/validate-graphql-query).
  const [queryCheck, setQueryCheck] = useState<{ query: string; problem?: string }>();
  useEffect(() => {
    if (type !== 'GRAPHQL') return;
    const timer = setTimeout(() => {
      post('/validate-graphql-query', { graphql_query: query })
        .then(() => setQueryCheck({ query }))
        .catch((e: unknown) => setQueryCheck({ query, problem: e instanceof ApiError ? e.message : String(e) }));
    }, 400);
    return () => clearTimeout(timer);
  }, [type, query]);
  const queryProblem = type === 'GRAPHQL' && queryCheck?.query === query ? queryCheck.problem : undefined;
  const parsedAddresses = parseAddresses(addresses);
  const parsedNft = parseNftFilters(nft);
  const badCount = type === 'ADDRESS_ACTIVITY' ? parsedAddresses.bad.length : type === 'NFT_ACTIVITY' ? parsedNft.bad.length : queryProblem ? 1 : 0;

  const loadFile = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file) setAddresses(await file.text());
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (badCount) return;
    setBusy(true);
    try {
      const body: Record<string, unknown> = { webhook_type: type, webhook_url: url.trim(), ...(name && { name }), ...(network && { network }) };
      if (type === 'ADDRESS_ACTIVITY') body.addresses = parsedAddresses.addresses;
      if (type === 'NFT_ACTIVITY') body.nft_filters = parsedNft.filters;
      if (type === 'GRAPHQL') body.graphql_query = query;
      const created = await post<{ data: Webhook }>('/create-webhook', body);
      location.hash = `#/webhooks/${encodeURIComponent(created.data.id)}`;
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>New webhook</h1>
      <form class="card" onSubmit={submit} noValidate>
        <fieldset class="tabs" role="radiogroup" aria-label="Webhook type">
          {TYPES.map((t) => (
            <button type="button" key={t.type} aria-pressed={type === t.type} onClick={() => setType(t.type)}>
              {t.label}
            </button>
          ))}
        </fieldset>
        <p class="hint">{TYPES.find((t) => t.type === type)!.help}</p>
        <div class="grid2">
          <NetworkSelect id="wh-network" value={network} onChange={setNetwork} />
          <div>
            <label for="wh-name">
              Name <span class="hint">(optional)</span>
            </label>
            <input id="wh-name" value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={256} />
            <FieldError error={error} field="name" />
          </div>
        </div>
        <label for="wh-url">Webhook URL</label>
        <input id="wh-url" type="url" class="mono" placeholder="https://example.com/webhooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required aria-describedby="wh-url-error" />
        <FieldError error={error} field="webhook_url" id="wh-url-error" />
        <div class="row">
          <TestWebhook url={url.trim()} type={type} />
        </div>

        {type === 'ADDRESS_ACTIVITY' && (
          <>
            <label for="wh-addresses">
              Addresses <span class="hint">one per line (commas and spaces also separate); {parsedAddresses.addresses.length} valid</span>
            </label>
            <textarea id="wh-addresses" class="mono" value={addresses} onInput={(e) => setAddresses(e.currentTarget.value)} aria-invalid={parsedAddresses.bad.length > 0} aria-describedby="wh-addresses-bad" placeholder="0x…" />
            <label for="wh-addresses-file" class="hint">
              …or load a text or CSV file
            </label>
            <input id="wh-addresses-file" type="file" accept=".txt,.csv,text/plain,text/csv" onChange={loadFile} />
            <BadLines id="wh-addresses-bad" bad={parsedAddresses.bad} />
            <FieldError error={error} field="addresses" />
          </>
        )}
        {type === 'NFT_ACTIVITY' && (
          <>
            <label for="wh-nft">
              NFT filters <span class="hint">one per line: contract address, optionally a comma and a token id; * for every contract</span>
            </label>
            <textarea id="wh-nft" class="mono" value={nft} onInput={(e) => setNft(e.currentTarget.value)} aria-invalid={parsedNft.bad.length > 0} aria-describedby="wh-nft-bad" placeholder="0x…,42" />
            <BadLines id="wh-nft-bad" bad={parsedNft.bad} />
            <FieldError error={error} field="nft_filters" />
          </>
        )}
        {type === 'GRAPHQL' && (
          <>
            <label for="wh-query">
              GraphQL query <span class="hint">checked against the block schema as you type, and again when you save</span>
            </label>
            <textarea id="wh-query" class="mono" rows={12} value={query} onInput={(e) => setQuery(e.currentTarget.value)} spellcheck={false} aria-invalid={!!queryProblem} aria-describedby="wh-query-check" />
            <div id="wh-query-check" aria-live="polite">
              {queryProblem ? (
                <p class="field-error" role="alert">
                  {queryProblem}
                </p>
              ) : queryCheck?.query === query ? (
                <p class="ok">The query is valid against the block schema.</p>
              ) : null}
              <FieldError error={error} field="graphql_query" />
            </div>
          </>
        )}
        <FormError error={error} fields={['name', 'webhook_url', 'addresses', 'nft_filters', 'graphql_query']} />
        {badCount > 0 && <p class="error">{type === 'GRAPHQL' ? 'Fix the query before saving.' : 'Fix the lines listed above before saving.'}</p>}
        <div class="row">
          <button class="primary" type="submit" disabled={busy || !url.trim() || badCount > 0}>
            {busy ? 'Creating…' : 'Create webhook'}
          </button>
          <a class="button" href="#/webhooks">
            Cancel
          </a>
        </div>
      </form>
    </>
  );
}

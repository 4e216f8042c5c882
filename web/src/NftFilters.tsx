// An NFT Activity webhook's filters on its detail page: the current `contract[,token id]` lines,
// and lines to add or remove, checked line by line before anything is sent.
import { useEffect, useState } from 'preact/hooks';
import { api, get, query } from './api';
import { BadLines } from './BadLines';
import { FormError } from './FieldError';
import { parseNftFilters } from './parseLines';

type Filter = { contract_address: string; token_id?: string };

const filterLine = (f: Filter) => (f.token_id === undefined ? f.contract_address : `${f.contract_address},${f.token_id}`);

export function NftFilters({ webhookId }: { webhookId: string }) {
  const [list, setList] = useState<{ items: Filter[]; total?: number }>();
  const [add, setAdd] = useState('');
  const [remove, setRemove] = useState('');
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const load = () =>
    get<{ data: Filter[]; pagination: { total_count?: number } }>(`/webhook-nft-filters${query({ webhook_id: webhookId, limit: 100 })}`)
      .then((r) => setList({ items: r.data, total: r.pagination.total_count }))
      .catch(setError);
  useEffect(() => void load(), [webhookId]);
  const toAdd = parseNftFilters(add);
  const toRemove = parseNftFilters(remove);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setNotice(undefined);
    try {
      await api('PATCH', '/update-webhook-nft-filters', { webhook_id: webhookId, nft_filters_to_add: toAdd.filters, nft_filters_to_remove: toRemove.filters });
      setNotice(`Added ${toAdd.filters.length}, removed ${toRemove.filters.length}.`);
      setAdd('');
      setRemove('');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="nft-title">
      <h2 id="nft-title">NFT filters {list?.total !== undefined && <span class="hint">({list.total})</span>}</h2>
      {list && list.items.length === 0 && <p class="empty">No filters: add a contract (and a token id, or none for all its tokens) below.</p>}
      {list && list.items.length > 0 && (
        <pre data-testid="nft-filters">
          {list.items.map(filterLine).join('\n')}
          {list.total !== undefined && list.total > list.items.length ? `\n… ${list.total - list.items.length} more` : ''}
        </pre>
      )}
      <div class="grid2">
        <div>
          <label for="nft-add">
            Add filters <span class="hint">(contract[,token id] per line; * for every contract)</span>
          </label>
          <textarea id="nft-add" class="mono" value={add} onInput={(e) => setAdd(e.currentTarget.value)} aria-invalid={toAdd.bad.length > 0} aria-describedby="nft-add-bad" />
          <BadLines id="nft-add-bad" bad={toAdd.bad} />
        </div>
        <div>
          <label for="nft-remove">Remove filters</label>
          <textarea id="nft-remove" class="mono" value={remove} onInput={(e) => setRemove(e.currentTarget.value)} aria-invalid={toRemove.bad.length > 0} aria-describedby="nft-remove-bad" />
          <BadLines id="nft-remove-bad" bad={toRemove.bad} />
        </div>
      </div>
      <FormError error={error} fields={[]} />
      {notice && <p class="notice" role="status">{notice}</p>}
      <button class="primary" type="submit" disabled={toAdd.bad.length > 0 || toRemove.bad.length > 0 || (!toAdd.filters.length && !toRemove.filters.length)}>
        Update filters
      </button>
    </form>
  );
}

// A webhook's list edited as lines on its detail page (addresses, NFT filters): the current lines,
// lines to add and to remove, each checked line by line before anything is sent.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, get, query } from './api';
import { BadLines } from './BadLines';
import { FormError } from './FieldError';
import type { BadLine } from './parseLines';

export interface LinesEditorProps<T> {
  webhookId: string;
  /** Prefix of the element ids (`<id>-add`, `<id>-remove`, `<id>-title`). */
  id: string;
  title: string;
  testId: string;
  empty: string;
  addLabel: ComponentChildren;
  removeLabel: string;
  submitLabel: string;
  /** The API path listing the items, and the one updating them. */
  listPath: string;
  updatePath: string;
  /** Body of the update from the items to add and remove. */
  updateBody(add: T[], remove: T[]): Record<string, unknown>;
  parse(text: string): { items: T[]; bad: BadLine[] };
  line(item: T): string;
}

export function LinesEditor<T>(props: LinesEditorProps<T>) {
  const { webhookId, id } = props;
  const [list, setList] = useState<{ items: T[]; total?: number }>();
  const [add, setAdd] = useState('');
  const [remove, setRemove] = useState('');
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const load = () =>
    get<{ data: T[]; pagination: { total_count?: number } }>(`${props.listPath}${query({ webhook_id: webhookId, limit: 100 })}`)
      .then((r) => setList({ items: r.data, total: r.pagination.total_count }))
      .catch(setError);
  useEffect(() => void load(), [webhookId]);
  const toAdd = props.parse(add);
  const toRemove = props.parse(remove);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setNotice(undefined);
    try {
      await api('PATCH', props.updatePath, { webhook_id: webhookId, ...props.updateBody(toAdd.items, toRemove.items) });
      setNotice(`Added ${toAdd.items.length}, removed ${toRemove.items.length}.`);
      setAdd('');
      setRemove('');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        {props.title} {list?.total !== undefined && <span class="hint">({list.total})</span>}
      </h2>
      {list && list.items.length === 0 && <p class="empty">{props.empty}</p>}
      {list && list.items.length > 0 && (
        <pre data-testid={props.testId}>
          {list.items.map(props.line).join('\n')}
          {list.total !== undefined && list.total > list.items.length ? `\n… ${list.total - list.items.length} more` : ''}
        </pre>
      )}
      <div class="grid2">
        <div>
          <label for={`${id}-add`}>{props.addLabel}</label>
          <textarea id={`${id}-add`} class="mono" value={add} onInput={(e) => setAdd(e.currentTarget.value)} aria-invalid={toAdd.bad.length > 0} aria-describedby={`${id}-add-bad`} />
          <BadLines id={`${id}-add-bad`} bad={toAdd.bad} />
        </div>
        <div>
          <label for={`${id}-remove`}>{props.removeLabel}</label>
          <textarea id={`${id}-remove`} class="mono" value={remove} onInput={(e) => setRemove(e.currentTarget.value)} aria-invalid={toRemove.bad.length > 0} aria-describedby={`${id}-remove-bad`} />
          <BadLines id={`${id}-remove-bad`} bad={toRemove.bad} />
        </div>
      </div>
      <FormError error={error} fields={[]} />
      {notice && <p class="notice" role="status">{notice}</p>}
      <button class="primary" type="submit" disabled={toAdd.bad.length > 0 || toRemove.bad.length > 0 || (!toAdd.items.length && !toRemove.items.length)}>
        {props.submitLabel}
      </button>
    </form>
  );
}

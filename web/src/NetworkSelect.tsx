// The network chooser of the forms: every served network from /api/networks, the first one as ''
// (the API's default network, so a form with one network sends none).
import { get } from './api';
import { usePoll } from './usePoll';
import type { NetworkHead } from './types';

export function NetworkSelect({ id, value, onChange }: { id: string; value: string; onChange(network: string): void }) {
  const networks = usePoll(() => get<{ data: NetworkHead[] }>('/networks').then((r) => r.data), 0);
  return (
    <div>
      <label for={id}>Network</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {(networks.data ?? []).map((n, i) => (
          <option key={n.network} value={i === 0 ? '' : n.network}>
            {n.network}
          </option>
        ))}
      </select>
    </div>
  );
}

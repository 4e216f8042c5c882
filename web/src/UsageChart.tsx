// A key's usage over the last 30 days: compute units and requests per day as small bar charts
// (SVG attributes, no inline styles, so the CSP holds), and a table per method.
import { get } from './api';
import { usePoll } from './usePoll';
import type { KeyUsage } from './types';

function Bars({ label, values }: { label: string; values: { day: string; value: number }[] }) {
  const max = Math.max(1, ...values.map((v) => v.value));
  const w = 100 / Math.max(1, values.length);
  return (
    <figure>
      <figcaption class="hint">{label}</figcaption>
      <svg class="chart" viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label={`${label}: ${values.filter((v) => v.value).map((v) => `${v.day} ${v.value}`).join(', ') || 'none'}`}>
        {values.map((v, i) => (
          <rect key={v.day} x={i * w + w * 0.1} width={w * 0.8} y={40 - (v.value / max) * 38} height={(v.value / max) * 38}>
            <title>{`${v.day}: ${v.value}`}</title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}

export function UsageChart({ keyId }: { keyId: string }) {
  const usage = usePoll(() => get<{ data?: KeyUsage } & KeyUsage>(`/keys/${encodeURIComponent(keyId)}/usage`).then((r) => r.data ?? r), 0, [keyId]);
  if (usage.error) return <p class="error">{usage.error}</p>;
  if (!usage.data) return <p aria-busy="true">Loading usage…</p>;
  const { days, totals, from, to } = usage.data;
  if (!days.length) return <p class="empty">No requests with this key in the last 30 days.</p>;
  // Every day of the range, days without requests as zero, so the bars read as a calendar.
  const byDay = new Map(days.map((d) => [d.day, d]));
  const range: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && range.length < 400; t += 86_400_000) range.push(new Date(t).toISOString().slice(0, 10));
  const methods = new Map<string, { requests: number; compute_units: number }>();
  for (const d of days)
    for (const [m, c] of Object.entries(d.methods)) {
      const t = methods.get(m) ?? { requests: 0, compute_units: 0 };
      t.requests += c.requests;
      t.compute_units += c.compute_units;
      methods.set(m, t);
    }
  return (
    <div>
      <p>
        {totals.requests} requests, {totals.compute_units} compute units in the last 30 days.
      </p>
      <div class="grid2">
        <Bars label="Compute units per day" values={range.map((day) => ({ day, value: byDay.get(day)?.compute_units ?? 0 }))} />
        <Bars label="Requests per day" values={range.map((day) => ({ day, value: byDay.get(day)?.requests ?? 0 }))} />
      </div>
      <table>
        <thead>
          <tr>
            <th>Method</th>
            <th>Requests</th>
            <th>Compute units</th>
          </tr>
        </thead>
        <tbody>
          {[...methods].sort((a, b) => b[1].compute_units - a[1].compute_units).map(([m, c]) => (
            <tr key={m}>
              <td class="mono">{m}</td>
              <td>{c.requests}</td>
              <td>{c.compute_units}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// The trace explorer: a transaction hash or a call (from, to, value, data, block), the method and
// tracer; shows the call tree, the state diff as a table and offers the raw JSON as a download.
// Runs through POST /api/trace on the chosen network.
import { useState } from 'preact/hooks';
import { post } from './api';
import { CallTree } from './CallTree';
import { FieldError, FormError } from './FieldError';
import { download } from './format';
import { isCallFrame, isParityTraceList, isPrestateDiff, parityStateDiffRows, parityToFrame, prestateDiffRows, type DiffRow, type Frame } from './traceModel';
import { NetworkSelect } from './NetworkSelect';

type Mode = 'tx' | 'call';
const METHODS: Record<Mode, string[]> = { tx: ['debug_traceTransaction', 'trace_transaction', 'trace_replayTransaction'], call: ['debug_traceCall', 'trace_call'] };
const TRACERS = ['callTracer', 'prestateTracer (diff)', 'flatCallTracer', '4byteTracer'];
const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function StateDiff({ rows }: { rows: DiffRow[] }) {
  if (!rows.length) return <p class="empty">No state changed.</p>;
  return (
    <div class="table-wrap">
      <table data-testid="state-diff">
        <thead>
          <tr>
            <th>Account</th>
            <th>Field</th>
            <th>Before</th>
            <th>After</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td class="mono">{r.account}</td>
              <td class="mono">{r.field}</td>
              <td class="mono">{r.before.length > 80 ? `${r.before.slice(0, 80)}…` : r.before}</td>
              <td class="mono">{r.after.length > 80 ? `${r.after.slice(0, 80)}…` : r.after}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface Result {
  raw: unknown;
  tree?: Frame;
  diff?: DiffRow[];
}

function view(raw: unknown): Result {
  if (isCallFrame(raw)) return { raw, tree: raw };
  if (isPrestateDiff(raw)) return { raw, diff: prestateDiffRows(raw) };
  if (isParityTraceList(raw)) return { raw, tree: parityToFrame(raw) };
  const replay = raw as { trace?: unknown; stateDiff?: Parameters<typeof parityStateDiffRows>[0] | null } | null;
  if (replay && typeof replay === 'object' && ('trace' in replay || 'stateDiff' in replay)) {
    return { raw, tree: isParityTraceList(replay.trace) ? parityToFrame(replay.trace) : undefined, diff: replay.stateDiff ? parityStateDiffRows(replay.stateDiff) : undefined };
  }
  return { raw };
}

export function TracePage() {
  const [network, setNetwork] = useState('');
  const [mode, setMode] = useState<Mode>('tx');
  const [method, setMethod] = useState(METHODS.tx[0]!);
  const [tracer, setTracer] = useState(TRACERS[0]!);
  const [types, setTypes] = useState({ trace: true, stateDiff: true });
  const [hash, setHash] = useState('');
  const [call, setCall] = useState({ from: '', to: '', value: '', data: '', block: 'latest' });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result>();
  const [tab, setTab] = useState<'tree' | 'diff' | 'raw'>('tree');

  const switchMode = (m: Mode) => {
    setMode(m);
    setMethod(METHODS[m][0]!);
  };
  const localError = (): string | undefined => {
    if (mode === 'tx' && !HASH.test(hash.trim())) return 'Transaction hash: 0x and 64 hex digits';
    if (mode === 'call') {
      if (call.to && !ADDRESS.test(call.to.trim())) return 'To: a 0x address (40 hex digits)';
      if (call.from && !ADDRESS.test(call.from.trim())) return 'From: a 0x address (40 hex digits)';
      if (call.data && !/^0x([0-9a-fA-F]{2})*$/.test(call.data.trim())) return 'Data: 0x and an even number of hex digits';
      if (call.value && !/^(0x[0-9a-fA-F]+|\d+)$/.test(call.value.trim())) return 'Value: wei as a decimal or 0x number';
    }
    return undefined;
  };
  const problem = localError();

  const run = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (problem) return setError(new Error(problem));
    setBusy(true);
    try {
      const tracerName = tracer.split(' ')[0]!;
      const config = tracer.includes('diff') ? { tracer: tracerName, tracerConfig: { diffMode: true } } : tracerName === 'callTracer' ? { tracer: tracerName, tracerConfig: { withLog: true } } : { tracer: tracerName };
      const traceTypes = Object.entries(types).filter(([, on]) => on).map(([t]) => t);
      const tx = {
        ...(call.from.trim() && { from: call.from.trim() }),
        ...(call.to.trim() && { to: call.to.trim() }),
        ...(call.value.trim() && { value: `0x${BigInt(call.value.trim()).toString(16)}` }),
        ...(call.data.trim() && { data: call.data.trim() }),
      };
      const block = /^\d+$/.test(call.block.trim()) ? `0x${BigInt(call.block.trim()).toString(16)}` : call.block.trim() || 'latest';
      const params =
        method === 'debug_traceTransaction' ? [hash.trim(), config]
        : method === 'trace_transaction' ? [hash.trim()]
        : method === 'trace_replayTransaction' ? [hash.trim(), traceTypes]
        : method === 'debug_traceCall' ? [tx, block, config]
        : [tx, traceTypes, block];
      const r = await post<{ data: unknown }>('/trace', { network: network || undefined, method, params });
      const shown = view(r.data);
      setResult(shown);
      setTab(shown.tree ? 'tree' : shown.diff ? 'diff' : 'raw');
    } catch (err) {
      setError(err);
      setResult(undefined);
    } finally {
      setBusy(false);
    }
  };

  const usesTracer = method.startsWith('debug_');
  const usesTypes = method === 'trace_replayTransaction' || method === 'trace_call';
  return (
    <>
      <h1>Trace explorer</h1>
      <form class="card" onSubmit={run} noValidate>
        <div class="tabs" role="group" aria-label="What to trace">
          <button type="button" aria-pressed={mode === 'tx'} onClick={() => switchMode('tx')}>
            Transaction
          </button>
          <button type="button" aria-pressed={mode === 'call'} onClick={() => switchMode('call')}>
            Call
          </button>
        </div>
        <div class="grid2">
          <NetworkSelect id="tr-network" value={network} onChange={setNetwork} />
          <div>
            <label for="tr-method">Method</label>
            <select id="tr-method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
              {METHODS[mode].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </div>
          {usesTracer && (
            <div>
              <label for="tr-tracer">Tracer</label>
              <select id="tr-tracer" value={tracer} onChange={(e) => setTracer(e.currentTarget.value)}>
                {TRACERS.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </div>
          )}
          {usesTypes && (
            <fieldset>
              <legend>Trace types</legend>
              {(['trace', 'stateDiff'] as const).map((t) => (
                <label key={t} class="row">
                  <input type="checkbox" checked={types[t]} onChange={(e) => setTypes({ ...types, [t]: e.currentTarget.checked })} /> {t}
                </label>
              ))}
            </fieldset>
          )}
        </div>
        {mode === 'tx' ? (
          <>
            <label for="tr-hash">Transaction hash</label>
            <input id="tr-hash" class="mono" value={hash} onInput={(e) => setHash(e.currentTarget.value)} placeholder="0x…" aria-invalid={!!hash && !HASH.test(hash.trim())} />
          </>
        ) : (
          <div class="grid2">
            {(['from', 'to', 'value', 'block'] as const).map((f) => (
              <div key={f}>
                <label for={`tr-${f}`}>
                  {f === 'value' ? 'Value (wei)' : f === 'block' ? 'Block (number, hash or tag)' : f[0]!.toUpperCase() + f.slice(1)}
                </label>
                <input id={`tr-${f}`} class="mono" value={call[f]} onInput={(e) => setCall({ ...call, [f]: e.currentTarget.value })} />
              </div>
            ))}
            <div>
              <label for="tr-data">Data</label>
              <textarea id="tr-data" class="mono" rows={3} value={call.data} onInput={(e) => setCall({ ...call, data: e.currentTarget.value })} />
            </div>
          </div>
        )}
        <FieldError error={error} field="params" />
        <FormError error={error} fields={['params']} />
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Tracing…' : 'Trace'}
        </button>
      </form>
      {!result && !error && <p class="empty">Paste a transaction hash (or fill a call) and press Trace to see its call tree and state changes.</p>}
      {result && (
        <section class="card" aria-label="Trace result">
          <div class="row tabs" role="group" aria-label="View">
            {result.tree && (
              <button type="button" aria-pressed={tab === 'tree'} onClick={() => setTab('tree')}>
                Call tree
              </button>
            )}
            {result.diff && (
              <button type="button" aria-pressed={tab === 'diff'} onClick={() => setTab('diff')}>
                State diff
              </button>
            )}
            <button type="button" aria-pressed={tab === 'raw'} onClick={() => setTab('raw')}>
              Raw JSON
            </button>
            <button type="button" onClick={() => download(`${method}-${(hash || 'call').slice(0, 18)}.json`, JSON.stringify(result.raw, null, 2))}>
              Download JSON
            </button>
          </div>
          {tab === 'tree' && result.tree && <CallTree root={result.tree} />}
          {tab === 'diff' && result.diff && <StateDiff rows={result.diff} />}
          {tab === 'raw' && <pre data-testid="raw-json">{JSON.stringify(result.raw, null, 2).slice(0, 200_000)}</pre>}
        </section>
      )}
    </>
  );
}

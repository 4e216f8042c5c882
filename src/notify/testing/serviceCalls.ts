// The few calls the fault suites make to a real `tracehook start` (spawnTracehook): JSON-RPC on the
// embedded chain, webhook creation and management API reads, each failing loudly on an error.
import type { TracehookProcess } from '../../testing/spawnTracehook.js';

export async function rpc(p: TracehookProcess, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const answer = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** Creates an ADDRESS_ACTIVITY webhook on the embedded chain; returns its id. */
export async function createAddressWebhook(p: TracehookProcess, url: string, addresses: string[]): Promise<string> {
  const res = await fetch(`${p.baseUrl}/api/create-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': p.authToken },
    body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: url, addresses }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`create-webhook answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** GET of a management API path (with its query); the parsed JSON body. */
export async function apiGet<T>(p: TracehookProcess, pathAndQuery: string): Promise<T> {
  const res = await fetch(`${p.baseUrl}${pathAndQuery}`, { headers: { 'x-service-token': p.authToken } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** One sample of a /metrics series (labels as written, e.g. `{type="ADDRESS_ACTIVITY"}`), or 0 when absent. */
export async function metricValue(p: TracehookProcess, series: string): Promise<number> {
  const text = await (await fetch(`${p.baseUrl}/metrics`, { headers: { 'x-service-token': p.authToken } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** POST of a management API route with a JSON body; the parsed JSON answer. */
export async function apiPost<T>(p: TracehookProcess, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${p.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': p.authToken }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

// How fixture results are compared, per tracer, copying what the upstream test drivers check
// (../shared/conformance/README.md §1.3): callTracer results are normalised through geth's struct
// shape, flat/Parity traces through a loose projection where zero equals missing, prestate and
// stateDiff results exactly (key order aside).

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const lower = (v: JsonValue | undefined): JsonValue | undefined => (typeof v === 'string' ? v.toLowerCase() : v);

const CALL_FRAME_KEYS = ['type', 'from', 'gas', 'gasUsed', 'to', 'input', 'output', 'error', 'revertReason', 'calls', 'logs', 'value'];

/** geth's callFrame struct round trip: unknown keys dropped, `output: 0x` ≡ missing, log index defaults to 0x0. */
export function normalizeCallFrame(frame: JsonValue): JsonValue {
  if (!isObject(frame)) return frame;
  const out: JsonObject = {};
  for (const key of CALL_FRAME_KEYS) {
    let value = frame[key];
    if (value === undefined || value === null) continue;
    if (key === 'from' || key === 'to') value = lower(value)!;
    if (key === 'output' && value === '0x') continue;
    if (key === 'calls' && Array.isArray(value)) value = value.map(normalizeCallFrame);
    if (key === 'logs' && Array.isArray(value)) {
      value = value.map((log) => {
        if (!isObject(log)) return log;
        return {
          address: lower(log.address) ?? null,
          topics: log.topics ?? [],
          data: log.data ?? '0x',
          index: log.index ?? '0x0',
          position: log.position ?? '0x0',
        };
      });
    }
    out[key] = value;
  }
  return out;
}

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const ACTION_KEYS = ['author', 'rewardType', 'address', 'balance', 'callType', 'creationMethod', 'from', 'gas', 'init', 'input', 'refundAddress', 'to', 'value'];
const RESULT_KEYS = ['address', 'code', 'gasUsed', 'output'];
const ADDRESS_KEYS = new Set(['author', 'address', 'from', 'refundAddress', 'to']);

function isZero(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === '' || value === '0x' || value === '0x0' || value === ZERO_ADDRESS;
}

function project(source: JsonValue | undefined, keys: string[]): JsonObject | undefined {
  if (!isObject(source)) return undefined;
  const out: JsonObject = {};
  for (const key of keys) {
    const value = ADDRESS_KEYS.has(key) ? lower(source[key]) : source[key];
    if (!isZero(value)) out[key] = value!;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The loose projection of a flat/Parity trace entry (locators and zero values dropped). */
export function projectFlatEntry(entry: JsonValue): JsonValue {
  if (!isObject(entry)) return entry;
  const out: JsonObject = {};
  const action = project(entry.action, ACTION_KEYS);
  if (action) out.action = action;
  const result = project(entry.result, RESULT_KEYS);
  if (result) out.result = result;
  if (!isZero(entry.error)) out.error = entry.error!;
  out.subtraces = entry.subtraces ?? 0;
  out.traceAddress = entry.traceAddress ?? [];
  out.type = entry.type ?? '';
  return out;
}

/** One difference between expected and actual, with its JSON path. */
export interface Difference {
  path: string;
  expected: JsonValue | undefined;
  actual: JsonValue | undefined;
}

/** Structural differences (objects by key, arrays by position). */
export function diffJson(expected: JsonValue | undefined, actual: JsonValue | undefined, path = '$', out: Difference[] = []): Difference[] {
  if (isObject(expected) && isObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of [...keys].sort()) diffJson(expected[key], actual[key], `${path}.${key}`, out);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) diffJson(expected[i], actual[i], `${path}[${i}]`, out);
    return out;
  }
  if (JSON.stringify(expected) !== JSON.stringify(actual)) out.push({ path, expected, actual });
  return out;
}

export type CompareMode = 'callTracer' | 'flat' | 'exact';

/** Differences between a fixture's `result` and our output under the folder's comparison rules. */
export function compareResult(mode: CompareMode, expected: unknown, actual: unknown): Difference[] {
  const e = JSON.parse(JSON.stringify(expected)) as JsonValue;
  const a = JSON.parse(JSON.stringify(actual)) as JsonValue;
  switch (mode) {
    case 'callTracer':
      return diffJson(normalizeCallFrame(e), normalizeCallFrame(a));
    case 'flat':
      return diffJson(Array.isArray(e) ? e.map(projectFlatEntry) : e, Array.isArray(a) ? a.map(projectFlatEntry) : a);
    case 'exact':
      return diffJson(e, a);
  }
}

// Trace results turned into what the explorer shows: one frame shape for the call tree (from
// callTracer output or Parity `trace` entries, whose traceAddress gives the nesting), the visible
// rows of the tree for a set of expanded frames, and state-diff rows from prestateTracer's diff mode
// or Parity's stateDiff.

export interface TraceLog {
  address: string;
  topics: string[];
  data: string;
}

export interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: Frame[];
  logs?: TraceLog[];
}

interface ParityTrace {
  type: string;
  action: { callType?: string; from?: string; to?: string; value?: string; gas?: string; input?: string; init?: string; address?: string; refundAddress?: string; balance?: string };
  result?: { gasUsed?: string; output?: string; address?: string; code?: string } | null;
  error?: string;
  traceAddress: number[];
}

export function isCallFrame(x: unknown): x is Frame {
  return !!x && typeof x === 'object' && typeof (x as Frame).type === 'string' && typeof (x as Frame).from === 'string';
}

export function isParityTraceList(x: unknown): x is ParityTrace[] {
  return Array.isArray(x) && x.length > 0 && Array.isArray((x[0] as ParityTrace).traceAddress) && !!(x[0] as ParityTrace).action;
}

/** The root frame of Parity trace entries (ordered depth first, as trace_* returns them). */
export function parityToFrame(traces: ParityTrace[]): Frame | undefined {
  let root: Frame | undefined;
  const byAddress = new Map<string, Frame>();
  for (const t of traces) {
    const a = t.action;
    const frame: Frame = {
      type: (a.callType ?? t.type).toUpperCase(),
      from: a.from ?? a.address ?? '',
      to: a.to ?? t.result?.address ?? a.refundAddress,
      value: a.value ?? a.balance,
      gas: a.gas,
      gasUsed: t.result?.gasUsed,
      input: a.input ?? a.init,
      output: t.result?.output ?? t.result?.code,
      error: t.error,
    };
    const key = t.traceAddress.join('.');
    byAddress.set(key, frame);
    if (t.traceAddress.length === 0) root = frame;
    else {
      const parent = byAddress.get(t.traceAddress.slice(0, -1).join('.'));
      if (parent) (parent.calls ??= []).push(frame);
    }
  }
  return root;
}

export type Row = { kind: 'frame'; id: string; depth: number; frame: Frame; hasChildren: boolean } | { kind: 'log'; id: string; depth: number; log: TraceLog };

export function countFrames(root: Frame): number {
  let n = 0;
  const stack = [root];
  while (stack.length) {
    const f = stack.pop()!;
    n++;
    if (f.calls) stack.push(...f.calls);
  }
  return n;
}

/** Every frame id (path of child indices: `0`, `0.2`, `0.2.1`). */
export function allIds(root: Frame): Set<string> {
  const ids = new Set<string>();
  const stack: [Frame, string][] = [[root, '0']];
  while (stack.length) {
    const [f, id] = stack.pop()!;
    ids.add(id);
    f.calls?.forEach((c, i) => stack.push([c, `${id}.${i}`]));
  }
  return ids;
}

/** Ids of the frames down to `depth` (the tree's first view). */
export function idsToDepth(root: Frame, depth: number): Set<string> {
  const ids = new Set<string>();
  const stack: [Frame, string, number][] = [[root, '0', 0]];
  while (stack.length) {
    const [f, id, d] = stack.pop()!;
    if (d >= depth) continue;
    ids.add(id);
    f.calls?.forEach((c, i) => stack.push([c, `${id}.${i}`, d + 1]));
  }
  return ids;
}

/** The rows on screen: each frame, and under an expanded one its logs, then its calls. Iterative: deep trees do not overflow the stack. */
export function visibleRows(root: Frame, expanded: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  const stack: [Frame, string, number][] = [[root, '0', 0]];
  while (stack.length) {
    const [frame, id, depth] = stack.pop()!;
    const hasChildren = !!(frame.calls?.length || frame.logs?.length);
    rows.push({ kind: 'frame', id, depth, frame, hasChildren });
    if (!hasChildren || !expanded.has(id)) continue;
    frame.logs?.forEach((log, i) => rows.push({ kind: 'log', id: `${id}/log${i}`, depth: depth + 1, log }));
    const calls = frame.calls ?? [];
    for (let i = calls.length - 1; i >= 0; i--) stack.push([calls[i]!, `${id}.${i}`, depth + 1]);
  }
  return rows;
}

export interface DiffRow {
  account: string;
  field: string;
  before: string;
  after: string;
}

type AccountState = { balance?: string; nonce?: number | string; code?: string; storage?: Record<string, string> };

/** prestateTracer with diffMode: `{pre, post}`. */
export function isPrestateDiff(x: unknown): x is { pre: Record<string, AccountState>; post: Record<string, AccountState> } {
  return !!x && typeof x === 'object' && 'pre' in x && 'post' in x;
}

export function prestateDiffRows(diff: { pre: Record<string, AccountState>; post: Record<string, AccountState> }): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const account of new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)])) {
    const pre = diff.pre[account] ?? {};
    const post = diff.post[account] ?? {};
    for (const field of ['balance', 'nonce', 'code'] as const) {
      if (post[field] !== undefined && String(post[field]) !== String(pre[field] ?? '')) rows.push({ account, field, before: pre[field] === undefined ? '—' : String(pre[field]), after: String(post[field]) });
    }
    for (const slot of new Set([...Object.keys(pre.storage ?? {}), ...Object.keys(post.storage ?? {})])) {
      const before = pre.storage?.[slot];
      const after = post.storage?.[slot];
      // In diff mode a slot missing from post was cleared to zero.
      rows.push({ account, field: `storage ${slot}`, before: before ?? '0x0', after: after ?? (Object.keys(diff.post).includes(account) ? '0x0 (cleared)' : '0x0') });
    }
  }
  return rows;
}

type ParityDelta = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

export function parityStateDiffRows(stateDiff: Record<string, { balance: ParityDelta; nonce: ParityDelta; code: ParityDelta; storage: Record<string, ParityDelta> }>): DiffRow[] {
  const rows: DiffRow[] = [];
  const add = (account: string, field: string, d: ParityDelta) => {
    if (d === '=') return;
    if ('+' in d) rows.push({ account, field, before: '—', after: d['+'] });
    else if ('-' in d) rows.push({ account, field, before: d['-'], after: '—' });
    else rows.push({ account, field, before: d['*'].from, after: d['*'].to });
  };
  for (const [account, s] of Object.entries(stateDiff)) {
    add(account, 'balance', s.balance);
    add(account, 'nonce', s.nonce);
    add(account, 'code', s.code);
    for (const [slot, d] of Object.entries(s.storage ?? {})) add(account, `storage ${slot}`, d);
  }
  return rows;
}

/** Wei in hex as ETH, trimmed (`0.5 ETH`); empty for zero. */
export function formatValue(hex: string | undefined): string {
  if (!hex) return '';
  let wei: bigint;
  try {
    wei = BigInt(hex);
  } catch {
    return hex;
  }
  if (wei === 0n) return '';
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return `${whole}${frac ? `.${frac}` : ''} ETH`;
}

export function formatGas(hex: string | undefined): string {
  if (!hex) return '';
  try {
    return BigInt(hex).toLocaleString('en-US');
  } catch {
    return hex;
  }
}

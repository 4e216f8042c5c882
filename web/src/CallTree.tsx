// The collapsible call tree. Only the rows in view are in the DOM (fixed row height, a spacer for
// the rest), so a trace of 10,000+ frames scrolls and expands as fast as a small one. Keyboard:
// up/down/Home/End move between rows (scrolling them into view), right/left open and close.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { allIds, countFrames, formatGas, formatValue, idsToDepth, visibleRows, type Frame, type Row } from './traceModel';

const ROW_PX = 28;
const OVERSCAN = 20;

function short(a: string | undefined): string {
  return a && a.length > 14 ? `${a.slice(0, 8)}…${a.slice(-4)}` : (a ?? '');
}

function FrameRow({ row, open, toggle }: { row: Row & { kind: 'frame' }; open: boolean; toggle(): void }) {
  const f = row.frame;
  const selector = f.input && f.input.length >= 10 ? f.input.slice(0, 10) : '';
  const failed = !!(f.error || f.revertReason);
  return (
    <>
      {row.hasChildren ? (
        <button
          type="button"
          class="toggle"
          tabIndex={-1}
          aria-expanded={open}
          aria-label={`${open ? 'Collapse' : 'Expand'} ${f.type} to ${f.to ?? ''}`}
          onClick={(e) => {
            e.stopPropagation();
            toggle();
          }}
        >
          {open ? '▾' : '▸'}
        </button>
      ) : (
        <span class="toggle" aria-hidden="true">
          {' '}
        </span>
      )}
      <span class="type">{f.type}</span>
      <span title={f.from}>{short(f.from)}</span>→<span title={f.to}>{short(f.to)}</span>
      {selector && <span title={f.input}>{selector}</span>}
      {formatValue(f.value) && <span>{formatValue(f.value)}</span>}
      {f.gasUsed && <span class="hint">gas {formatGas(f.gasUsed)}</span>}
      {failed && <span class="revert">{f.error}{f.revertReason ? `: ${f.revertReason}` : ''}</span>}
      {!failed && f.output && f.output !== '0x' && <span class="hint" title={f.output}>→ {f.output.length > 42 ? `${f.output.slice(0, 42)}…` : f.output}</span>}
    </>
  );
}

export function CallTree({ root }: { root: Frame }) {
  const total = useMemo(() => countFrames(root), [root]);
  const [expanded, setExpanded] = useState<Set<string>>(() => idsToDepth(root, 2));
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [selected, setSelected] = useState<Row>();
  const rows = useMemo(() => visibleRows(root, expanded), [root, expanded]);
  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN);
  const treeRef = useRef<HTMLDivElement | null>(null);
  const [focusId, setFocusId] = useState<string>();
  // The row to focus may only be drawn in the render that follows the scroll.
  useEffect(() => {
    if (focusId) treeRef.current?.querySelector<HTMLElement>(`[data-frame="${focusId}"]`)?.focus();
  }, [focusId]);
  const moveFocus = (index: number) => {
    const el = treeRef.current;
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!el || !row) return;
    const top = rows.indexOf(row) * ROW_PX;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_PX > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_PX - el.clientHeight;
    setScrollTop(el.scrollTop);
    setFocusId(row.id);
  };
  const toggle = (id: string) => {
    const next = new Set(expanded);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setExpanded(next);
  };
  return (
    <div>
      <div class="row">
        <span>
          {total.toLocaleString('en-US')} frame{total === 1 ? '' : 's'}, {rows.length.toLocaleString('en-US')} row{rows.length === 1 ? '' : 's'} shown
        </span>
        <button type="button" onClick={() => setExpanded(allIds(root))}>
          Expand all
        </button>
        <button type="button" onClick={() => setExpanded(new Set())}>
          Collapse all
        </button>
      </div>
      <div
        class="tree"
        role="tree"
        aria-label="Call tree"
        data-testid="call-tree"
        ref={(el) => {
          treeRef.current = el;
          if (el && el.clientHeight && el.clientHeight !== height) setHeight(el.clientHeight);
        }}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      >
        <div style={{ height: `${rows.length * ROW_PX}px`, position: 'relative' }}>
          <div style={{ transform: `translateY(${first * ROW_PX}px)` }}>
            {rows.slice(first, last).map((row, i) => (
              <div
                key={row.id}
                role="treeitem"
                aria-level={row.depth + 1}
                aria-expanded={row.kind === 'frame' && row.hasChildren ? expanded.has(row.id) : undefined}
                class={`tree-row ${row.kind === 'log' ? 'log' : row.frame.error || row.frame.revertReason ? 'failed' : ''}`}
                style={{ paddingLeft: `${row.depth * 18 + 4}px` }}
                data-frame={row.id}
                tabIndex={0}
                aria-selected={selected?.id === row.id}
                onClick={() => setSelected(row)}
                onKeyDown={(e) => {
                  // Enter shows the row's details; right and left arrows open and close a frame.
                  const moves: Record<string, number> = { ArrowDown: first + i + 1, ArrowUp: first + i - 1, Home: 0, End: rows.length - 1 };
                  if (e.key in moves) {
                    e.preventDefault();
                    moveFocus(moves[e.key]!);
                  } else if (e.key === 'Enter') setSelected(row);
                  else if (row.kind === 'frame' && row.hasChildren && (e.key === 'ArrowRight') !== expanded.has(row.id) && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) toggle(row.id);
                }}
              >
                {row.kind === 'frame' ? (
                  <FrameRow row={row} open={expanded.has(row.id)} toggle={() => toggle(row.id)} />
                ) : (
                  <>
                    <span class="type">LOG{row.log.topics.length}</span>
                    <span title={row.log.address}>{short(row.log.address)}</span>
                    <span title={row.log.topics.join('\n')}>{row.log.topics[0] ? `${row.log.topics[0].slice(0, 10)}…` : ''}</span>
                    <span class="hint" title={row.log.data}>{row.log.data.length > 42 ? `${row.log.data.slice(0, 42)}…` : row.log.data}</span>
                  </>
                )}
              </div>
            ))}
          </div>
        </div>
      </div>
      {selected && <Details row={selected} />}
    </div>
  );
}

function Details({ row }: { row: Row }) {
  const fields: [string, string | undefined][] =
    row.kind === 'log'
      ? [['Log of', row.log.address], ...row.log.topics.map((t, i): [string, string] => [`Topic ${i}`, t]), ['Data', row.log.data]]
      : [
          ['Type', row.frame.type],
          ['From', row.frame.from],
          ['To', row.frame.to],
          ['Value', row.frame.value && `${row.frame.value} (${formatValue(row.frame.value) || '0'})`],
          ['Gas', formatGas(row.frame.gas)],
          ['Gas used', formatGas(row.frame.gasUsed)],
          ['Input', row.frame.input],
          ['Output', row.frame.output],
          ['Error', row.frame.error],
          ['Revert reason', row.frame.revertReason],
        ];
  return (
    <dl class="card frame-details" aria-label="Selected frame" data-testid="frame-details">
      {fields
        .filter(([, v]) => v)
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd class="mono">{v}</dd>
          </div>
        ))}
    </dl>
  );
}

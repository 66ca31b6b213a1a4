import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { CaptureSummary } from '../api.js';
import { formatBytes } from '../bytes.js';
import { isBadgeShown, SignatureBadge } from './signature-badge.js';

/** Every row has this height, so the visible slice is arithmetic: no row is measured. */
export const ROW_HEIGHT = 52;
const OVERSCAN = 8;
/** Rows from the end at which the next page of history is asked for. */
const PREFETCH_ROWS = 20;

const rowId = (id: string): string => `req-${id}`;
const pathOf = (s: CaptureSummary): string =>
  `${s.nestedPath === '' ? '/' : s.nestedPath}${s.url.includes('?') ? `?${s.query}` : ''}`;

/**
 * The captured requests, newest first, as a virtualised listbox: only the rows in view (plus a margin) are
 * in the DOM, whatever the history holds. Arrow keys, Home/End and Page Up/Down move the selection.
 */
export function RequestList(p: {
  items: CaptureSummary[];
  selectedId: string | undefined;
  hasMore: boolean;
  /** Whether the endpoint checks signatures: without a preset, "not checked" says nothing. */
  signed: boolean;
  /** A row moved to by the keyboard. */
  onSelect: (id: string) => void;
  /** A row clicked or tapped: on a phone, its detail opens in place of the list. */
  onOpen: (id: string) => void;
  onNearEnd: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    setHeight(el.clientHeight);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(p.items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    if (p.hasMore && last >= p.items.length - PREFETCH_ROWS) p.onNearEnd();
  }, [last, p.items.length, p.hasMore]);

  const selectedIndex = p.items.findIndex((i) => i.id === p.selectedId);
  const select = (index: number): void => {
    const item = p.items[Math.max(0, Math.min(p.items.length - 1, index))];
    if (!item) return;
    p.onSelect(item.id);
    const el = box.current;
    const i = p.items.indexOf(item);
    if (el && i * ROW_HEIGHT < el.scrollTop) el.scrollTop = i * ROW_HEIGHT;
    else if (el && (i + 1) * ROW_HEIGHT > el.scrollTop + el.clientHeight) {
      el.scrollTop = (i + 1) * ROW_HEIGHT - el.clientHeight;
    }
  };
  const perPage = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
  const onKeyDown = (e: KeyboardEvent): void => {
    const moves: Record<string, number> = {
      ArrowDown: selectedIndex + 1,
      ArrowUp: selectedIndex - 1,
      PageDown: selectedIndex + perPage,
      PageUp: selectedIndex - perPage,
      Home: 0,
      End: p.items.length - 1,
    };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(to);
  };

  return (
    <div
      ref={box}
      class="request-list"
      role="listbox"
      tabIndex={0}
      aria-label="Captured requests, newest first"
      aria-activedescendant={p.selectedId === undefined ? undefined : rowId(p.selectedId)}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
    >
      {p.items.length === 0 && <p class="list-empty">Waiting for the first request…</p>}
      <div class="list-spacer" style={{ height: `${p.items.length * ROW_HEIGHT}px` }}>
        {p.items.slice(first, last).map((item, k) => {
          const index = first + k;
          return (
            <div
              key={item.id}
              id={rowId(item.id)}
              role="option"
              aria-selected={item.id === p.selectedId}
              aria-setsize={p.hasMore ? -1 : p.items.length}
              aria-posinset={index + 1}
              class={`row${item.id === p.selectedId ? ' selected' : ''}`}
              style={{ transform: `translateY(${index * ROW_HEIGHT}px)`, height: `${ROW_HEIGHT}px` }}
              onClick={() => p.onOpen(item.id)}
            >
              <span class={`method m-${item.method.toLowerCase()}`}>{item.method}</span>
              <span class="path" title={pathOf(item)}>
                {pathOf(item)}
              </span>
              <time dateTime={item.time} title={item.time}>
                {new Date(item.time).toLocaleTimeString()}
              </time>
              <span class="row-meta">
                <span class="size">{formatBytes(item.bodySize)}</span>
                {isBadgeShown(item.signature, p.signed) && <SignatureBadge signature={item.signature} />}
                <ForwardingMark summary={item} />
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function ForwardingMark({ summary }: { summary: CaptureSummary }) {
  const f = summary.lastForwarding;
  if (f === undefined) return null;
  const text = f === null ? 'pending' : f.status !== undefined ? `${f.outcome} ${f.status}` : f.outcome;
  return <span class={`fwd fwd-${f?.outcome ?? 'pending'}`}>{text}</span>;
}

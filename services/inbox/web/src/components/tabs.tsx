import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export interface Tab {
  id: string;
  label: string;
  render: () => ComponentChildren;
}

/** WAI-ARIA tabs: one tab stop, arrow keys (and Home/End) move between tabs, the panel is labelled by its tab. */
export function Tabs(p: { tabs: Tab[]; active: string; onChange: (id: string) => void; label: string }) {
  const list = useRef<HTMLDivElement>(null);
  const index = Math.max(
    0,
    p.tabs.findIndex((t) => t.id === p.active),
  );
  const current = p.tabs[index];
  const go = (i: number): void => {
    const tab = p.tabs[(i + p.tabs.length) % p.tabs.length];
    if (!tab) return;
    p.onChange(tab.id);
    list.current?.querySelector<HTMLButtonElement>(`#tab-${tab.id}`)?.focus();
  };
  return (
    <>
      <div
        ref={list}
        role="tablist"
        aria-label={p.label}
        class="tabs"
        onKeyDown={(e) => {
          const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: p.tabs.length - 1 }[e.key];
          if (to === undefined) return;
          e.preventDefault();
          go(to);
        }}
      >
        {p.tabs.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === current?.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === current?.id ? 0 : -1}
            onClick={() => p.onChange(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {current && (
        <div
          id={`panel-${current.id}`}
          role="tabpanel"
          aria-labelledby={`tab-${current.id}`}
          class="panel"
          tabIndex={0}
        >
          {current.render()}
        </div>
      )}
    </>
  );
}

import type { HistoryView, RunView, ViewData } from '../model.ts';

/**
 * A run's history in the page (the runs `toolgauge eval --watch` kept: date, pass rate, model), each a link that
 * opens it in the run's place on the served page, and the served page's reload when a new run is written. Text
 * nodes only, as in the rest of the page.
 */

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** The page's address with `open` for slot `slot` set to `value` (null: the latest run). */
function hrefFor(slot: number, value: string | null): string {
  const params = new URLSearchParams(location.search);
  const others = params.getAll('open').filter((v) => !v.startsWith(`${slot}/`));
  params.delete('open');
  for (const v of others) params.append('open', v);
  if (value) params.append('open', value);
  const q = params.toString();
  return `${location.pathname}${q ? `?${q}` : ''}${location.hash}`;
}

function link(text: string, href: string): HTMLAnchorElement {
  const a = el('a', text);
  a.href = href;
  return a;
}

const rate = (x: number | null) => (x === null ? '—' : x.toFixed(3));

function row(h: HistoryView, slot: number): HTMLTableRowElement {
  const tr = el('tr', undefined, h.shown ? 'sel' : undefined);
  const when = h.startedAt ?? h.name;
  const date = el('td');
  date.append(h.open && !h.shown ? link(when, hrefFor(slot, h.open)) : when);
  if (h.shown) date.append(el('span', ' (shown)', 'muted'));
  tr.append(date, el('td', rate(h.passRate), 'num'), el('td', h.model ?? '—'), el('td', h.problem ?? ''));
  return tr;
}

/** The history of the run in slot `slot`, or null when it kept none. */
export function historySection(run: RunView, slot: number): HTMLElement | null {
  const history = run.history ?? [];
  if (!history.length) return null;
  const box = el('details');
  box.open = history.some((h) => h.shown);
  box.append(el('summary', `History (${history.length} kept run${history.length === 1 ? '' : 's'}, newest first)`));
  if (history.some((h) => h.shown) && history[0]?.open) {
    const back = el('p');
    back.append('Showing a kept run. ', link('Show the latest run', hrefFor(slot, null)));
    box.append(back);
  }
  const table = el('table');
  const head = el('tr');
  for (const t of ['date', 'pass rate', 'model', 'problem']) head.append(el('th', t));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const h of history) tbody.append(row(h, slot));
  table.append(thead, tbody);
  box.append(table);
  return box;
}

/** On the served page: ask the server every 2 s whether a run was written since it was built, and reload if so. */
export function reloadOnNewRuns(data: ViewData): void {
  const built = data.liveVersion;
  if (!built || !location.protocol.startsWith('http')) return;
  const timer = setInterval(() => {
    fetch('/version', { cache: 'no-store' })
      .then((res) => res.text())
      .then((version) => {
        if (version === built) return;
        clearInterval(timer);
        location.reload();
      })
      .catch(() => undefined); // the server stopped: the page stays as it is
  }, 2000);
}

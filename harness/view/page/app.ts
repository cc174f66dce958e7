import type {
  CaseDetail,
  CaseRow,
  ComparisonView,
  MetricView,
  RunView,
  Section,
  TurnView,
  ViewData,
} from '../model.ts';
import { applyQuery, decodeHash, encodeHash, facets, joinRuns, rowReasons, type Entry, type Query } from './ledger.ts';
import { historySection, reloadOnNewRuns } from './history.ts';
import { fetchCase, loadIndex } from './paged.ts';
import { COMPARISON_HEAD, comparisonCells } from '../../report/comparison-row.ts';

/**
 * The viewer page. Every string from a run (model text, ids, tags, reasons, file names) reaches the document as a
 * text node or an attribute value set through the DOM — never as markup: this file has no innerHTML, outerHTML,
 * insertAdjacentHTML or document.write (tests/hygiene checks it). The data comes from JSON blocks, parsed on demand:
 * the ledger at start, a case's detail when it is opened.
 */

type Child = Node | string | null | undefined | false;

/** An element with text children (strings become text nodes) and a few DOM properties. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; title?: string; id?: string; onclick?: () => void } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.className) el.className = props.className;
  if (props.title) el.title = props.title;
  if (props.id) el.id = props.id;
  if (props.onclick) el.addEventListener('click', props.onclick);
  for (const c of children)
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** The ledger row's reasons, each labelled with its run when several runs are open. */
function reasonCell(e: Entry, labels: readonly string[]): HTMLElement {
  const reasons = rowReasons(e.cells, labels);
  const cell = h('span', {
    className: 'reason',
    title: reasons.map((x) => (x.run ? `${x.run}: ${x.reason}` : x.reason)).join('\n'),
  });
  reasons.forEach((x, i) => {
    if (i) cell.append(' · ');
    if (x.run) cell.append(h('span', { className: 'run-of' }, `${x.run}: `));
    cell.append(x.reason);
  });
  return cell;
}

function jsonBlock<T>(id: string): T | null {
  const el = document.getElementById(id);
  return el?.textContent ? (JSON.parse(el.textContent) as T) : null;
}

const fmt = (x: number | null | undefined, digits = 3): string =>
  x === null || x === undefined || Number.isNaN(x)
    ? '—'
    : Number.isInteger(x) && Math.abs(x) > 10
      ? String(x)
      : x.toFixed(digits);

function table(head: string[], rows: Array<Array<string | Node>>, numeric: number[] = []): HTMLTableElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...head.map((x) => h('th', {}, x)))),
    h(
      'tbody',
      {},
      ...rows.map((r) => h('tr', {}, ...r.map((c, i) => h('td', { className: numeric.includes(i) ? 'num' : '' }, c)))),
    ),
  );
}

function kv(rows: Array<[string, string]>): HTMLElement {
  return h(
    'div',
    { className: 'kv' },
    ...rows.flatMap(([k, v]) => [h('div', {}, k), h('div', { className: 'pre' }, v)]),
  );
}

function statusChip(row: CaseRow | null): HTMLElement {
  return row
    ? h('span', { className: `status ${row.status}`, title: row.reason ?? '' }, row.status)
    : h('span', { className: 'status none', title: 'not in this run' }, '—');
}

function metricsTable(ms: MetricView[]): HTMLElement {
  return table(
    ['metric', 'value', '95% CI', 'n', 'denominator', 'method'],
    ms.map((m) => [
      m.name,
      fmt(m.value),
      m.lo === null ? '—' : `[${fmt(m.lo)}, ${fmt(m.hi)}]`,
      String(m.n),
      m.denominator,
      m.method,
    ]),
    [1, 2, 3],
  );
}

function problemsList(ps: RunView['problems']): HTMLElement | null {
  if (!ps.length) return null;
  const shown = ps.slice(0, 200);
  return h(
    'div',
    { className: 'problems' },
    h(
      'strong',
      {},
      `${ps.length} problem${ps.length === 1 ? '' : 's'} reading this run (shown as they are; the rest of the run is shown)`,
    ),
    h(
      'ul',
      {},
      ...shown.map((p) =>
        h('li', {}, `${p.file}${p.line ? ` line ${p.line}` : ''}${p.field ? `: field ${p.field}` : ''}: ${p.message}`),
      ),
    ),
    ps.length > shown.length ? h('p', {}, `… and ${ps.length - shown.length} more`) : null,
  );
}

function runSection(run: RunView, slot: number): HTMLElement {
  const s = h('section', { className: 'run' });
  s.append(h('h2', {}, run.label), h('p', { className: 'muted' }, run.dir));
  if (run.notice) s.append(h('p', { className: 'notice' }, run.notice));
  const history = historySection(run, slot);
  if (history) s.append(history);
  const p = problemsList(run.problems);
  if (p) s.append(p);
  s.append(
    h(
      'div',
      { className: 'grid2' },
      h('div', {}, h('h3', {}, 'Run'), kv(run.header)),
      h('div', {}, h('h3', {}, 'Counts'), kv(run.counts.map(([k, v]) => [k, String(v)]))),
    ),
  );
  if (run.settings.length)
    s.append(h('details', {}, h('summary', {}, `Settings (${run.settings.length})`), kv(run.settings)));
  if (run.gate)
    s.append(
      h('h3', {}, 'Gate'),
      h(
        'p',
        {},
        h('span', { className: `status ${run.gate.passed ? 'pass' : 'fail'}` }, run.gate.passed ? 'passed' : 'failed'),
        ` ${run.gate.expression}`,
      ),
      ...run.gate.reasons.map((r) => h('p', { className: 'pre' }, r)),
    );
  if (run.metrics.length) s.append(h('h3', {}, 'Metrics'), metricsTable(run.metrics));
  for (const b of run.breakdowns) {
    s.append(
      h(
        'details',
        {},
        h('summary', {}, `By ${b.group} (${b.rows.length})`),
        table(
          [b.group, ...b.metrics],
          b.rows.map((r) => [
            r.key,
            ...r.cells.map((c) => (c ? `${fmt(c.value)} [${fmt(c.lo)}, ${fmt(c.hi)}] n=${c.n}` : '—')),
          ]),
        ),
      ),
    );
  }
  if (run.causes.length)
    s.append(
      h(
        'details',
        {},
        h('summary', {}, `By cause (${run.causes.length}, counted from the cases)`),
        table(
          ['cause', 'cases', 'of them failed or erred'],
          run.causes.map(([c, n, bad]) => [c, String(n), String(bad)]),
          [1, 2],
        ),
      ),
    );
  for (const [name, json] of run.extra)
    s.append(h('details', {}, h('summary', {}, `Summary extra: ${name}`), h('pre', {}, json)));
  if (run.charts.length) {
    s.append(
      h('h3', {}, 'Charts'),
      h(
        'div',
        { className: 'charts grid2' },
        ...run.charts.map((c) => {
          // An SVG shown as an image runs no script and loads nothing.
          const img = h('img', { title: c.label });
          img.alt = c.label;
          img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(c.svg)}`;
          return img;
        }),
      ),
    );
  }
  return s;
}

function verdictClass(v: string): string {
  if (/gain|improved/.test(v)) return 'verdict-gain';
  if (/harm|worse/.test(v)) return 'verdict-harm';
  return '';
}

function comparisonSection(data: ViewData): HTMLElement | null {
  if (data.runs.length < 2) return null;
  const s = h('section', { id: 'comparison' }, h('h2', {}, 'Paired comparison'));
  if (data.comparisonRefused) {
    s.append(h('p', { className: 'problems' }, `No verdicts: ${data.comparisonRefused}`));
    return s;
  }
  s.append(
    h(
      'p',
      { className: 'muted' },
      'As toolgauge report --compare computes it: each run against the first on the cases both ran; paired bootstrap CI of the difference, exact McNemar (pass/fail) or sign-flip test, Holm-corrected over all rows. A change is credible when the corrected p ≤ 0.05 and the CI excludes 0.',
    ),
  );
  for (const c of data.comparisons as ComparisonView[]) {
    s.append(
      h('h3', {}, `${c.candidate} vs ${c.baseline}`),
      h(
        'p',
        { className: 'muted' },
        `${c.shared} shared cases${c.onlyInBaseline || c.onlyInCandidate ? ` (${c.onlyInBaseline} only in the baseline, ${c.onlyInCandidate} only in the candidate: left out)` : ''}`,
      ),
      table(
        [...COMPARISON_HEAD],
        c.rows.map((r) => [...comparisonCells(r), h('span', { className: verdictClass(r.verdict) }, r.verdict)]),
        [1, 2, 6],
      ),
    );
  }
  return s;
}

function turnView(t: TurnView): HTMLElement {
  return h(
    'div',
    { className: `msg ${['system', 'user', 'assistant', 'tool'].includes(t.role) ? t.role : ''}` },
    h(
      'div',
      { className: 'role' },
      t.role,
      t.toolCallId ? h('span', { className: 'muted' }, ` → ${t.toolCallId}`) : null,
    ),
    t.stats ? h('div', { className: 'stats' }, t.stats) : null,
    t.text !== null ? h('div', { className: 'pre' }, t.text) : null,
    t.truncated
      ? h(
          'div',
          { className: 'trunc' },
          'truncated: the tool result was cut to its budget (the marker above gives its full length)',
        )
      : null,
    ...t.calls.map((c) =>
      h(
        'div',
        { className: 'call' },
        h('strong', {}, `tool call ${c.name}`),
        c.id ? h('span', { className: 'muted' }, ` (${c.id})`) : null,
        h('pre', {}, c.args),
      ),
    ),
  );
}

function sectionView(s: Section): HTMLElement {
  switch (s.kind) {
    case 'text':
      return h('div', {}, h('h3', {}, s.title), h('div', { className: 'pre' }, s.text));
    case 'pairs':
      return h('div', {}, h('h3', {}, s.title), kv(s.rows));
    case 'table':
      return h(
        'div',
        {},
        h('h3', {}, s.title),
        table(
          s.head,
          s.rows.map((r) => r.map((c) => h('span', { className: 'pre' }, c))),
        ),
      );
    case 'conversation':
      return h('div', {}, h('h3', {}, s.title), ...s.turns.map(turnView));
    case 'json':
      return h('details', {}, h('summary', {}, s.title), h('pre', {}, s.json));
  }
}

function caseColumn(
  run: RunView,
  row: CaseRow | null,
  detail: CaseDetail | null,
  others: Array<CaseDetail | null>,
): HTMLElement {
  const col = h('section', {}, h('h3', {}, run.label));
  if (!row) {
    col.append(h('p', { className: 'muted' }, 'This run has no such case.'));
    return col;
  }
  col.append(
    h(
      'p',
      {},
      statusChip(row),
      ' ',
      h('strong', { className: 'case-id' }, row.id),
      row.trial ? ` (trial ${row.trial})` : '',
    ),
  );
  if (row.reason) col.append(h('p', { className: 'pre' }, row.reason));
  if (row.tags.length) col.append(h('p', { className: 'muted' }, row.tags.join(' · ')));
  if (!detail) return col;
  const differs = (f: 'input' | 'expected' | 'predicted') => others.some((o) => o && o[f] !== detail[f]);
  const field = (title: string, f: 'input' | 'expected' | 'predicted') =>
    detail[f] === null
      ? null
      : h(
          'div',
          { className: differs(f) ? 'diff' : '' },
          h('h3', {}, title),
          h('div', { className: 'pre' }, detail[f]!),
        );
  col.append(
    ...[field('Input', 'input'), field('Expected', 'expected'), field('Predicted', 'predicted')].filter(
      (x): x is HTMLDivElement => !!x,
    ),
  );
  if (detail.scorers.length)
    col.append(
      h('h3', {}, 'Scorers'),
      table(
        ['scorer', 'value', 'reason'],
        detail.scorers.map((s) => [s.name, s.value, s.reason ?? '']),
      ),
    );
  for (const s of detail.sections) col.append(sectionView(s));
  return col;
}

function main(): void {
  const data = jsonBlock<ViewData>('tg-data');
  const app = document.getElementById('app')!;
  app.replaceChildren();
  if (!data) {
    app.append(h('p', { className: 'problems' }, 'No data in this page.'));
    return;
  }
  reloadOnNewRuns(data);
  // Paged (the served viewer): the rows arrive from /index a page at a time (page/paged.ts); the ledger is drawn at
  // the first page of each run and redrawn when every row is in, so search and filters then cover the whole run.
  const paged = data.paged;
  const runRows: CaseRow[][] = data.runs.map((r) => r.rows);
  let entries: Entry[] = joinRuns(runRows);
  let loading = paged ? `loading the ledger: 0 of ${paged.totals.reduce((a, b) => a + b, 0)} rows` : '';
  const multi = data.runs.length > 1;
  let { query, caseKey } = decodeHash(location.hash);
  let shown: Entry[] = [];
  let selectedRun = 0;

  const top = h('header', { className: 'top' }, h('h1', {}, 'toolgauge view'));
  const tabs = h('nav', { className: 'tabs' });
  const runBox = h('div', { id: 'run' });
  const showRun = (i: number) => {
    selectedRun = i;
    runBox.replaceChildren(runSection(data.runs[i]!, i));
    [...tabs.children].forEach((b, j) => b.classList.toggle('on', j === i));
  };
  data.runs.forEach((r, i) => tabs.append(h('button', { title: r.dir, onclick: () => showRun(i) }, r.label)));
  top.append(
    tabs,
    h(
      'span',
      { className: 'muted' },
      `${paged ? Math.max(0, ...paged.totals) : entries.length} cases · ${data.runs.length} run${multi ? 's' : ''}`,
    ),
  );
  if (data.leftOut)
    top.append(
      h(
        'p',
        { className: 'notice', id: 'left-out' },
        `This file holds the first cases of the ledger only: ${data.leftOut.cases} of ${data.leftOut.of} cases are left out (an exported page holds at most ${data.leftOut.budgetBytes} bytes). Search and filters cover the cases in this file; to see every case, serve the runs: toolgauge view DIR …`,
      ),
    );
  if (data.runs.some((r) => r.notice)) top.append(h('span', { className: 'notice' }, 'SIMULATOR: not a model result'));

  // Controls of the ledger.
  const search = h('input', { id: 'search', title: 'search ids, tags, causes, reasons and answers' });
  search.type = 'search';
  search.placeholder = 'search id, tag, cause, reason, answer';
  search.value = query.text;
  const select = (id: string, options: Array<[string, string]>, value: string) => {
    const el = h(
      'select',
      { id },
      ...options.map(([v, label]) => {
        const o = h('option', {}, label);
        o.value = v;
        return o;
      }),
    );
    el.value = value;
    return el;
  };
  const status = select(
    'f-status',
    [
      ['all', 'all cases'],
      ['failed', 'failed (or error)'],
      ['error', 'harness error'],
      ['pass', 'passed'],
    ],
    query.status,
  );
  const tag = select('f-tag', [['', 'any tag']], '');
  const cause = select('f-cause', [['', 'any cause']], '');
  // The tag and cause filters' values with their counts, from the rows in (again when more rows arrive).
  const fillFacets = () => {
    const f = facets(entries);
    const fill = (el: HTMLSelectElement, any: string, values: Array<[string, number]>, want: string) => {
      el.replaceChildren(
        ...[['', any] as [string, string], ...values.map(([v, n]) => [v, `${v} (${n})`] as [string, string])].map(
          ([v, label]) => {
            const o = h('option', {}, label);
            o.value = v;
            return o;
          },
        ),
      );
      el.value = want;
    };
    fill(tag, 'any tag', f.tags, tag.value || query.tag);
    fill(cause, 'any cause', f.causes, cause.value || query.cause);
  };
  fillFacets();
  const sort = select(
    'sort',
    [
      ['order', 'dataset order'],
      ['id', 'id'],
      ['status', 'worst status first'],
      ...(multi ? [['changed', 'changed first'] as [string, string]] : []),
    ],
    query.sort,
  );
  const changed = h('input', { id: 'f-changed' });
  changed.type = 'checkbox';
  changed.checked = query.changedOnly;
  const count = h('span', { className: 'count', id: 'count', title: 'keys: j / k next / previous case, / search' });
  const controls = h(
    'div',
    { className: 'controls' },
    search,
    status,
    tag,
    cause,
    multi
      ? h('label', { title: 'cases whose outcome or answer differs between the runs' }, changed, ' different only')
      : null,
    sort,
    count,
  );

  const ROW = 28;
  const head = h(
    'div',
    { className: 'ledger-head' },
    h('span', {}, multi ? `status per run (${data.runs.map((r) => r.label).join(' | ')})` : 'status'),
    h('span', {}, multi ? 'case · tags · cause · reason (per run)' : 'case · tags · cause · reason'),
  );
  const ledger = h('div', { className: 'ledger', id: 'ledger' });
  const spacer = h('div', { className: 'spacer' });
  ledger.append(spacer);
  const caseBox = h('div', { className: 'case', id: 'case' });

  const renderRows = () => {
    const first = Math.max(0, Math.floor(ledger.scrollTop / ROW) - 5);
    const last = Math.min(shown.length, first + Math.ceil(ledger.clientHeight / ROW) + 15);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const e = shown[i]!;
      const lead = e.cells.find((c) => c && c.status !== 'pass') ?? e.cells.find((c) => c)!;
      const row = h(
        'div',
        { className: `row${e.key === caseKey ? ' sel' : ''}`, onclick: () => openCase(e.key) },
        h('span', {}, ...e.cells.map(statusChip)),
        h('span', { className: 'id' }, e.id, lead && lead.trial ? ` #${lead.trial}` : ''),
        h('span', { className: 'tags' }, e.tags.join(' · ')),
        e.causes.length ? h('span', { className: 'tags' }, e.causes.join(', ')) : null,
        reasonCell(
          e,
          data.runs.map((r) => r.label),
        ),
      );
      row.dataset.key = e.key;
      row.style.top = `${i * ROW}px`;
      rows.push(row);
    }
    spacer.replaceChildren(...rows);
  };
  ledger.addEventListener('scroll', renderRows, { passive: true });

  const applyFilters = () => {
    query = {
      text: search.value,
      status: status.value as Query['status'],
      tag: tag.value,
      cause: cause.value,
      changedOnly: changed.checked,
      sort: sort.value as Query['sort'],
    };
    shown = applyQuery(entries, query);
    spacer.style.height = `${shown.length * ROW}px`;
    ledger.style.height = `${Math.min(420, Math.max(2, shown.length) * ROW + 2)}px`;
    count.textContent = `${shown.length} of ${entries.length} cases${loading ? ` (${loading})` : ''}`;
    renderRows();
    history.replaceState(null, '', `#${encodeHash(query, caseKey)}`);
  };
  // A changed query shows its cases from the top (a ledger scrolled far down would otherwise draw nothing until the
  // browser clamps its scroll and fires a scroll event); rows arriving from the index keep the scroll where it is.
  const onQuery = () => {
    ledger.scrollTop = 0;
    applyFilters();
  };
  for (const el of [search]) el.addEventListener('input', onQuery);
  for (const el of [status, tag, cause, sort, changed]) el.addEventListener('change', onQuery);

  let opening = 0;
  const openCase = (key: string) => {
    caseKey = key;
    const entry = entries.find((e) => e.key === key);
    const seq = ++opening;
    caseBox.replaceChildren();
    if (!entry) {
      caseBox.append(h('p', { className: 'muted' }, 'No such case.'));
      return;
    }
    if (paged) {
      // Each run's side of the case, from the server; a later click wins over a slower answer.
      caseBox.append(h('p', { className: 'muted' }, 'Loading the case…'));
      void Promise.all(entry.cells.map((c, r) => (c ? fetchCase(paged.build, r, c.key) : Promise.resolve(null)))).then(
        (details) => {
          if (seq === opening) showCase(entry, details);
        },
      );
      return;
    }
    // The case blocks follow the page's script: until the parser has read them all, a case opens once it has.
    if (document.readyState === 'loading') {
      caseBox.append(h('p', { className: 'muted' }, 'Loading the case…'));
      document.addEventListener('DOMContentLoaded', () => openCase(key), { once: true });
      return;
    }
    showCase(
      entry,
      entry.cells.map((c, r) => (c ? jsonBlock<CaseDetail>(`d${r}-${c.detail}`) : null)),
    );
  };
  const showCase = (entry: Entry, details: Array<CaseDetail | null>) => {
    caseBox.replaceChildren();
    const side = h('div', { className: 'side' });
    side.style.setProperty('--cols', String(data.runs.length));
    data.runs.forEach((run, r) =>
      side.append(
        caseColumn(
          run,
          entry.cells[r]!,
          details[r]!,
          details.filter((_, j) => j !== r),
        ),
      ),
    );
    caseBox.append(h('h2', {}, 'Case ', h('span', { className: 'case-title' }, entry.id)));
    if (entry.changed && multi)
      caseBox.append(h('p', { className: 'notice' }, 'This case differs between the runs (outlined fields differ).'));
    caseBox.append(side);
    renderRows();
    history.replaceState(null, '', `#${encodeHash(query, caseKey)}`);
    caseBox.scrollIntoView({ block: 'start' });
  };

  // Keys: j / k open the next / previous case of the ledger, / goes to the search box.
  document.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement | null;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) return;
    if (ev.key === '/') {
      ev.preventDefault();
      search.focus();
      return;
    }
    if (ev.key !== 'j' && ev.key !== 'k') return;
    const at = shown.findIndex((e) => e.key === caseKey);
    const next = shown[ev.key === 'j' ? at + 1 : at < 0 ? 0 : at - 1];
    if (!next) return;
    openCase(next.key);
    const i = shown.indexOf(next);
    if (i * ROW < ledger.scrollTop || (i + 1) * ROW > ledger.scrollTop + ledger.clientHeight)
      ledger.scrollTop = Math.max(0, i * ROW - ledger.clientHeight / 2);
  });

  const cmp = comparisonSection(data);
  const main = h('main', {}, runBox, cmp, h('h2', { id: 'cases' }, 'Cases'), controls, head, ledger, caseBox);
  app.append(top, main);
  showRun(selectedRun);
  const marks = window as unknown as { __tgRendered?: number; __tgLoaded?: number };
  if (!paged) {
    applyFilters();
    if (caseKey) openCase(caseKey);
    marks.__tgRendered = performance.now();
    return;
  }
  applyFilters();
  void loadIndex(paged, (rows, got, total, done) => {
    rows.forEach((r, i) => (runRows[i] = r));
    entries = joinRuns(runRows);
    loading = done ? '' : `loading the ledger: ${got} of ${total} rows`;
    fillFacets();
    applyFilters();
    marks.__tgRendered ??= performance.now();
    if (!done) return;
    marks.__tgLoaded = performance.now();
    if (caseKey) openCase(caseKey);
  }).catch((err: Error) => {
    loading = `the ledger could not be loaded: ${err.message}; reload the page`;
    applyFilters();
  });
}

main();

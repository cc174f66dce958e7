// The scale bench's chart: one line per series of (n, value) points, n on a log axis. Pure: points in, SVG text out;
// drawn with the report's own SVG opening and escaping so it looks like toolgauge's other charts.
import { esc, svgOpen } from '../harness/report/svg.ts';

import { existsSync, readdirSync } from 'node:fs';
import { fromRoot } from '../harness/core/paths.ts';
import { readRecord, recordPath } from './record.ts';

export interface Series {
  label: string;
  points: Array<{ n: number; value: number }>;
}

const W = 720;
const H = 360;
const LEFT = 70;
const RIGHT = 190;
const TOP = 44;
const BOTTOM = 50;
const COLOURS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2'];

/** Lines over n (log10 axis, one tick per power of ten) with a linear value axis from 0. */
export function scaleChart(series: Series[], opts: { title: string; valueLabel: string }): string {
  const ns = series.flatMap((s) => s.points.map((p) => p.n));
  const values = series.flatMap((s) => s.points.map((p) => p.value));
  const lo = Math.floor(Math.log10(Math.min(...ns)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...ns))));
  const top = niceCeiling(Math.max(...values, 0));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const x = (n: number) => LEFT + ((Math.log10(n) - lo) / (hi - lo)) * plotW;
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const out = svgOpen(W, H, opts.title);
  // An accessible name for the image (the chart is a committed file, linted as SVG).
  out.splice(1, 0, `<title>${esc(opts.title)}</title>`);
  for (let p = lo; p <= hi; p++) {
    out.push(`<line x1="${x(10 ** p)}" y1="${TOP}" x2="${x(10 ** p)}" y2="${TOP + plotH}" stroke="#e3e3e3"/>`);
    out.push(
      `<text x="${x(10 ** p)}" y="${TOP + plotH + 16}" text-anchor="middle" fill="#555">${(10 ** p).toLocaleString('en-US')}</text>`,
    );
  }
  for (let t = 0; t <= 4; t++) {
    const v = (top * t) / 4;
    out.push(`<line x1="${LEFT}" y1="${y(v)}" x2="${LEFT + plotW}" y2="${y(v)}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${trim(v)}</text>`);
  }
  out.push(
    `<text x="${LEFT + plotW / 2}" y="${H - 12}" text-anchor="middle" fill="#333">instances (n, log scale)</text>`,
  );
  out.push(
    `<text x="16" y="${TOP + plotH / 2}" text-anchor="middle" fill="#333" transform="rotate(-90 16 ${TOP + plotH / 2})">${esc(opts.valueLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const pts = [...s.points].sort((a, b) => a.n - b.n);
    out.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts.map((p) => `${x(p.n)},${y(p.value)}`).join(' ')}"/>`,
    );
    for (const p of pts) out.push(`<circle cx="${x(p.n)}" cy="${y(p.value)}" r="3.5" fill="${colour}"/>`);
    const ly = TOP + 10 + i * 20;
    out.push(
      `<line x1="${W - RIGHT + 14}" y1="${ly}" x2="${W - RIGHT + 34}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
    );
    out.push(`<text x="${W - RIGHT + 40}" y="${ly + 4}" fill="#222">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** The smallest 1, 2 or 5 × 10^k at or above v (the value axis' top). */
export function niceCeiling(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

const trim = (v: number) => String(Number(v.toPrecision(3)));

/**
 * The chart's series from a record's figures: CPU per instance of the runs at each latency (n ≥ 1,000: n = 10 is the
 * fixed cost, in the record and the table), and `view --export`'s CPU per instance.
 */
export function chartSeries(f: Record<string, number>): Series[] {
  const runs = new Map<number, Array<{ n: number; value: number }>>();
  const view: Array<{ n: number; value: number }> = [];
  for (const [key, v] of Object.entries(f)) {
    const m = /^n(\d+)(?:_l(\d+))?_cpu_us_per_instance$/.exec(key);
    if (!m || Number(m[1]) < 1000) continue;
    const n = Number(m[1]);
    const ms = Number(m[2] ?? 0);
    runs.set(ms, [...(runs.get(ms) ?? []), { n, value: v / 1000 }]);
    if (!m[2] && f[`n${n}_view_cpu_ms`] !== undefined)
      view.push({ n, value: f[`n${n}_view_cpu_ms`]! / (f[`n${n}_runs`] ?? n) });
  }
  const byN = (a: { n: number }, b: { n: number }) => a.n - b.n;
  return [
    ...[...runs.keys()]
      .sort((a, b) => a - b)
      .map((ms) => ({ label: `run, ${ms} ms latency`, points: runs.get(ms)!.sort(byN) })),
    { label: 'view --export', points: view.sort(byN) },
  ];
}

/**
 * The figures a sweep's chart is drawn from: its record's, with the points of each record named `<sweep>-added-…`
 * (measured apart from the sweep: `npm run bench:scale -- --sizes … --record <sweep>-added-…`) added or put in place of
 * the sweep's, in name order.
 */
export function chartFigures(sweep: string, current?: { name: string; figures: Record<string, number> }) {
  const added = readdirSync(fromRoot('bench', 'records'))
    .filter((f) => f.startsWith(`${sweep}-added-`) && f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  const figures = (name: string) =>
    current?.name === name ? current.figures : existsSync(recordPath(name)) ? readRecord(name).figures : {};
  return Object.assign({}, figures(sweep), ...added.map(figures), current ? { ...current.figures } : {});
}

/**
 * Small, dependency-free SVG charts for report.md: horizontal bars with confidence-interval whiskers. Pure:
 * data in, SVG text out. Values are rates in [0, 1].
 */
import type { EstimateJson } from './summary.ts';
export interface Bar {
  label: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
  n: number;
  /** Optional emphasis (e.g. a comparison verdict) written after the number. */
  note?: string;
}

/** An estimate's bar (no value and n = 0 when there is none), with an optional note after the number. */
export function estimateBar(label: string, e: EstimateJson | undefined, note?: string): Bar {
  return {
    label,
    value: e?.value ?? null,
    lo: e?.lo ?? null,
    hi: e?.hi ?? null,
    n: e?.n ?? 0,
    ...(note ? { note } : {}),
  };
}

export interface ChartOptions {
  title: string;
  axisLabel?: string;
  /** Draw a dashed reference line (a gate threshold, say). */
  reference?: { value: number; label: string };
}

const MIN_W = 720;
const ROW = 26;
const LABEL_W = 210;
const PLOT_W = 360;
const TOP = 44;

export function barChart(bars: Bar[], opts: ChartOptions): string {
  const h = TOP + bars.length * ROW + 44;
  // Wide enough for the longest value text on the right (about 7 px a character at 12 px).
  const W = Math.max(MIN_W, LABEL_W + PLOT_W + 20 + Math.max(0, ...bars.map((b) => valueText(b).length)) * 7);
  const x = (v: number) => LABEL_W + Math.max(0, Math.min(1, v)) * PLOT_W;
  const out: string[] = svgOpen(W, h, opts.title);
  // Grid and axis ticks at 0, 0.25, … 1.
  for (let t = 0; t <= 4; t++) {
    const v = t / 4;
    out.push(`<line x1="${x(v)}" y1="${TOP - 6}" x2="${x(v)}" y2="${TOP + bars.length * ROW}" stroke="#e3e3e3"/>`);
    out.push(
      `<text x="${x(v)}" y="${TOP + bars.length * ROW + 16}" text-anchor="middle" fill="#555">${v.toFixed(2)}</text>`,
    );
  }
  if (opts.axisLabel)
    out.push(
      `<text x="${LABEL_W + PLOT_W / 2}" y="${TOP + bars.length * ROW + 34}" text-anchor="middle" fill="#333">${esc(opts.axisLabel)}</text>`,
    );
  bars.forEach((b, i) => {
    const y = TOP + i * ROW;
    out.push(
      `<text x="${LABEL_W - 8}" y="${y + 16}" text-anchor="end" fill="#222">${esc(truncate(b.label, 30))}</text>`,
    );
    if (b.value === null) {
      out.push(`<text x="${LABEL_W + 4}" y="${y + 16}" fill="#888">no data (n=${b.n})</text>`);
      return;
    }
    out.push(
      `<rect x="${LABEL_W}" y="${y + 5}" width="${Math.max(0, x(b.value) - LABEL_W)}" height="${ROW - 10}" fill="#4c78a8" rx="2"/>`,
    );
    if (b.lo !== null && b.hi !== null) {
      const cy = y + ROW / 2;
      out.push(`<line x1="${x(b.lo)}" y1="${cy}" x2="${x(b.hi)}" y2="${cy}" stroke="#1a1a1a" stroke-width="1.6"/>`);
      out.push(
        `<line x1="${x(b.lo)}" y1="${cy - 6}" x2="${x(b.lo)}" y2="${cy + 6}" stroke="#1a1a1a" stroke-width="1.6"/>`,
      );
      out.push(
        `<line x1="${x(b.hi)}" y1="${cy - 6}" x2="${x(b.hi)}" y2="${cy + 6}" stroke="#1a1a1a" stroke-width="1.6"/>`,
      );
    }
    out.push(`<text x="${LABEL_W + PLOT_W + 10}" y="${y + 16}" fill="#222">${esc(valueText(b))}</text>`);
  });
  if (opts.reference) {
    const rx = x(opts.reference.value);
    out.push(
      `<line x1="${rx}" y1="${TOP - 8}" x2="${rx}" y2="${TOP + bars.length * ROW}" stroke="#d62728" stroke-dasharray="5,4" stroke-width="1.5"/>`,
    );
    out.push(`<text x="${rx + 4}" y="${TOP - 10}" fill="#d62728">${esc(opts.reference.label)}</text>`);
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function valueText(b: Bar): string {
  if (b.value === null) return '';
  const ci = b.lo !== null && b.hi !== null ? ` [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)}]` : '';
  return `${b.value.toFixed(3)}${ci} n=${b.n}${b.note ? ` · ${b.note}` : ''}`;
}

/** The opening of every toolgauge chart: the SVG element, a white background and the title. */
export function svgOpen(width: number, height: number, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold" fill="#222">${esc(title)}</text>`,
  ];
}

/** Text for SVG content and attribute values. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

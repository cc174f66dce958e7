import { esc, svgOpen } from '../report/svg.ts';

/**
 * A small SVG line chart in the style of harness/report/svg.ts: validation score (0–1) against rollouts spent.
 * Each validated candidate is a dot; the best-so-far is a step line. Pure: data in, SVG text out.
 */
export interface LinePoint {
  x: number;
  y: number;
  label?: string;
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** x axis end (e.g. the budget); default the largest x. */
  xMax?: number;
  /** A dashed reference level (e.g. the seed's score). */
  reference?: { value: number; label: string };
}

const W = 720;
const H = 360;
const LEFT = 64;
const RIGHT = 24;
const TOP = 44;
const BOTTOM = 56;

export function lineChart(dots: LinePoint[], step: LinePoint[], opts: LineChartOptions): string {
  const xMax = Math.max(1, opts.xMax ?? 0, ...dots.map((p) => p.x), ...step.map((p) => p.x));
  const pw = W - LEFT - RIGHT;
  const ph = H - TOP - BOTTOM;
  const x = (v: number) => LEFT + (Math.max(0, Math.min(xMax, v)) / xMax) * pw;
  const y = (v: number) => TOP + (1 - Math.max(0, Math.min(1, v))) * ph;
  const out: string[] = svgOpen(W, H, opts.title);
  for (let t = 0; t <= 4; t++) {
    const v = t / 4;
    out.push(`<line x1="${LEFT}" y1="${y(v)}" x2="${W - RIGHT}" y2="${y(v)}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${LEFT - 8}" y="${y(v) + 4}" text-anchor="end" fill="#555">${v.toFixed(2)}</text>`);
  }
  for (const v of ticks(xMax)) {
    out.push(`<line x1="${x(v)}" y1="${TOP + ph}" x2="${x(v)}" y2="${TOP + ph + 5}" stroke="#555"/>`);
    out.push(`<text x="${x(v)}" y="${TOP + ph + 18}" text-anchor="middle" fill="#555">${v}</text>`);
  }
  out.push(`<line x1="${LEFT}" y1="${TOP + ph}" x2="${W - RIGHT}" y2="${TOP + ph}" stroke="#555"/>`);
  out.push(`<text x="${LEFT + pw / 2}" y="${H - 12}" text-anchor="middle" fill="#333">${esc(opts.xLabel)}</text>`);
  out.push(
    `<text x="16" y="${TOP + ph / 2}" text-anchor="middle" fill="#333" transform="rotate(-90 16 ${TOP + ph / 2})">${esc(opts.yLabel)}</text>`,
  );
  if (opts.reference) {
    const ry = y(opts.reference.value);
    out.push(
      `<line x1="${LEFT}" y1="${ry}" x2="${W - RIGHT}" y2="${ry}" stroke="#d62728" stroke-dasharray="5,4" stroke-width="1.5"/>`,
    );
    out.push(
      `<text x="${W - RIGHT - 4}" y="${ry - 6}" text-anchor="end" fill="#d62728">${esc(opts.reference.label)}</text>`,
    );
  }
  if (step.length) {
    const pts: string[] = [];
    step.forEach((p, i) => {
      if (i > 0) pts.push(`${x(p.x)},${y(step[i - 1]!.y)}`);
      pts.push(`${x(p.x)},${y(p.y)}`);
    });
    pts.push(`${x(xMax)},${y(step[step.length - 1]!.y)}`);
    out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="#4c78a8" stroke-width="2"/>`);
  }
  for (const p of dots) {
    out.push(
      `<circle cx="${x(p.x)}" cy="${y(p.y)}" r="3.5" fill="#f58518"><title>${esc(p.label ?? '')} ${p.y.toFixed(3)} after ${p.x}</title></circle>`,
    );
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function ticks(max: number): number[] {
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const stepSize = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + 1e-9; v += stepSize) out.push(Math.round(v));
  return out;
}

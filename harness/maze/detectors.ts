// Implicit-corruption detectors: decide from what an agent can see (the tool's public description, the
// arguments it sent, the result it got, and today's date from the system prompt) whether a schema-valid result
// is implausible. The oracle policy and the linter use exactly these functions; no task data goes in.

import { dayNumber, LIBRARY_TODAY } from './tools/data.ts';
import type { MazeTool, ToolArgs, ToolResult } from './tools/types.ts';

export const DETECTORS = ['negative_value', 'entity_swap', 'sum_mismatch', 'stale_timestamp', 'unit_scale'] as const;
export type Detector = (typeof DETECTORS)[number];

export interface Finding {
  detector: Detector;
  field: string;
  reason: string;
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Every finding for one result (empty for a plausible result or for an `{ error }` result). */
export function findImplausibilities(
  tool: MazeTool,
  args: ToolArgs,
  result: ToolResult,
  today = LIBRARY_TODAY,
): Finding[] {
  if ('error' in result) return [];
  const out: Finding[] = [];
  const c = tool.checks;
  for (const f of c.nonNegative ?? []) {
    const v = result[f];
    if (isNum(v) && v < 0) out.push({ detector: 'negative_value', field: f, reason: `${f} is negative (${v})` });
  }
  for (const [outField, arg] of Object.entries(c.echo ?? {})) {
    const want = args[arg];
    const got = result[outField];
    if (want === undefined || got === undefined) continue;
    const same =
      isNum(want) && isNum(got) ? want === got : String(want).trim().toLowerCase() === String(got).trim().toLowerCase();
    if (!same)
      out.push({
        detector: 'entity_swap',
        field: outField,
        reason: `asked for ${arg}=${String(want)} but got ${outField}=${String(got)}`,
      });
  }
  for (const s of c.sums ?? []) {
    const items = result[s.items];
    const total = result[s.total];
    if (!Array.isArray(items) || !isNum(total)) continue;
    const sum = items.reduce(
      (t: number, it) =>
        t +
        (isNum((it as Record<string, unknown>)[s.amount]) ? ((it as Record<string, number>)[s.amount] as number) : 0),
      0,
    );
    if (Math.abs(sum - total) > 0.011)
      out.push({
        detector: 'sum_mismatch',
        field: s.total,
        reason: `${s.total}=${total} but the ${s.items} add up to ${Math.round(sum * 100) / 100}`,
      });
  }
  if (c.timestamp) {
    const ts = result[c.timestamp.field];
    const refStr =
      c.timestamp.arg !== undefined && typeof args[c.timestamp.arg] === 'string'
        ? String(args[c.timestamp.arg])
        : today;
    const got = typeof ts === 'string' ? dayNumber(ts.slice(0, 10)) : null;
    const ref = dayNumber(refStr);
    if (got !== null && ref !== null && Math.abs(got - ref) > 366) {
      out.push({
        detector: 'stale_timestamp',
        field: c.timestamp.field,
        reason: `${c.timestamp.field}=${String(ts)} is more than a year from ${refStr}`,
      });
    }
  }
  for (const [f, [lo, hi]] of Object.entries(c.ranges ?? {})) {
    const v = result[f];
    if (isNum(v) && (v < lo || v > hi))
      out.push({
        detector: 'unit_scale',
        field: f,
        reason: `${f}=${v} is outside the plausible range [${lo}, ${hi}] (unit slip?)`,
      });
  }
  return out;
}

/** The first finding, or null: "would a careful agent distrust this result?" */
export function detectImplausible(
  tool: MazeTool,
  args: ToolArgs,
  result: ToolResult,
  today = LIBRARY_TODAY,
): Finding | null {
  return findImplausibilities(tool, args, result, today)[0] ?? null;
}

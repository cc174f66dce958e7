// Build an implicit corruption of a clean result: schema-valid, no `error` key, caught by exactly the detector
// it is recorded under. Used by the generator (payloads are then fixed in the task file) and the linter.

import type { Detector } from './detectors.ts';
import { findImplausibilities } from './detectors.ts';
import { dayNumber, round2 } from './tools/data.ts';
import { callTool, checkOutput } from './tools/index.ts';
import type { HistoryEntry, MazeTool, ToolArgs, ToolResult } from './tools/types.ts';

export interface Corruption {
  detector: Detector;
  field: string;
  payload: ToolResult;
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function shiftYears(ts: string, years: number): string {
  const y = Number(ts.slice(0, 4));
  return `${y + years}${ts.slice(4)}`;
}

/** Candidate corruptions of `detector` for one clean result (may be empty when the tool has no such check). */
export function corruptionsOf(
  detector: Detector,
  tool: MazeTool,
  args: ToolArgs,
  clean: ToolResult,
  history: readonly HistoryEntry[],
): Corruption[] {
  const c = tool.checks;
  const out: Corruption[] = [];
  if (tool.failureModes && !tool.failureModes.includes(detector)) return out;
  switch (detector) {
    case 'negative_value':
      for (const f of c.nonNegative ?? []) {
        const v = clean[f];
        if (isNum(v) && v > 0) out.push({ detector, field: f, payload: { ...clean, [f]: -v } });
      }
      break;
    case 'entity_swap': {
      if (!tool.entity) break;
      const outField = Object.entries(c.echo ?? {}).find(([, a]) => a === tool.entity!.arg)?.[0];
      if (!outField) break;
      const current = String(args[tool.entity.arg]).toLowerCase();
      for (const other of tool.entity.values()) {
        if (other.toLowerCase() === current) continue;
        const swapped = callTool(tool.name, { ...args, [tool.entity.arg]: other }, history);
        if (swapped.kind === 'clean') out.push({ detector, field: outField, payload: swapped.result });
      }
      break;
    }
    case 'sum_mismatch':
      for (const s of c.sums ?? []) {
        const t = clean[s.total];
        if (isNum(t))
          out.push({
            detector,
            field: s.total,
            payload: { ...clean, [s.total]: round2(t + Math.max(5, Math.abs(t) * 0.137)) },
          });
      }
      break;
    case 'stale_timestamp': {
      const ts = c.timestamp;
      if (!ts || typeof clean[ts.field] !== 'string' || dayNumber(String(clean[ts.field]).slice(0, 10)) === null) break;
      const payload: ToolResult = { ...clean, [ts.field]: shiftYears(String(clean[ts.field]), -3) };
      // A stale snapshot also carries an older value of the main figure.
      if (tool.primary && isNum(clean[tool.primary])) {
        const v = clean[tool.primary] as number;
        const older = Number.isInteger(v) ? Math.max(1, Math.round(v * 0.71)) : round2(v * 0.71);
        if (older !== v) payload[tool.primary] = older;
      }
      out.push({ detector, field: ts.field, payload });
      break;
    }
    case 'unit_scale':
      for (const [f, [lo, hi]] of Object.entries(c.ranges ?? {})) {
        const v = clean[f];
        if (!isNum(v) || v === 0) continue;
        const up = Number.isInteger(v) ? v * 1000 : round2(v * 1000);
        const down = Math.round((v / 1000) * 1e6) / 1e6;
        if (up > hi || up < lo) out.push({ detector, field: f, payload: { ...clean, [f]: up } });
        else if (down < lo || down > hi) out.push({ detector, field: f, payload: { ...clean, [f]: down } });
      }
      break;
  }
  // Keep only corruptions that are schema-valid and caught by their own detector.
  return out.filter(
    (k) =>
      checkOutput(tool, k.payload) === null &&
      !('error' in k.payload) &&
      findImplausibilities(tool, args, k.payload).some((f) => f.detector === k.detector),
  );
}

/** Leaf values of `payload` that differ from `clean` (what a strict judge hunts for downstream). */
export function changedLeaves(clean: unknown, payload: unknown): Array<string | number> {
  const out: Array<string | number> = [];
  const walk = (a: unknown, b: unknown) => {
    if (b && typeof b === 'object') {
      for (const [k, v] of Object.entries(b as Record<string, unknown>))
        walk(a && typeof a === 'object' ? (a as Record<string, unknown>)[k] : undefined, v);
      return;
    }
    if ((typeof b === 'number' || typeof b === 'string') && a !== b) out.push(b);
  };
  walk(clean, payload);
  return [...new Set(out)];
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appendJsonl, readJsonl, writeFileAtomic } from '../core/jsonl.ts';
import { Prediction, Result } from './records.ts';
import type { ToolhopOutcome } from './run-instance.ts';

export const FILES = {
  predictions: 'predictions.jsonl',
  results: 'results.jsonl',
  traces: 'traces',
  summary: 'summary.json',
  report: 'report.md',
} as const;

export function instanceKey(id: string, trial: number): string {
  return trial > 0 ? `${id}__t${trial}` : id;
}

export function tracePath(dir: string, id: string, trial: number): string {
  return join(dir, FILES.traces, `${instanceKey(id, trial).replace(/[^\w.-]/g, '_')}.json`);
}

/**
 * Write one finished instance: trace, then prediction, then result. `results.jsonl` is written last, so an
 * instance counts as finished (for `--resume`) only once everything about it is on disk.
 */
export function writeInstance(dir: string, o: ToolhopOutcome): void {
  writeFileAtomic(tracePath(dir, o.trace.id, o.trace.trial), JSON.stringify(o.trace, null, 1));
  appendJsonl(join(dir, FILES.predictions), o.prediction);
  appendJsonl(join(dir, FILES.results), o.result);
}

export interface Finished {
  result: Result;
  prediction?: Prediction;
}

/** Instances already finished in DIR (for `--resume`), keyed by id and trial; torn lines are ignored. */
export function loadFinished(dir: string): Map<string, Finished> {
  const out = new Map<string, Finished>();
  for (const raw of readJsonl(join(dir, FILES.results))) {
    const r = Result.safeParse(raw);
    if (r.success && !out.has(instanceKey(r.data.id, r.data.trial))) out.set(instanceKey(r.data.id, r.data.trial), { result: r.data });
  }
  for (const raw of readJsonl(join(dir, FILES.predictions))) {
    const p = Prediction.safeParse(raw);
    if (!p.success) continue;
    const f = out.get(instanceKey(p.data.id, p.data.trial));
    if (f && !f.prediction) f.prediction = p.data;
  }
  return out;
}

/**
 * Before a resumed run appends: keep exactly one line per finished instance in both files (a run killed between
 * writing a prediction and its result leaves an orphan prediction; a killed write leaves a torn line).
 */
export function tidyForResume(dir: string): number {
  const finished = loadFinished(dir);
  if (!existsSync(join(dir, FILES.results))) return 0;
  const results = [...finished.values()].map((f) => JSON.stringify(f.result));
  const predictions = [...finished.values()].filter((f) => f.prediction).map((f) => JSON.stringify(f.prediction));
  writeFileAtomic(join(dir, FILES.results), results.map((l) => l + '\n').join(''));
  writeFileAtomic(join(dir, FILES.predictions), predictions.map((l) => l + '\n').join(''));
  return finished.size;
}

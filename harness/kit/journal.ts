import { join } from 'node:path';
import { appendJsonl, readJsonl } from '../core/jsonl.ts';
import { instanceKey } from './names.ts';
import type { InstanceMetaBase } from './types.ts';

/**
 * The run journal, `instances.jsonl`: one meta per finished instance and trial, appended (and flushed) the moment
 * the instance's files are on disk. It is what `--resume` and filtered re-runs read back, and what `toolgauge
 * report` re-aggregates. A later line for the same key replaces an earlier one (a re-run instance).
 */
export const JOURNAL = 'instances.jsonl';

export function appendJournal(outDir: string, meta: InstanceMetaBase): void {
  appendJsonl(join(outDir, JOURNAL), meta);
}

function isMeta(x: unknown): x is InstanceMetaBase {
  const m = x as Partial<InstanceMetaBase> | null;
  return !!m && typeof m === 'object' && typeof m.suite === 'string' && typeof m.id === 'string' && typeof m.trial === 'number';
}

/** The latest meta per key, in first-seen order; torn or foreign lines are skipped. */
export function readJournal<M extends InstanceMetaBase = InstanceMetaBase>(outDir: string, suite?: string): Map<string, M> {
  const out = new Map<string, M>();
  for (const raw of readJsonl(join(outDir, JOURNAL))) {
    if (!isMeta(raw) || (suite && raw.suite !== suite)) continue;
    out.set(instanceKey(raw.id, raw.trial), raw as M);
  }
  return out;
}

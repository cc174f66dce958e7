import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appendJsonl, readJsonl, writeFileAtomic } from '../../core/jsonl.ts';
import type { ProbeRecord } from './types.ts';

export const PROBE_FILES = { cases: 'cases.jsonl', summary: 'summary.json', report: 'report.md' } as const;

export const recordKey = (id: string, trial: number): string => (trial > 0 ? `${id}__t${trial}` : id);

/** Append one finished case (one write: a killed run loses nothing finished). */
export function writeRecord(dir: string, rec: ProbeRecord): void {
  appendJsonl(join(dir, PROBE_FILES.cases), rec);
}

function isRecord(x: unknown): x is ProbeRecord {
  const r = x as Partial<ProbeRecord> | null;
  return !!r && r.suite === 'probe' && typeof r.id === 'string' && typeof r.trial === 'number' && !!r.cause && !!r.passed;
}

/** Cases already finished in DIR (for `--resume`); torn or foreign lines are ignored, the first line per case wins. */
export function loadFinished(dir: string): Map<string, ProbeRecord> {
  const out = new Map<string, ProbeRecord>();
  for (const raw of readJsonl(join(dir, PROBE_FILES.cases))) {
    if (!isRecord(raw)) continue;
    const k = recordKey(raw.id, raw.trial);
    if (!out.has(k)) out.set(k, raw);
  }
  return out;
}

/** Before a resumed run appends: one clean line per finished case. */
export function tidyForResume(dir: string): number {
  const path = join(dir, PROBE_FILES.cases);
  if (!existsSync(path)) return 0;
  const finished = loadFinished(dir);
  writeFileAtomic(path, [...finished.values()].map((r) => JSON.stringify(r) + '\n').join(''));
  return finished.size;
}

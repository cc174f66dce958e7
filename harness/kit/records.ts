import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appendJsonl, readJsonl, writeFileAtomic } from '../core/jsonl.ts';
import { instanceKey } from './names.ts';

/**
 * Record files: JSONL files with one line per instance and trial (fields `id` and `trial`, trial 0 when absent),
 * written as each instance finishes. The kit keeps them consistent with the journal: on resume only finished
 * instances keep their lines; at the end each key keeps its last line, in the suite's instance order.
 */

function keyOf(line: unknown): string | null {
  if (!line || typeof line !== 'object') return null;
  const r = line as { id?: unknown; trial?: unknown };
  if (r.id === undefined || r.id === null) return null;
  const trial = typeof r.trial === 'number' ? r.trial : 0;
  return instanceKey(String(r.id), trial);
}

export function appendRecord(outDir: string, file: string, line: unknown): void {
  appendJsonl(join(outDir, file), line);
}

/** Keep one line (the last) per key, only for keys `keep` accepts, ordered by `order` (unknown keys last). */
export function rewriteRecords(path: string, keep: (key: string) => boolean, order: (key: string) => number = () => 0): number {
  if (!existsSync(path)) return 0;
  const last = new Map<string, unknown>();
  for (const line of readJsonl(path)) {
    const k = keyOf(line);
    if (k === null || !keep(k)) continue;
    last.delete(k);
    last.set(k, line);
  }
  const sorted = [...last.entries()].map(([k, v], i) => ({ k, v, i })).sort((a, b) => order(a.k) - order(b.k) || a.i - b.i);
  writeFileAtomic(path, sorted.map((e) => JSON.stringify(e.v) + '\n').join(''));
  return sorted.length;
}

export function rewriteRecordFiles(outDir: string, files: readonly string[], keep: (key: string) => boolean, order?: (key: string) => number): void {
  for (const f of files) rewriteRecords(join(outDir, f), keep, order);
}

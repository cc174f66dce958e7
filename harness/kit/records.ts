import { join } from 'node:path';
import { appendJsonl, streamLines, writeFileAtomic } from '../core/jsonl.ts';
import { lstatOrNull, refuseLink } from '../core/nofollow.ts';
import { instanceKey } from './names.ts';

/**
 * Record files: JSONL files with one line per instance and trial (fields `id` and `trial`, trial 0 when absent),
 * written as each instance finishes. The kit keeps them consistent with the journal: on resume only finished
 * instances keep their lines (the line their journal entry sealed); at the end each key keeps its last line, in the
 * suite's instance order. Nothing is read or written through a link planted in a record file's place.
 */

function keyOf(line: unknown): string | null {
  if (!line || typeof line !== 'object') return null;
  const r = line as { id?: unknown; trial?: unknown };
  if (r.id === undefined || r.id === null) return null;
  const trial = typeof r.trial === 'number' ? r.trial : 0;
  return instanceKey(String(r.id), trial);
}

export function appendRecord(outDir: string, file: string, line: unknown): void {
  appendJsonl(join(outDir, file), line, outDir);
}

/** The lines of a record file that name an instance, with its key and its text (torn lines skipped). */
export function recordLines(path: string, root?: string): Array<{ key: string; line: unknown; text: string }> {
  refuseLink(path);
  const out: Array<{ key: string; line: unknown; text: string }> = [];
  if (!lstatOrNull(path)) return out;
  streamLines(
    path,
    ({ text, tooLong }) => {
      if (tooLong || !text.trim()) return;
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        return;
      }
      const key = keyOf(line);
      if (key !== null) out.push({ key, line, text });
    },
    root ? { root } : {},
  );
  return out;
}

/**
 * Keep one line (the last accepted) per key, only lines `keep` accepts, ordered by `order` (unknown keys last).
 * Each kept line is written back as it was (a float stays `2.0`, keys keep their order).
 */
export function rewriteRecords(
  path: string,
  keep: (key: string, line: unknown) => boolean,
  order: (key: string) => number = () => 0,
  root?: string,
): number {
  refuseLink(path);
  if (!lstatOrNull(path)) return 0;
  const last = new Map<string, string>();
  for (const { key, line, text } of recordLines(path, root)) {
    if (!keep(key, line)) continue;
    last.delete(key);
    last.set(key, text);
  }
  const sorted = [...last.entries()]
    .map(([k, v], i) => ({ k, v, i }))
    .sort((a, b) => order(a.k) - order(b.k) || a.i - b.i);
  writeFileAtomic(path, sorted.map((e) => e.v + '\n').join(''), root);
  return sorted.length;
}

export function rewriteRecordFiles(
  outDir: string,
  files: readonly string[],
  keep: (key: string, line: unknown, file: string) => boolean,
  order?: (key: string) => number,
): void {
  for (const f of files) rewriteRecords(join(outDir, f), (k, l) => keep(k, l, f), order, outDir);
}

import { isAbsolute, join, normalize } from 'node:path';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readTextChecked } from '../core/nofollow.ts';

/**
 * A shard's traces travel inside its blob report: CI uploads the blob folder (which Vitest's merge requires to hold
 * blob files only), not the shard's output directory, and the merged report links every failing instance's trace.
 * A shard that writes a blob puts each instance's trace file in the test's meta; the merge writes them into its own
 * output directory.
 */
export interface CarriedTrace {
  path: string;
  content: string;
}

/** The instance's trace file as written, to carry in the blob (undefined when it has none). */
export function carryTrace(outDir: string, trace: string | undefined): CarriedTrace | undefined {
  if (!trace || !safeRelative(trace)) return undefined;
  const content = readTextChecked(join(outDir, trace), { root: outDir });
  return content === null ? undefined : { path: trace, content };
}

/** Write a carried trace under the merged output directory; a path that would leave `traces/` is ignored (blobs are input). */
export function restoreTrace(outDir: string, carried: CarriedTrace | undefined): void {
  if (
    !carried ||
    typeof carried.path !== 'string' ||
    typeof carried.content !== 'string' ||
    !safeRelative(carried.path)
  )
    return;
  writeFileAtomic(join(outDir, carried.path), carried.content, outDir);
}

function safeRelative(p: string): boolean {
  const n = normalize(p);
  return !isAbsolute(n) && n.startsWith('traces/') && !n.split(/[\\/]/).includes('..');
}

import { isAbsolute, join, normalize } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readTextChecked } from '../core/nofollow.ts';

/**
 * A shard's traces travel inside its blob report: CI uploads the blob folder (which Vitest's merge requires to hold
 * blob files only), not the shard's output directory, and the merged report links every failing instance's trace.
 * A shard that writes a blob puts each instance's trace file in the test's meta; the merge writes them into its own
 * output directory.
 */
export type CarriedTrace = { path: string; content: string } | { path: string; gzip: string };

/** The most a carried trace may inflate to: a blob is input, and a small gzip can hold a huge file. */
const MAX_TRACE_BYTES = 64 * 1024 * 1024;

/**
 * The instance's trace file as written, gzipped and base64-encoded, to carry in the blob (undefined when it has
 * none): the merge holds every shard's blob in memory at once, and a trace compresses to about a quarter.
 */
export function carryTrace(outDir: string, trace: string | undefined): CarriedTrace | undefined {
  if (!trace || !safeRelative(trace)) return undefined;
  const content = readTextChecked(join(outDir, trace), { root: outDir });
  return content === null ? undefined : { path: trace, gzip: gzipSync(content).toString('base64') };
}

/** A carried trace's text: plain (blobs of earlier versions) or gzipped; null when it cannot be read. */
function traceText(carried: Record<string, unknown>): string | null {
  if (typeof carried.content === 'string') return carried.content;
  if (typeof carried.gzip !== 'string') return null;
  try {
    return gunzipSync(Buffer.from(carried.gzip, 'base64'), { maxOutputLength: MAX_TRACE_BYTES }).toString('utf8');
  } catch {
    return null;
  }
}

/** Write a carried trace under the merged output directory; a path that would leave `traces/` is ignored (blobs are input). */
export function restoreTrace(outDir: string, carried: CarriedTrace | undefined): void {
  if (!carried || typeof carried !== 'object' || typeof carried.path !== 'string' || !safeRelative(carried.path))
    return;
  const text = traceText(carried as Record<string, unknown>);
  if (text !== null) writeFileAtomic(join(outDir, carried.path), text, outDir);
}

function safeRelative(p: string): boolean {
  const n = normalize(p);
  return !isAbsolute(n) && n.startsWith('traces/') && !n.split(/[\\/]/).includes('..');
}

// Messages between the host and a sandbox worker: one JSON object per line over the worker's stdio.
// Both workers (pyodide-worker.mjs, runtime/cpython_server.py) answer with runtime/toolhop_runtime.py.
import { z } from 'zod';
import { sha256 } from '../core/hash.ts';

/** A request as the host sends it. Every request carries its row's sources: workers keep nothing between calls. */
export interface WorkerRequest {
  id: number;
  op: 'call' | 'check';
  row: string | number;
  index: number;
  name: string;
  sources: string[];
  args?: string;
  maxChars?: number;
}

export const ReadyMessage = z.looseObject({
  ready: z.boolean(),
  error: z.string().optional(),
  pid: z.number().optional(),
  startMs: z.number().optional(),
  snapshot: z.boolean().optional(),
  snapshotBytes: z.number().optional(),
  /** Every call starts from a fresh interpreter state (pyodide: restored heap; python: a fork per call). */
  restore: z.boolean().optional(),
  /** pyodide: references to JavaScript objects gc could still find from Python after hardening (0 expected). */
  jsHandles: z.number().nullable().optional(),
  /** pyodide: whether emscripten's NODEFS is still reachable from the module object. */
  nodefs: z.boolean().optional(),
});
export type ReadyMessage = z.infer<typeof ReadyMessage>;

export const ResponseMessage = z.object({
  id: z.number().nullable(),
  kind: z.enum(['ok', 'exception', 'load_error', 'not_found', 'crash']),
  content: z.string().optional(),
  truncatedFrom: z.number().optional(),
  excType: z.string().optional(),
  message: z.string().optional(),
  recycle: z.boolean().optional(),
  recycleReason: z.string().optional(),
  heapBytes: z.number().optional(),
});
export type ResponseMessage = z.infer<typeof ResponseMessage>;

/**
 * Longest response line a worker may send for content cut at `maxChars` characters: JSON with ASCII escapes
 * takes up to 12 bytes per character (a surrogate pair), plus room for the exception type and the envelope.
 */
export function maxResponseBytes(maxChars: number): number {
  return 12 * maxChars + 64 * 1024;
}

/** Longest request line the host sends (sources and model-written arguments); longer ones are refused. */
export const MAX_REQUEST_BYTES = 32 * 2 ** 20;

/** Identity of a row for worker affinity: the same row id and sources give the same key. */
export function rowKey(rowId: string | number, sources: readonly string[]): string {
  return sha256(JSON.stringify([typeof rowId, String(rowId), sources]));
}

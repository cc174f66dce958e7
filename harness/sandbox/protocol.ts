// Messages between the host and a sandbox worker: one JSON object per line over the worker's stdio.
// Both workers (pyodide-worker.mjs, runtime/cpython_server.py) answer with runtime/toolhop_runtime.py.
import { z } from 'zod';
import { sha256 } from '../core/hash.ts';

/** A request as the host sends it; `sources` is omitted when the worker already holds `key`. */
export interface WorkerRequest {
  id: number;
  op: 'call' | 'check';
  key: string;
  row: string | number;
  index: number;
  name: string;
  sources?: string[];
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
});
export type ReadyMessage = z.infer<typeof ReadyMessage>;

export const ResponseMessage = z.object({
  id: z.number().nullable(),
  kind: z.enum(['ok', 'exception', 'load_error', 'not_found', 'need_sources', 'crash']),
  content: z.string().optional(),
  truncatedFrom: z.number().optional(),
  excType: z.string().optional(),
  message: z.string().optional(),
  recycle: z.boolean().optional(),
  heapBytes: z.number().optional(),
});
export type ResponseMessage = z.infer<typeof ResponseMessage>;

/** Content key of a row: the same row id and sources give the same compiled-code cache entry in a worker. */
export function rowKey(rowId: string | number, sources: readonly string[]): string {
  return sha256(JSON.stringify([typeof rowId, String(rowId), sources]));
}

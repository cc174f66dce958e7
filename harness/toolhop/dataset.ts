import { readFileSync, existsSync } from 'node:fs';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { sha256 } from '../core/hash.ts';
import { fromRoot } from '../core/paths.ts';
import { ToolhopRow } from './row.ts';

/** The bundled, self-written sample used by simulator runs and tests. */
export const BUNDLED_SAMPLE = fromRoot('cases', 'toolhop', 'sample.json');

/** One entry of a dataset file: a valid row, or the reason it is not (a broken row is contained, not fatal). */
export type DatasetEntry =
  | { ok: true; index: number; id: string; row: ToolhopRow }
  | { ok: false; index: number; id: string; error: string };

export interface LoadedDataset {
  file: string;
  sha256: string;
  entries: DatasetEntry[];
}

/** Read a ToolHop file: the original JSON array, or JSONL (one row per line). */
export function loadDatasetFile(file: string): LoadedDataset {
  if (!existsSync(file)) throw new DataError(file, undefined, undefined, 'file not found');
  const text = readFileSync(file, 'utf8');
  const raw = parseRows(file, text);
  const entries = raw.map((value, index): DatasetEntry => {
    const idGuess = value && typeof value === 'object' && 'id' in value ? String((value as { id: unknown }).id) : `row#${index}`;
    if (value instanceof Error) return { ok: false, index, id: `row#${index}`, error: value.message };
    const r = ToolhopRow.safeParse(value);
    if (!r.success) return { ok: false, index, id: idGuess, error: dataErrorFromZod(file, idGuess, r.error).message };
    const problem = crossCheck(r.data);
    if (problem) return { ok: false, index, id: idGuess, error: new DataError(file, idGuess, problem.field, problem.message).message };
    return { ok: true, index, id: String(r.data.id), row: r.data };
  });
  const seen = new Map<string, number>();
  for (const e of entries) {
    const prev = seen.get(e.id);
    if (prev !== undefined && e.ok) {
      entries[e.index] = { ok: false, index: e.index, id: `${e.id}#dup${e.index}`, error: new DataError(file, e.id, 'id', `duplicate id (also row ${prev + 1} of the file, counting from 1)`).message };
    } else seen.set(e.id, e.index);
  }
  return { file, sha256: sha256(text), entries };
}

/** The file's rows as parsed JSON values; in JSONL a line that does not parse is a DataError in its place. */
export function parseRows(file: string, text: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new DataError(file, undefined, undefined, `not valid JSON: ${(err as Error).message}`);
    }
    return data as unknown[];
  }
  // JSONL: a broken line is one broken row, not a broken file.
  return text
    .split('\n')
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => l.trim())
    .map(({ l, i }) => {
      try {
        return JSON.parse(l) as unknown;
      } catch (err) {
        return new DataError(file, `line ${i + 1}`, undefined, `not valid JSON: ${(err as Error).message}`);
      }
    });
}

/** Constraints between fields that zod's per-field schema cannot express. */
function crossCheck(row: ToolhopRow): { field: string; message: string } | undefined {
  const hops = Object.keys(row.tools).length;
  if (hops === 0) return { field: 'tools', message: 'no tools' };
  if (row.functions.length !== hops) return { field: 'functions', message: `${row.functions.length} functions for ${hops} tools` };
  return undefined;
}

export interface Selection {
  limit?: number;
  offset?: number;
  only?: string[];
}

/** The reference runner's order of operations: filter by `only` (ids as strings), then offset, then limit. */
export function selectEntries(entries: DatasetEntry[], sel: Selection): DatasetEntry[] {
  let out = entries;
  if (sel.only && sel.only.length) {
    const wanted = new Set(sel.only.map(String));
    out = out.filter((e) => wanted.has(e.id));
  }
  out = out.slice(sel.offset ?? 0);
  if (sel.limit !== undefined) out = out.slice(0, sel.limit);
  return out;
}

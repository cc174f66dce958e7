import { readFileSync, existsSync } from 'node:fs';
import { assignIds, type AssignedId } from '../core/ids.ts';
import { MAX_LINE_CHARS, streamLines } from '../core/jsonl.ts';
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

/** A row as read, before validation: its parsed JSON (or why it does not parse) and the row number shown. */
interface RawRow {
  value: unknown;
  /** The 1-based row number the user sees: the line in JSONL, the element in a JSON array. */
  row: number;
  /** Why the row is not JSON (a JSONL line that does not parse, or is too long). */
  broken?: string;
}

/**
 * Read a ToolHop file — the original JSON array, or JSONL (one row per line) — and validate the selected rows.
 * Rows are selected before they are validated: with `limit` (and no `only`) reading stops after `offset + limit`
 * rows, so later rows, broken or not, are neither read nor reported; with `only` every row is parsed for its id
 * but only the chosen ones are validated. JSONL is streamed; the sha256 always covers the whole file.
 */
export function loadDatasetFile(file: string, sel: Selection = {}): LoadedDataset {
  if (!existsSync(file)) throw new DataError(file, undefined, undefined, 'file not found');
  const wanted = sel.only && sel.only.length ? new Set(sel.only.map(String)) : undefined;
  const stopAfter = wanted || sel.limit === undefined ? Infinity : (sel.offset ?? 0) + sel.limit;
  const { rows, sha256 } = readRawRows(file, stopAfter);
  const ids = assignIds(rows.map((r) => ({ id: r.broken === undefined ? ownId(r.value) : undefined, row: r.row })));
  let picked = rows.map((r, index) => ({ r, index, id: ids[index]! }));
  if (wanted) picked = picked.filter((p) => wanted.has(p.id.id));
  picked = picked.slice(sel.offset ?? 0);
  if (sel.limit !== undefined) picked = picked.slice(0, sel.limit);
  const entries = picked.map(({ r, index, id }) => entryOf(file, r, index, id));
  return { file, sha256, entries };
}

/** Every row of the file (all of them), for tools that inspect rows as written. */
export function parseRows(file: string): unknown[] {
  return readRawRows(file, Infinity).rows.map((r) =>
    r.broken !== undefined ? new DataError(file, `line ${r.row}`, undefined, r.broken) : r.value,
  );
}

function readRawRows(file: string, stopAfter: number): { rows: RawRow[]; sha256: string } {
  if (startsWithBracket(file)) {
    const text = readFileSync(file, 'utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new DataError(file, undefined, undefined, `not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(data)) throw new DataError(file, undefined, undefined, 'not a JSON array of rows');
    return { rows: data.slice(0, stopAfter).map((value, i) => ({ value, row: i + 1 })), sha256: sha256(text) };
  }
  // JSONL: a broken line is one broken row, not a broken file.
  const rows: RawRow[] = [];
  const { sha256: sha } = streamLines(
    file,
    ({ text, lineNo, tooLong }) => {
      if (!text.trim()) return;
      if (tooLong)
        rows.push({ value: undefined, row: lineNo, broken: `line longer than ${MAX_LINE_CHARS} characters` });
      else {
        try {
          rows.push({ value: JSON.parse(text) as unknown, row: lineNo });
        } catch (err) {
          rows.push({ value: undefined, row: lineNo, broken: `not valid JSON: ${(err as Error).message}` });
        }
      }
      return rows.length < stopAfter;
    },
    { hash: true },
  );
  return { rows, sha256: sha! };
}

/** Whether the file's first non-blank character is `[` (the original JSON array) rather than a JSONL row. */
function startsWithBracket(file: string): boolean {
  let first: string | undefined;
  streamLines(
    file,
    ({ text }) => {
      const t = text.trimStart();
      if (!t) return;
      first = t[0];
      return false;
    },
    { maxLineChars: 4096 },
  );
  return first === '[';
}

function ownId(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, 'id')) return undefined;
  const id = (value as { id: unknown }).id;
  return id === undefined || id === null ? undefined : String(id);
}

function entryOf(file: string, r: RawRow, index: number, assigned: AssignedId): DatasetEntry {
  const id = assigned.id;
  const where = id === ownId(r.value) ? `${r.row} (${id})` : r.row;
  if (r.broken !== undefined)
    return { ok: false, index, id, error: new DataError(file, where, undefined, r.broken).message };
  if (assigned.duplicateOf !== undefined) {
    return {
      ok: false,
      index,
      id,
      error: new DataError(
        file,
        `${r.row} (${ownId(r.value)}, run as ${id})`,
        'id',
        `duplicate id (first at row ${assigned.duplicateOf})`,
      ).message,
    };
  }
  const v = ToolhopRow.safeParse(r.value);
  if (!v.success) return { ok: false, index, id, error: dataErrorFromZod(file, where, v.error).message };
  const problem = crossCheck(v.data);
  if (problem)
    return { ok: false, index, id, error: new DataError(file, where, problem.field, problem.message).message };
  return { ok: true, index, id, row: v.data };
}

/** Constraints between fields that zod's per-field schema cannot express. */
function crossCheck(row: ToolhopRow): { field: string; message: string } | undefined {
  const hops = Object.keys(row.tools).length;
  if (hops === 0) return { field: 'tools', message: 'no tools' };
  if (row.functions.length !== hops)
    return { field: 'functions', message: `${row.functions.length} functions for ${hops} tools` };
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

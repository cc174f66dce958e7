import { sha256 } from './hash.ts';

/**
 * How an instance id travels in a request header (the simulator's routing hint): as itself when it is short and
 * plain, else as `#` and a hash of it. Ids come from data — any length, any character (CR, LF, NUL) — and data
 * never goes into a header verbatim. Responders key their tables by the same function.
 */
export function headerId(id: string): string {
  return /^[\w.:@+-]{1,64}$/.test(id) ? id : `#${sha256(id).slice(0, 24)}`;
}

/** One row's id as read: its own id (absent when the row has none, e.g. a `null` line) and the row number shown. */
export interface IdCandidate {
  id: string | undefined;
  /** The 1-based row (or line) number the user sees in the file. */
  row: number;
}

export interface AssignedId {
  id: string;
  /** For a repeated id: the row number of its first occurrence. */
  duplicateOf?: number;
}

/**
 * Distinct instance ids for a file's rows. A row keeps its own id the first time it occurs; a repeat becomes
 * `<id>#dup<row>` and a row without an id `row#<row>`, and either is bumped (`~2`, `~3`, …) until it differs from
 * every id in the file and every id given so far — a real row may be called `5#dup3`, and two instances never
 * share an id (they would merge in the journal, the records and the summary). Used by every loader that renames.
 */
export function assignIds(rows: readonly IdCandidate[]): AssignedId[] {
  const taken = new Set<string>();
  for (const r of rows) if (r.id !== undefined) taken.add(r.id);
  const first = new Map<string, number>();
  const fresh = (base: string) => firstFree(taken, (k) => (k === 1 ? base : `${base}~${k}`), 1);
  return rows.map((r) => {
    if (r.id === undefined) return { id: fresh(`row#${r.row}`) };
    const prev = first.get(r.id);
    if (prev === undefined) {
      first.set(r.id, r.row);
      return { id: r.id };
    }
    return { id: fresh(`${r.id}#dup${r.row}`), duplicateOf: prev };
  });
}

/**
 * The first of `make(start)`, `make(start + 1)`, … that is not in `taken`; it is added to `taken`. Every renaming
 * (instance ids, tool names shown to a model) goes through here, so a generated name never lands on a real one.
 */
export function firstFree(taken: Set<string>, make: (k: number) => string, start = 0): string {
  for (let k = start; ; k++) {
    const name = make(k);
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

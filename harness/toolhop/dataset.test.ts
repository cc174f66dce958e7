import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { BUNDLED_SAMPLE, loadDatasetFile, selectEntries } from './dataset.ts';
import { ToolhopRow } from './row.ts';
import { toolEntries } from './tools.ts';

const sample = JSON.parse(readFileSync(BUNDLED_SAMPLE, 'utf8')) as Array<Record<string, unknown>>;

function withFile(content: string, fn: (path: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-ds-'));
  try {
    const p = join(dir, 'data.json');
    writeFileSync(p, content);
    fn(p);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('ToolHop dataset loading', () => {
  it('loads the bundled sample: every row valid, ids unique, duplicate tool names suffixed', () => {
    const ds = loadDatasetFile(BUNDLED_SAMPLE);
    expect(ds.entries.every((e) => e.ok)).toBe(true);
    const row4 = ds.entries.find((e) => e.id === '4');
    expect(row4?.ok).toBe(true);
    if (row4?.ok)
      expect(toolEntries(row4.row).map((t) => t.runtimeName)).toEqual([
        'genealogy_query__0',
        'genealogy_query__1',
        'extract_last_name',
        'first_letter',
      ]);
    expect(ds.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('contains a broken row and names the file, the row and the field; other rows still load', () => {
    const rows = structuredClone(sample);
    delete (rows[2] as Record<string, unknown>).answer;
    (rows[5] as { tools: Record<string, { parameters: { type: string } }> }).tools[
      Object.keys((rows[5] as { tools: object }).tools)[0]!
    ]!.parameters.type = 'array';
    withFile(JSON.stringify(rows), (p) => {
      const ds = loadDatasetFile(p);
      const bad = ds.entries.filter((e) => !e.ok);
      expect(bad.map((e) => e.id)).toEqual(['11', '5']);
      expect((bad[0] as { error: string }).error).toMatch(
        new RegExp(`${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: row 3 \\(11\\): field answer: `),
      );
      expect((bad[1] as { error: string }).error).toMatch(/row 6 \(5\): field tools\..*parameters\.type/);
      expect(ds.entries.filter((e) => e.ok)).toHaveLength(rows.length - 2);
    });
  });

  it('reads JSONL, where one unparseable line is one broken row', () => {
    const lines = sample.slice(0, 3).map((r) => JSON.stringify(r));
    lines.splice(1, 0, '{"id": 99, "question": ');
    withFile(lines.join('\n') + '\n', (p) => {
      const ds = loadDatasetFile(p);
      expect(ds.entries).toHaveLength(4);
      expect(ds.entries[1]!.ok).toBe(false);
      expect((ds.entries[1] as { error: string }).error).toMatch(/: row 2: not valid JSON/);
    });
  });

  it('flags duplicate ids and a functions/tools count mismatch', () => {
    const rows = structuredClone(sample.slice(0, 3));
    rows[1]!.id = rows[0]!.id;
    (rows[2]!.functions as string[]).pop();
    withFile(JSON.stringify(rows), (p) => {
      const errors = loadDatasetFile(p)
        .entries.filter((e) => !e.ok)
        .map((e) => (e as { error: string }).error);
      // The first of the two is the file's first row, counted from 1.
      expect(errors.some((e) => /field id: duplicate id \(first at row 1\)/.test(e))).toBe(true);
      expect(errors.some((e) => /field functions: 3 functions for 4 tools/.test(e))).toBe(true);
    });
  });

  it('gives every row a distinct id: a renamed duplicate or an id-less line never takes a real id', () => {
    const row = (id: unknown) => ({ ...structuredClone(sample[0]!), id });
    // Layouts where a rename lands on an id a real row already has (`5#dup2`, `row#1`, `row#2`).
    const layouts: Array<Array<unknown>> = [
      [row(5), row(5), row('5#dup2')],
      [row(5), row(7), row(5), row('5#dup2'), row('5#dup3')],
      [row('row#1'), null],
      [row('row#2'), null, null],
      [null, row('row#1')],
    ];
    for (const rows of layouts) {
      withFile(rows.map((r) => JSON.stringify(r)).join('\n') + '\n', (p) => {
        const ids = loadDatasetFile(p).entries.map((e) => e.id);
        expect(ids, JSON.stringify(rows.map((r) => (r as { id?: unknown } | null)?.id ?? null))).toHaveLength(
          rows.length,
        );
        expect(new Set(ids).size, ids.join(' ')).toBe(rows.length);
      });
    }
  });

  it('names a duplicate by the row number the user sees (1-based, the line in JSONL) and by its first row', () => {
    const line = JSON.stringify(sample[0]);
    withFile(`${line}\n\n${line}\n`, (p) => {
      const bad = loadDatasetFile(p).entries.filter((e) => !e.ok);
      expect(bad).toHaveLength(1);
      expect((bad[0] as { error: string }).error).toMatch(
        /: row 3 \(1, run as 1#dup3\): field id: duplicate id \(first at row 1\)$/,
      );
    });
    withFile(JSON.stringify([sample[1], sample[0], sample[0]]), (p) => {
      const bad = loadDatasetFile(p).entries.filter((e) => !e.ok);
      expect((bad[0] as { error: string }).error).toMatch(/: row 3 \(1, run as 1#dup3\): .*first at row 2\)$/);
    });
  });

  it('selects rows before validating them: with --limit 2 a broken third row is neither read nor reported', () => {
    const lines = [
      JSON.stringify(sample[0]),
      JSON.stringify(sample[1]),
      '{"id": 3, "question": ',
      ...sample.slice(2).map((r) => JSON.stringify(r)),
    ];
    const text = lines.join('\n') + '\n';
    withFile(text, (p) => {
      const validate = vi.spyOn(ToolhopRow, 'safeParse');
      try {
        const ds = loadDatasetFile(p, { limit: 2 });
        expect(ds.entries.map((e) => [e.id, e.ok])).toEqual([
          [String(sample[0]!.id), true],
          [String(sample[1]!.id), true],
        ]);
        expect(validate).toHaveBeenCalledTimes(2);
        // The dataset's identity still covers every byte of the file.
        expect(ds.sha256).toBe(createHash('sha256').update(text).digest('hex'));
        validate.mockClear();
        // --only parses every row for its id but validates only the chosen one; offset applies after it.
        const only = loadDatasetFile(p, { only: [String(sample[4]!.id)] });
        expect(only.entries.map((e) => e.id)).toEqual([String(sample[4]!.id)]);
        expect(validate).toHaveBeenCalledTimes(1);
        expect(loadDatasetFile(p, { offset: 1, limit: 2 }).entries.map((e) => e.ok)).toEqual([true, false]);
      } finally {
        validate.mockRestore();
      }
    });
  });

  it('selects like the reference runner: only (by id string), then offset, then limit', () => {
    const ds = loadDatasetFile(BUNDLED_SAMPLE);
    // File order, not id order: row 11 comes third in the bundled sample (so the default --limit 5 includes it).
    expect(selectEntries(ds.entries, { limit: 3 }).map((e) => e.id)).toEqual(['1', '2', '11']);
    expect(selectEntries(ds.entries, { offset: 9, limit: 5 }).map((e) => e.id)).toEqual(['9', '10']);
    expect(selectEntries(ds.entries, { only: ['7', '2', '11'], offset: 1, limit: 1 }).map((e) => e.id)).toEqual(['11']);
  });
});

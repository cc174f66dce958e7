import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_SAMPLE, loadDatasetFile, selectEntries } from './dataset.ts';
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
    if (row4?.ok) expect(toolEntries(row4.row).map((t) => t.runtimeName)).toEqual(['genealogy_query__0', 'genealogy_query__1', 'extract_last_name', 'first_letter']);
    expect(ds.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('contains a broken row and names the file, the row and the field; other rows still load', () => {
    const rows = structuredClone(sample);
    delete (rows[2] as Record<string, unknown>).answer;
    (rows[5] as { tools: Record<string, { parameters: { type: string } }> }).tools[Object.keys((rows[5] as { tools: object }).tools)[0]!]!.parameters.type = 'array';
    withFile(JSON.stringify(rows), (p) => {
      const ds = loadDatasetFile(p);
      const bad = ds.entries.filter((e) => !e.ok);
      expect(bad.map((e) => e.id)).toEqual(['11', '5']);
      expect((bad[0] as { error: string }).error).toMatch(new RegExp(`${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: row 11: field answer: `));
      expect((bad[1] as { error: string }).error).toMatch(/row 5: field tools\..*parameters\.type/);
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
      expect((ds.entries[1] as { error: string }).error).toMatch(/line 2.*not valid JSON/);
    });
  });

  it('flags duplicate ids and a functions/tools count mismatch', () => {
    const rows = structuredClone(sample.slice(0, 3));
    rows[1]!.id = rows[0]!.id;
    (rows[2]!.functions as string[]).pop();
    withFile(JSON.stringify(rows), (p) => {
      const errors = loadDatasetFile(p).entries.filter((e) => !e.ok).map((e) => (e as { error: string }).error);
      // The first of the two is the file's first row, counted from 1.
      expect(errors.some((e) => /field id: duplicate id \(also row 1 of the file, counting from 1\)/.test(e))).toBe(true);
      expect(errors.some((e) => /field functions: 3 functions for 4 tools/.test(e))).toBe(true);
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

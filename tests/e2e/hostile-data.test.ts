import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { validSummary } from '../../harness/report/summary.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// Rows whose ids and fields are hostile to file systems, headers, objects and Markdown: every one is run, counted
// and named apart, and nothing from the data becomes markup in the report.

const LONG = `row-${'x'.repeat(300)}`;
const IDS = [LONG, 'a/b', 'a_b', 'line\r\nbreak\u0000', '<img src=x onerror=alert(1)>'];

describe('hostile rows', () => {
  it('long, colliding and control-character ids, a __proto__ domain and markup in the data', async () => {
    const dir = tempDir('hostile');
    const rows = JSON.parse(readFileSync(fromRoot('cases', 'toolhop', 'sample.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    const hostile = IDS.map((id, i) => ({
      ...rows[i]!,
      id,
      domain:
        i === 0
          ? '__proto__'
          : i === 1
            ? '![beacon](http://example.invalid/p.png) | <script>x</script>'
            : rows[i]!.domain,
    }));
    const data = join(dir, 'hostile.json');
    writeFileSync(data, JSON.stringify(hostile));
    const out = join(dir, 'out');
    // In process: the kit's sessions, names, files and finalize, over HTTP to the simulator, tools in the sandbox.
    const run = await runSuite(toolhopSuite, {
      TOOLHOP_DATA: data,
      TOOLHOP_LIMIT: '10',
      TOOLGAUGE_OUT_DIR: out,
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
    });
    expect(run.finalized.harnessErrors).toBe(0);
    // Every row is in the results and in the denominator, each under its own id.
    const results = readLines<{ id: string; correct: boolean; error: string | null }>(join(out, 'results.jsonl'));
    expect(results.map((x) => x.id).sort()).toEqual([...IDS].sort());
    expect(results.every((x) => x.correct && !x.error)).toBe(true);
    const s = validSummary(readJson(join(out, 'summary.json')));
    expect(s.metrics.accuracy).toMatchObject({ value: 1, n: IDS.length });
    // One trace per row, no two rows sharing a file, every name short.
    const traces = readdirSync(join(out, 'traces'));
    expect(traces.filter((t) => t.endsWith('.json'))).toHaveLength(IDS.length);
    expect(traces.filter((t) => t.endsWith('.txt'))).toHaveLength(IDS.length);
    expect(Math.max(...traces.map((t) => t.length))).toBeLessThan(80);
    // A domain named __proto__ is a breakdown row like any other.
    expect(Object.keys(s.breakdowns.domain ?? {})).toContain('__proto__');
    // Markup from the data is inert in the report.
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).not.toMatch(/<script>|<img |!\[beacon\]\(/);
  });

  it('a repeated id renamed onto a real id, and a null line, stay separate instances in the journal, records and summary', async () => {
    const dir = tempDir('dup-ids');
    const rows = JSON.parse(readFileSync(fromRoot('cases', 'toolhop', 'sample.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    // `5` twice, and a real `5#dup2`: a rename by 0-based position would land on it. `row#1` and `row#6` are the
    // names a null line could get.
    const lines = [
      { ...rows[0], id: 5 },
      { ...rows[1], id: 7 },
      { ...rows[2], id: 5 },
      { ...rows[3], id: '5#dup2' },
      { ...rows[4], id: 'row#6' },
      null,
      { ...rows[5], id: 'row#1' },
    ];
    const data = join(dir, 'dup.jsonl');
    writeFileSync(data, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = join(dir, 'out');
    const run = await runSuite(toolhopSuite, { TOOLHOP_DATA: data, TOOLHOP_LIMIT: '10', TOOLGAUGE_OUT_DIR: out });
    const ids = run.metas.map((m) => m.id);
    expect(ids).toHaveLength(lines.length);
    expect(new Set(ids).size).toBe(lines.length);
    expect(readLines<{ id: string }>(join(out, 'instances.jsonl'))).toHaveLength(lines.length);
    expect(readLines(join(out, 'results.jsonl'))).toHaveLength(lines.length);
    expect(validSummary(readJson(join(out, 'summary.json'))).counts).toMatchObject({ instances: lines.length });
    // The renamed duplicate says where it is and where its id came first, by the row numbers of the file.
    const dup = run.metas.find((m) => m.error?.includes('duplicate id'));
    expect(dup?.error).toMatch(/dup\.jsonl: row 3 \(5, run as 5#dup3\): field id: duplicate id \(first at row 1\)/);
  });
});

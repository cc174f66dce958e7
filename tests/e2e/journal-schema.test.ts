import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bfclSuite } from '../../harness/bfcl/suite.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import type { TaskOutput } from '../../harness/kit/eval/types.ts';
import { sealMeta } from '../../harness/kit/journal.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { AnySuite, InstanceMetaBase } from '../../harness/kit/types.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { loadMazeTasks } from '../../harness/maze/task.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { inProcess, tempDir } from '../helpers/cli.ts';

// Every suite checks each journal line it reads back against its own meta schema: a line without a field its
// aggregation reads is refused, naming the file, the line and the field — never a crash in aggregation, never numbers
// silently computed without it, and the summary on disk stays the one the run wrote. One tiny in-process run per
// suite (the kit's sessions and finalize, real HTTP to the simulator); `toolgauge report DIR` reads the copies (in this
// process, one at a time: it captures stdout and stderr).

/** The journal's lines, and a writer for an edited copy. */
function journalOf(out: string) {
  const path = join(out, 'instances.jsonl');
  const rows = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    path,
    rows,
    write: (rs: Array<Record<string, unknown>>) =>
      writeFileSync(path, rs.map((r) => JSON.stringify(r) + '\n').join('')),
  };
}

/**
 * Delete `field` (a dotted path) from line `line` (1-based) of the journal in `dir`, and seal the line again as one
 * who can write the directory can (or, `unsealed`, drop its seal as an older toolgauge's line has none): the seal
 * check no longer stands in the way, the suite's schema must.
 */
function withoutField(dir: string, line: number, field: string, o: { unsealed?: boolean } = {}): string {
  const j = journalOf(dir);
  const keys = field.split('.');
  const { seal, ...row } = j.rows[line - 1] as Record<string, unknown> & { seal: { records: Record<string, string> } };
  let at = row as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  expect(at, field).toHaveProperty(keys.at(-1)!);
  delete at[keys.at(-1)!];
  j.rows[line - 1] = o.unsealed
    ? row
    : (sealMeta(row as unknown as InstanceMetaBase, seal.records) as unknown as Record<string, unknown>);
  j.write(j.rows);
  return j.path;
}

/** `report` on a copy of `out` whose line `line` lacks `field` refuses it with file, line and field; nothing is written. */
async function refusedWithout(out: string, line: number, field: string, o: { unsealed?: boolean } = {}) {
  const copy = tempDir('schema-copy');
  cpSync(out, copy, { recursive: true });
  const path = withoutField(copy, line, field, o);
  const j = { path };
  const summary = readFileSync(join(copy, 'summary.json'), 'utf8');
  const r = await inProcess(['report', copy], {});
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toContain(`${j.path} line ${line}: field ${field}`);
  expect(readFileSync(join(copy, 'summary.json'), 'utf8')).toBe(summary);
  expect(existsSync(join(copy, 'summary.json.stale'))).toBe(false);
}

/** A finished run of `def`, whose own journal `report` accepts as it is. */
async function finishedRun(def: AnySuite, env: Record<string, string>): Promise<string> {
  const out = tempDir(`schema-${def.name}`);
  const run = await runSuite(def, { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: out, ...env });
  expect(run.finalized.harnessErrors).toBe(0);
  const r = await inProcess(['report', out], {});
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return out;
}

describe('a journal line without a field its aggregation reads is refused, naming file, line and field', () => {
  it('maze: the run cost ratio, the recovery, the complexity', async () => {
    const only = loadMazeTasks(undefined, ['c1'])
      .slice(0, 2)
      .map((t) => t.id)
      .join(',');
    const out = await finishedRun(mazeSuite, { TOOLGAUGE_MAZE_ONLY: only, TOOLGAUGE_MAZE_MODES: 'P0' });
    await refusedWithout(out, 2, 'rc');
    await refusedWithout(out, 1, 'recovery');
    await refusedWithout(out, 1, 'complexity', { unsealed: true });
  });

  it("probe: the cause under a tier, the case's category, a tier's parse", async () => {
    const out = await finishedRun(probeSuite, { TOOLGAUGE_PROBE_ONLY: 'c1_weather_dev_000,c1_weather_dev_001' });
    await refusedWithout(out, 1, 'cause.strict');
    await refusedWithout(out, 2, 'cat');
    await refusedWithout(out, 1, 'parse.lenient.truncated', { unsealed: true });
  });

  it("bfcl: the category, BFCL's verdict, the usage", async () => {
    const out = await finishedRun(bfclSuite, {
      TOOLGAUGE_BFCL_DATA: fromRoot('fixtures', 'bfcl', 'data'),
      TOOLGAUGE_BFCL_CATEGORY: 'simple_python',
      TOOLGAUGE_BFCL_LIMIT: '2',
    });
    await refusedWithout(out, 1, 'category');
    await refusedWithout(out, 2, 'valid');
    await refusedWithout(out, 1, 'usage', { unsealed: true });
  });

  it("describeEval: a scorer's score (which would count 0) is refused on resume and by report", async () => {
    const answer = (a: string): TaskOutput =>
      ({
        output: a,
        answer: a,
        toolCalls: [],
        messages: [],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        turns: 1,
      }) as unknown as TaskOutput;
    const def = evalSuite('schema-eval', {
      data: () => [
        { input: 'a', expected: 'a' },
        { input: 'b', expected: 'b' },
      ],
      task: async (input) => answer(input),
      scorers: [{ name: 'exact', score: ({ output, expected }) => output.answer === expected }],
    });
    const out = tempDir('schema-eval');
    const env = { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: out };
    await runSuite(def, env);
    // `report DIR` does not know the suite: its summary's config names the scorers.
    await refusedWithout(out, 2, 'scores.exact', { unsealed: true });
    const j = { path: withoutField(out, 2, 'scores.exact') };
    const summary = readFileSync(join(out, 'summary.json'), 'utf8');
    await expect(runSuite(def, { ...env, TOOLGAUGE_RESUME: '1' })).rejects.toThrow(
      `${j.path} line 2: field scores.exact`,
    );
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(summary);
  });
});

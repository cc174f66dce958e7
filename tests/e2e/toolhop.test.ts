import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SummarySchema, validSummary } from '../../harness/report/summary.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { tracePath } from '../../harness/kit/names.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { toolhopAggregator } from '../../harness/toolhop/aggregator.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { inProcess, readJson, readLines, tempDir, toolgauge } from '../helpers/cli.ts';

// End to end through the real CLI: Vitest's Node API, the simulator over HTTP, the pyodide sandbox running the
// bundled sample's Python tools, the scorer and the reporter.

const EXEC = { TOOLHOP_ALLOW_DATASET_EXEC: '1' };
// Where the interpreter is not the subject (retries, scoring, filters, rescoring): the CPython sandbox, cheaper to start.
const CPY = { ...EXEC, TOOLGAUGE_SANDBOX: 'python' };
type Result = { id: string | number; correct: boolean; error: string | null; rule: string | null; gold_answer: string };
type Prediction = {
  id: string | number;
  previous_tool_content: string;
  final_message: string;
  gold_answer: string;
  tool_calls: number;
};

/** A ToolHop run in process: the kit's sessions, files and finalize, real HTTP to the simulator, the real sandbox. */
async function inProc(env: Record<string, string>, out: string) {
  return runSuite(toolhopSuite, { ...env, TOOLGAUGE_OUT_DIR: out });
}

describe('toolgauge toolhop on the simulator and the bundled sample', () => {
  it('sim:oracle executes every hop in the sandbox and scores 11/11; files, report and gate agree', async () => {
    const out = tempDir('oracle');
    const refOut = join(out, 'reference-predictions.jsonl');
    const r = await toolgauge(
      [
        'toolhop',
        '--model',
        'sim:oracle',
        '--limit',
        '20',
        '--out-dir',
        out,
        '--gate',
        'accuracy>=0.9',
        '--out',
        refOut,
      ],
      EXEC,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results).toHaveLength(11);
    // --out: the reference runner's predictions file, one {idx, id, question, predicted_answer} per row.
    const ref = readLines<{ idx: string; id: string; question: string; predicted_answer: string }>(refOut);
    expect(ref).toHaveLength(11);
    expect(Object.keys(ref[0]!)).toEqual(['idx', 'id', 'question', 'predicted_answer']);
    expect(results.every((x) => x.correct && !x.error)).toBe(true);
    const preds = readLines<Prediction>(join(out, 'predictions.jsonl'));
    expect(preds.reduce((s, p) => s + p.tool_calls, 0)).toBe(36);
    const trace = readJson<{ tool_executions: Array<{ name: string; content: string; meta: { outcome: string } }> }>(
      join(out, tracePath('6', 0)),
    );
    // Row 6 runs pytz inside the sandbox: Europe/Oslo is UTC+1 in January.
    expect(trace.tool_executions.map((t) => t.content)).toEqual(['"Tromsby"', '"Europe/Oslo"', '1']);
    const summary = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect(summary.notice).toMatch(/SIMULATOR RUN/);
    expect(summary.metrics.accuracy).toMatchObject({ value: 1, n: 11 });
    expect(summary.gate?.passed).toBe(true);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toContain('SIMULATOR RUN');
    expect(report).toContain('charts/accuracy.svg');
    expect(existsSync(join(out, 'charts', 'accuracy.svg'))).toBe(true);
    expect(r.stdout).toMatch(/accuracy 1\.000 \[0\.\d+, 1\.000\]\s+n=11/);
  });

  it('sim:wrong scores 0 except where the gold answer is in the last tool result; the gate fails', async () => {
    const out = tempDir('wrong');
    const run = await inProc(
      { ...CPY, TOOLGAUGE_MODEL: 'sim:wrong', TOOLHOP_LIMIT: '20', TOOLGAUGE_GATE: 'accuracy>=0.9' },
      out,
    );
    const results = readLines<Result>(join(out, 'results.jsonl'));
    const preds = new Map(readLines<Prediction>(join(out, 'predictions.jsonl')).map((p) => [p.id, p]));
    expect(results).toHaveLength(11);
    for (const x of results) {
      const p = preds.get(x.id)!;
      const inTool = p.previous_tool_content
        .replace(/\.0$/, '')
        .replace(/,/g, '')
        .toLowerCase()
        .includes(x.gold_answer.replace(/\.0$/, '').toLowerCase());
      expect(x.correct, `row ${x.id}`).toBe(inTool);
      if (x.correct) expect(x.rule).toBe('tool_result');
    }
    // Rows 3 and 10 end with a tool result the model must reformat ('April 3, 1911', 'TUE'): there the wrong answer stays wrong.
    expect(
      results
        .filter((x) => !x.correct)
        .map((x) => x.id)
        .sort(),
    ).toEqual([10, 3]);
    const s = validSummary(readJson(join(out, 'summary.json')));
    expect(s.gate?.passed).toBe(false);
    // The reference's accuracy credits the tool result; strict_accuracy (rules 1–2) says what the model answered.
    expect(s.metrics.accuracy).toMatchObject({ n: 11 });
    expect((s.metrics.accuracy as { value: number }).value).toBeCloseTo(9 / 11, 5);
    expect(s.metrics.strict_accuracy).toMatchObject({ value: 0, n: 11 });
    expect(s.extra.rules).toEqual({ literal: 0, substring: 0, tool_result: 9 });
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toMatch(/\| 3 gold in the last tool result \| 9 \|/);
    expect(report).toMatch(/## Failing instances[\s\S]*\*\*3\*\*: wrong answer: gold/);
    expect(toolhopAggregator.terminal(run.finalized.summary, out)).toMatch(
      /credited by rule: literal 0, substring 0, gold in the last tool result 9/,
    );
  });

  it('without TOOLHOP_ALLOW_DATASET_EXEC every instance is an error naming the variable, counted as wrong', async () => {
    const out = tempDir('noexec');
    const run = await inProc({ TOOLGAUGE_MODEL: 'sim:oracle', TOOLHOP_LIMIT: '3' }, out);
    expect(run.finalized.harnessErrors).toBe(3);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results).toHaveLength(3);
    for (const x of results) {
      expect(x.correct).toBe(false);
      expect(x.error).toMatch(/TOOLHOP_ALLOW_DATASET_EXEC=1/);
    }
    expect(toolhopAggregator.terminal(run.finalized.summary, out)).toMatch(/3 errors/);
  });

  it('sim:flaky?rate=0.2 reaches the oracle accuracy through retries (429, 500, hung and truncated responses)', async () => {
    const out = tempDir('flaky');
    const run = await inProc(
      {
        ...CPY,
        TOOLGAUGE_MODEL: 'sim:flaky?rate=0.2&seed=1',
        TOOLHOP_LIMIT: '20',
        TOOLGAUGE_REQUEST_TIMEOUT_MS: '400',
      },
      out,
    );
    expect(run.finalized.harnessErrors).toBe(0);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results.filter((x) => x.correct)).toHaveLength(11);
    const retried = readLines<{ id: string }>(join(out, 'instances.jsonl')).reduce(
      (s, m) => s + Number((m as { retries?: number }).retries ?? 0),
      0,
    );
    expect(retried).toBeGreaterThan(3);
  });

  it('an instance whose endpoint keeps failing is an error, not a wrong answer', async () => {
    const out = tempDir('down');
    const run = await inProc(
      {
        ...CPY,
        TOOLGAUGE_MODEL: 'sim:flaky?rate=1',
        TOOLHOP_LIMIT: '2',
        TOOLGAUGE_RETRIES: '2',
        TOOLGAUGE_REQUEST_TIMEOUT_MS: '300',
      },
      out,
    );
    expect(run.finalized.harnessErrors).toBe(2);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results).toHaveLength(2);
    for (const x of results) expect(x.error).toMatch(/endpoint failed after 3 attempt/);
  });

  // `toolgauge … -t` is covered by the kit's re-run test, `-t` through plain Vitest by tests/e2e/resume.test.ts (the
  // plain run that also holds the directory against a second one).
  it('an empty selection fails the gate', async () => {
    const empty = await inProcess(
      ['toolhop', '--model', 'sim:oracle', '--limit', '0', '--out-dir', tempDir('empty'), '--gate', 'accuracy>=0'],
      CPY,
    );
    expect(empty.code).not.toBe(0);
  });

  it('rescore recomputes correctness from predictions.jsonl alone', async () => {
    const out = tempDir('rescore');
    expect(
      (await inProc({ ...CPY, TOOLGAUGE_MODEL: 'sim:oracle', TOOLHOP_LIMIT: '3' }, out)).finalized.harnessErrors,
    ).toBe(0);
    const path = join(out, 'predictions.jsonl');
    const preds = readLines<Prediction>(path);
    preds[0]!.final_message = '<answer>qqq</answer>'; // contains none of the sample's gold answers
    preds[0]!.previous_tool_content = '';
    writeFileSync(path, preds.map((p) => JSON.stringify(p) + '\n').join(''));
    // In process: rescore reads and writes files only (the command's own start is covered by the other CLI runs).
    const r = await inProcess(['toolhop', 'rescore', '--out-dir', out], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rescored 3 predictions.*2 correct, 1 changed/);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results.filter((x) => !x.correct).map((x) => x.id)).toEqual([preds[0]!.id]);
    expect(
      readJson<{ metrics: { accuracy: { value: number } } }>(join(out, 'summary.json')).metrics.accuracy.value,
    ).toBeCloseTo(2 / 3, 5);
  });

  it('bad flags and values exit 2 with one line naming the flag', async () => {
    const a = await inProcess(['toolhop', '--limit', 'lots'], {});
    expect(a.code).toBe(2);
    expect(a.stderr.trim()).toBe("toolgauge toolhop: --limit must be a number (got 'lots')");
    const b = await inProcess(['toolhop', '--model', 'sim:coin?p=7'], {});
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/option 'p'/);
    const c = await inProcess(['toolhop', '--sandbox', 'docker'], {});
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/--sandbox must be one of auto\|pyodide\|python/);
  });

  it('a timeout beyond 2^31-1 ms (which Node would fire after 1 ms) exits 2 with one line, for every timeout flag and variable', async () => {
    for (const [cmd, flag] of [
      ['toolhop', 'tool-timeout'],
      ['toolhop', 'request-timeout'],
      ['toolhop', 'request-deadline'],
      ['optimize', 'tool-timeout'],
      ['optimize', 'request-timeout'],
    ] as const) {
      const r = await inProcess([cmd, `--${flag}`, '2147483648'], {});
      expect(r.code, `${cmd} --${flag}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim()).toMatch(
        new RegExp(`^toolgauge ${cmd}: --${flag} must be <= 2147483647 .*\\(got '2147483648'\\)$`),
      );
    }
    for (const v of ['TOOLGAUGE_TOOL_TIMEOUT_MS', 'TOOLGAUGE_REQUEST_TIMEOUT_MS', 'TOOLGAUGE_REQUEST_DEADLINE_MS']) {
      const r = await inProcess(['toolhop', '--limit', '1'], { [v]: '2147483648' });
      expect(r.code, `${v}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`${v} must be <= 2147483647`));
    }
  });

  it('--smoke-dataset checks structure without a model or tool execution', async () => {
    const r = await inProcess(['toolhop', '--smoke-dataset', '--limit', '20'], {});
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(s).toMatchObject({
      num_samples: 11,
      unique_ids: 11,
      source_parse_or_compile_errors: 0,
      tool_function_name_mismatches: 0,
    });
    expect(s.duplicate_tool_names).toEqual([{ id: '4', names: ['genealogy_query'] }]);
    expect(s.answer_literal_types).toEqual({ raw_string: 6, int: 5 });
  });

  it('a runaway tool (endless loop, 4 GiB allocation) becomes a tool error; the run goes on', async () => {
    const rows = readJson<Array<{ id: number; functions: string[]; tools: Record<string, { name: string }> }>>(
      join(fromRoot(), 'cases', 'toolhop', 'sample.json'),
    ).slice(0, 3);
    const firstName = (i: number) => Object.values(rows[i]!.tools)[0]!.name;
    rows[0]!.functions[0] = `def ${firstName(0)}(**kwargs):\n    while True:\n        pass\n`;
    rows[1]!.functions[0] = `def ${firstName(1)}(**kwargs):\n    return len('x' * (4 * 1024 ** 3))\n`;
    const dir = tempDir('runaway');
    const data = join(dir, 'runaway.json');
    writeFileSync(data, JSON.stringify(rows));
    const out = join(dir, 'out');
    const run = await inProc(
      { ...EXEC, TOOLHOP_DATA: data, TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_TOOL_TIMEOUT_MS: '1500' },
      out,
    );
    expect(run.finalized.harnessErrors).toBe(0);
    const results = readLines<Result>(join(out, 'results.jsonl'));
    expect(results.map((x) => x.error)).toEqual([null, null, null]);
    const first = (id: number) =>
      readJson<{ tool_executions: Array<{ content: string; meta: { outcome: string } }> }>(
        join(out, tracePath(String(id), 0)),
      ).tool_executions[0]!;
    expect(first(rows[0]!.id).meta.outcome).toBe('timeout');
    expect(first(rows[0]!.id).content).toMatch(/^an error occurred when calling /);
    expect(['memory', 'exception']).toContain(first(rows[1]!.id).meta.outcome);
    // pyodide (wasm32) refuses the size as OverflowError, CPython raises MemoryError: either way a tool error.
    expect(first(rows[1]!.id).content).toMatch(/^an error occurred when calling \w+: .*(memory|index-sized)/i);
    // The third row is untouched and scores as usual.
    expect(results.find((x) => String(x.id) === String(rows[2]!.id))!.correct).toBe(true);
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { mapCase, reasonsFrom } from './cases.ts';
import { isTruncated, prettyArgs } from '../kit/case-view/conversation.ts';
import { mazeEvaluationPath } from '../maze/case-view.ts';
import '../builtin/index.ts';
import { causeCounts, comparisons, viewData } from './data.ts';
import { scriptJson } from './html.ts';
import { insideDir, loadRunDir, runDirs } from './load.ts';
import type { CaseRow, Section } from './model.ts';
import { applyQuery, decodeHash, EMPTY_QUERY, encodeHash, joinRuns, rowReasons, type Query } from './page/ledger.ts';

const root = mkdtempSync(join(tmpdir(), 'tg-view-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const header = {
  toolgauge_version: '0.1.0',
  git_commit: null,
  git_dirty: null,
  node: 'v20',
  os: 'linux',
  cpu: 'cpu',
  cpus: 2,
  ram_gib: 1,
  endpoint: 'built-in simulator',
  model: 'sim:oracle',
  simulated: true,
  generation: { temperature: 0 },
  dataset: { file: 'd.json', sha256: 'a'.repeat(64) },
  template_sha256: null,
  injected_date: '2026-01-01',
  seed: 0,
  trials: 1,
  started_at: 't0',
  ended_at: 't1',
};
const estimate = (value: number, n: number) => ({
  value,
  lo: 0,
  hi: 1,
  n,
  denominator: 'instances',
  method: 'wilson',
  level: 0.95,
});

/** A run directory of a scored eval named `suite`: summary.json, the journal's lines as given, trace files. */
function evalRun(name: string, lines: string[], files: Record<string, unknown> = {}, suite = 'unitEval'): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'traces'), { recursive: true });
  const summary = {
    schema: 'toolgauge.summary/1',
    suite,
    notice: 'SIMULATOR RUN',
    header,
    config: { scorers: ['exact'] },
    counts: { instances: 2 },
    metrics: { pass_rate: estimate(0.5, 2) },
    breakdowns: { op: { add: { pass_rate: estimate(1, 1) } } },
    errors: [],
    extra: {},
    gate: null,
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  writeFileSync(join(dir, 'instances.jsonl'), lines.map((l) => l + '\n').join(''));
  for (const [f, v] of Object.entries(files))
    writeFileSync(join(dir, f), typeof v === 'string' ? v : JSON.stringify(v));
  return dir;
}
const meta = (id: string, o: Record<string, unknown> = {}) =>
  JSON.stringify({
    suite: 'unitEval',
    id,
    trial: 0,
    error: null,
    pass: true,
    reason: null,
    scores: { exact: 1 },
    tags: { op: 'add' },
    ...o,
  });
const output = (answer: string) => ({
  output: `<answer>${answer}</answer>`,
  answer,
  toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 }, argumentsJson: '{"a":1,"b":2}', result: '3', error: null }],
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'What is 1 plus 2?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c0', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
    },
    { role: 'tool', tool_call_id: 'c0', content: '3' },
    { role: 'assistant', content: `<answer>${answer}</answer>` },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  turns: 2,
  modelCalls: [
    {
      turn: 0,
      purpose: 'turn',
      latencyMs: 12.4,
      attempts: 2,
      retried: ['429'],
      cached: false,
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 6, completion_tokens: 3 },
    },
    {
      turn: 1,
      purpose: 'turn',
      latencyMs: 8,
      attempts: 1,
      retried: [],
      cached: false,
      finishReason: 'stop',
      usage: { prompt_tokens: 4, completion_tokens: 2 },
    },
  ],
});

const byKind = (sections: Section[], kind: Section['kind']) => sections.filter((s) => s.kind === kind);

describe('loading a run directory', () => {
  it('maps each case; a bad journal line, a trace outside the directory and a linked trace are problems naming file, line and field — never a crash', () => {
    const dir = evalRun(
      'mixed',
      [
        meta('ok', { trace: 'traces/ok.json' }),
        '{"suite": "unitEval", "id": "torn"',
        meta('noscore', { scores: {} }),
        meta('escape', { trace: '../../../etc/passwd' }),
        meta('linked', { trace: 'traces/linked.json' }),
      ],
      {
        'traces/ok.json': {
          input: 'What is 1 plus 2?',
          expected: '3',
          output: output('3'),
          scores: { exact: 1 },
          reasons: { exact: 'matched' },
        },
      },
    );
    symlinkSync(join(dir, 'traces', 'ok.json'), join(dir, 'traces', 'linked.json'));
    const run = loadRunDir(dir);
    const journal = join(dir, 'instances.jsonl');
    expect(run.problems).toEqual(
      expect.arrayContaining([
        { file: journal, line: 2, message: expect.stringMatching(/^not valid JSON/) },
        { file: journal, line: 3, field: 'scores.exact', message: expect.any(String) },
        {
          file: journal,
          field: 'line 4: trace',
          message: 'the path "../../../etc/passwd" leaves the run directory: not read',
        },
        {
          file: join(dir, 'traces', 'linked.json'),
          message: 'is a symbolic link: toolgauge does not read through links',
        },
      ]),
    );
    const rows = Object.fromEntries(run.cases.map((c) => [c.row.id, c]));
    expect(Object.keys(rows).sort()).toEqual(['escape', 'linked', 'noscore', 'ok']);
    expect(rows.noscore!.row.status).toBe('error');
    expect(rows.noscore!.row.reason).toContain(`${journal} line 3: field scores.exact`);
    const ok = rows.ok!;
    expect(ok.detail).toMatchObject({
      input: 'What is 1 plus 2?',
      expected: '3',
      predicted: '3',
      scorers: [{ name: 'exact', value: '1', reason: 'matched' }],
    });
    const [conv] = byKind(ok.detail.sections, 'conversation') as Array<Extract<Section, { kind: 'conversation' }>>;
    expect(conv!.turns.map((t) => t.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(conv!.turns[2]).toMatchObject({
      calls: [{ name: 'add', args: '{\n  "a": 1,\n  "b": 2\n}', id: 'c0' }],
      stats: '6 + 3 tokens · 12 ms · 2 attempts (retried: 429) · finish tool_calls',
    });
    expect(conv!.turns[3]).toMatchObject({ toolCallId: 'c0', text: '3', truncated: false });
    expect(ok.row.tags).toEqual(['op=add']);
  });

  it('a missing summary still shows the journal; a folder of runs gives each run; a path that is none is an error', () => {
    const dir = evalRun('nosummary', [meta('a')]);
    rmSync(join(dir, 'summary.json'));
    const run = loadRunDir(dir);
    expect(run.summary).toBeNull();
    expect(run.cases.map((c) => c.row.id)).toEqual(['a']);
    expect(run.problems[0]).toMatchObject({
      file: join(dir, 'summary.json'),
      message: expect.stringMatching(/^not found/),
    });
    expect(runDirs([root])).toEqual(expect.arrayContaining([join(root, 'mixed'), join(root, 'nosummary')]));
    mkdirSync(join(root, 'empty', 'sub'), { recursive: true });
    expect(() => runDirs([join(root, 'empty')])).toThrow(/no toolgauge output here/);
  });

  it('paths: inside the directory only; Maze finds the judge beside the inference', () => {
    expect(insideDir('/r', 'traces/a.json')).toBe('/r/traces/a.json');
    for (const bad of ['../x', '/etc/passwd', 'a/../../x', '', '..', 'a\0b']) expect(insideDir('/r', bad)).toBeNull();
    expect(insideDir('/r', '..a/x')).toBe('/r/..a/x');
    expect(mazeEvaluationPath('c1/inferences/C1_task_001_P2_inference.json')).toBe(
      'c1/evaluations/C1_task_001_P2_eval.json',
    );
  });
});

describe("each suite's case view", () => {
  it('ToolHop: a cut tool result is marked; a team shows each agent and the vote', () => {
    const trace = {
      question: 'Q?',
      messages: [
        { role: 'user', content: 'Q?' },
        { role: 'tool', tool_call_id: 'x', content: 'aaaa\n... [truncated tool result: 9000 chars]' },
      ],
      team: {
        topology: 'independent',
        comm: 'freeform',
        agents: 2,
        rounds: 1,
        answered_by: 'solver-0',
        runs: [
          {
            agent: 'solver-0',
            role: 'solver',
            round: 1,
            answers: true,
            messages: [{ role: 'assistant', content: 'A' }],
            model_calls: [{ agent: 'solver-0', latencyMs: 5, usage: { prompt_tokens: 1, completion_tokens: 1 } }],
          },
          { agent: 'solver-1', role: 'solver', round: 1, messages: [{ role: 'assistant', content: 'B' }] },
        ],
        vote: {
          ballots: [
            { agent: 'solver-0', answer: 'A', key: 'a', counted: true },
            { agent: 'solver-1', answer: 'B', key: 'b', counted: false },
          ],
          winnerKey: 'a',
        },
      },
    };
    const m = mapCase({
      suite: 'toolhop',
      meta: {
        suite: 'toolhop',
        id: '7',
        trial: 0,
        error: null,
        pass: false,
        correct: false,
        gold: 'A',
        predicted: 'B',
        hops: 3,
        domain: 'Music',
        reason: 'wrong answer',
      },
      trace,
    });
    expect(m.row).toMatchObject({ key: '7#0', status: 'fail', tags: ['hops=3', 'domain=Music'], predicted: 'B' });
    const vote = m.detail.sections.find((s) => s.title.startsWith('Vote'));
    expect(vote).toMatchObject({
      title: 'Vote (winner: a)',
      rows: [
        ['solver-0', 'A', 'a', 'yes'],
        ['solver-1', 'B', 'b', 'no'],
      ],
    });
    expect(byKind(m.detail.sections, 'conversation').map((s) => s.title)).toEqual([
      'Agent solver-0 (solver, round 1, answers)',
      'Agent solver-1 (solver, round 1)',
    ]);
    const single = mapCase({
      suite: 'toolhop',
      meta: { suite: 'toolhop', id: '8', trial: 0, error: null, pass: true },
      trace: { ...trace, team: undefined },
    });
    const turns = (byKind(single.detail.sections, 'conversation')[0] as Extract<Section, { kind: 'conversation' }>)
      .turns;
    expect(turns.map((t) => t.truncated)).toEqual([false, true]);
  });

  it("Maze: the perturbation per call and the judge's rules", () => {
    const m = mapCase({
      suite: 'maze',
      meta: {
        suite: 'maze',
        id: 'T:P2',
        trial: 0,
        error: null,
        pass: false,
        complexity: 'c1',
        mode: 'P2',
        recovery: 'abort',
        failure_reason: 'gave up',
        rc: 0.5,
        c_act: 2,
        c_oracle: 1,
      },
      trace: {
        query: 'do it',
        final_answer: 'Task aborted',
        trace: [
          {
            index: 3,
            name: 'convert',
            arguments_json: '{"x":1}',
            status: 'explicit_error',
            victim: { group: 'main', node: 'convert', call_number: 1 },
            result: { error: 'revoked' },
          },
        ],
        messages: [],
      },
      files: {
        evaluation: {
          trace_check: { judge_mode: 'compat', rules: [{ rule: 'hit', ok: true, detail: 'perturbed at #3' }] },
        },
      },
    });
    expect(m.row).toMatchObject({ cause: 'abort', tags: ['complexity=c1', 'mode=P2'], predicted: 'Task aborted' });
    expect(m.detail.sections.find((s) => s.title.startsWith('Perturbation'))).toMatchObject({
      rows: [
        ['3', 'convert', '{\n  "x": 1\n}', 'explicit_error', 'convert (main, call 1)', '{\n  "error": "revoked"\n}'],
      ],
    });
    expect(m.detail.sections.find((s) => s.title.startsWith("Judge's reading"))).toMatchObject({
      title: "Judge's reading (compat)",
      rows: [['hit', 'yes', 'perturbed at #3']],
    });
  });

  it('Probe: raw output, the parse per tier, the attribution with its evidence', () => {
    const m = mapCase({
      suite: 'probe',
      meta: {
        suite: 'probe',
        id: 'c1_x',
        trial: 0,
        error: null,
        pass: false,
        cat: 'C1',
        family: 'c1_x',
        split: 'dev',
        expects_call: true,
        expected: [{ name: 'get', arguments: { w: 'a' } }],
        output: { content: '<tool_call>{"name": "get"}</tool_call>', finish_reason: 'stop' },
        parse: {
          strict: {
            calls: [],
            attempted: true,
            truncated: false,
            tier: 'strict',
            format: 'hermes',
            notes: ['no closing tag'],
          },
          lenient: {
            calls: [{ name: 'get', arguments: {} }],
            attempted: true,
            truncated: false,
            tier: 'lenient',
            format: 'hermes',
            notes: [],
          },
        },
        scores: { strict: { parse_ok: 0, schema_valid: 0, problems: ['unparsed'], mismatches: [] } },
        cause: {
          strict: { cause: 'parser', kind: 'fail', evidence: 'lenient parse recovers the call' },
          lenient: { cause: 'model', kind: 'fail', evidence: 'argument w missing' },
        },
      },
      trace: undefined,
    });
    expect(m.row).toMatchObject({ cause: 'parser', tags: ['cat=C1', 'family=c1_x', 'split=dev'] });
    expect(m.detail.expected).toBe('get({"w":"a"})');
    expect(m.detail.sections.find((s) => s.title === 'Raw output')).toMatchObject({
      text: expect.stringContaining('<tool_call>{"name": "get"}</tool_call>'),
    });
    expect(m.detail.sections.find((s) => s.title === 'Parse per tier')).toMatchObject({
      rows: [
        ['strict', 'true', 'false', 'strict', 'hermes', '(no call)', 'no closing tag'],
        ['lenient', 'true', 'false', 'lenient', 'hermes', 'get({})', ''],
      ],
    });
    expect(m.detail.sections.find((s) => s.title.startsWith('Attribution'))).toMatchObject({
      rows: [
        ['strict', 'parser', 'fail', 'lenient parse recovers the call'],
        ['lenient', 'model', 'fail', 'argument w missing'],
      ],
    });
    expect(m.detail.scorers[0]).toEqual({ name: 'strict parse_ok', value: '0', reason: 'unparsed' });
  });

  it("describeEval: a null score shows as 'unscored' in the scorer list", () => {
    const m = mapCase({
      suite: 'my-eval',
      meta: { suite: 'my-eval', id: '1', trial: 0, error: null, pass: true, scores: { exact: 1, judge: null } },
      trace: { reasons: { judge: 'no reference answer' } },
    });
    expect(m.detail.scorers).toEqual([
      { name: 'exact', value: '1', reason: null },
      { name: 'judge', value: 'unscored', reason: 'no reference answer' },
    ]);
  });

  it("describeEval's joined reasons split back per scorer", () => {
    expect(
      reasonsFrom("exact: expected '3', answered '4'; used_tool: add called 0 time(s)", ['exact', 'used_tool']),
    ).toEqual({ exact: "expected '3', answered '4'", used_tool: 'add called 0 time(s)' });
    expect(reasonsFrom(null, ['exact'])).toEqual({});
  });

  it('helpers: arguments pretty-printed when JSON, kept as written when not; the cut markers', () => {
    expect(prettyArgs('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyArgs('{"a":')).toBe('{"a":');
    expect(isTruncated('x… [truncated: 120000 characters]')).toBe(true);
    expect(isTruncated('truncated: yes')).toBe(false);
  });
});

describe('comparisons and the page data', () => {
  it('the paired table is refused as report --compare refuses it (another suite), and computed otherwise', () => {
    const a = loadRunDir(evalRun('cmp-a', [meta('1'), meta('2'), meta('3', { pass: false, scores: { exact: 0 } })]));
    const b = loadRunDir(evalRun('cmp-b', [meta('1', { pass: false, scores: { exact: 0 } }), meta('2'), meta('3')]));
    const other = loadRunDir(evalRun('cmp-other', [meta('1')], {}, 'otherEval'));
    expect(comparisons([a, other], ['A', 'O'], false).refused).toMatch(/cannot compare a unitEval run/);
    const { data, details } = viewData([a, b], { labels: ['A', 'B'] });
    expect(data.comparisonRefused).toBeNull();
    expect(data.comparisons[0]).toMatchObject({ baseline: 'A', candidate: 'B', shared: 3 });
    expect(data.comparisons[0]!.rows.map((r) => r.metric)).toEqual(['pass_rate', 'exact']);
    expect(data.comparisons[0]!.rows[0]).toMatchObject({
      baseline: 2 / 3,
      candidate: 2 / 3,
      discordant: '1/1',
      verdict: 'no credible change',
    });
    expect(data.runs[0]!.metrics[0]).toMatchObject({ name: 'pass_rate', value: 0.5, n: 2 });
    expect(data.runs[0]!.breakdowns[0]).toMatchObject({ group: 'op', metrics: ['pass_rate'], rows: [{ key: 'add' }] });
    expect(details[0]!.length).toBe(3);
    expect(
      causeCounts([
        { cause: 'parser', status: 'fail' },
        { cause: 'parser', status: 'pass' },
        { cause: 'model', status: 'error' },
        { cause: null, status: 'fail' },
      ] as CaseRow[]),
    ).toEqual([
      ['parser', 2, 1],
      ['model', 1, 1],
    ]);
  });

  it('JSON in a script block: any string round-trips and no <, >, & or line separator is left to close it', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('</script>', '<!--', '<script>', '\u2028', '&'),
        (s, bad) => {
          const text = scriptJson({ s: s + bad });
          expect(JSON.parse(text)).toEqual({ s: s + bad });
          expect(text).not.toMatch(/[<>&\u2028\u2029]/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the ledger (page logic)', () => {
  const row = (id: string, status: CaseRow['status'], o: Partial<CaseRow> = {}): CaseRow => ({
    key: `${id}#0`,
    id,
    trial: 0,
    order: 0,
    status,
    reason: null,
    tags: [],
    cause: null,
    predicted: null,
    detail: 0,
    ...o,
  });
  const a = [
    row('x', 'pass', { predicted: '1', tags: ['op=add'] }),
    row('y', 'fail', { predicted: '2', cause: 'parser', reason: 'Wrong' }),
    row('z', 'error'),
  ];
  const b = [
    row('x', 'pass', { predicted: '1' }),
    row('y', 'fail', { predicted: '3' }),
    row('z', 'pass'),
    row('w', 'pass'),
  ];
  const entries = joinRuns([a, b]);

  it("labels each reason with its run when several runs are open, and leaves a single run's reason bare", () => {
    const cells = [row('y', 'fail', { reason: 'A is wrong' }), row('y', 'pass'), row('y', 'fail', { reason: 'C' })];
    expect(rowReasons(cells, ['base', 'mid', 'cand'])).toEqual([
      { run: 'base', reason: 'A is wrong' },
      { run: 'cand', reason: 'C' },
    ]);
    expect(rowReasons([null, row('y', 'fail', { reason: 'only B' })], ['base', 'cand'])).toEqual([
      { run: 'cand', reason: 'only B' },
    ]);
    expect(rowReasons([row('y', 'fail', { reason: 'alone' })], ['base'])).toEqual([{ run: null, reason: 'alone' }]);
  });
  const ids = (q: Partial<Query>) => applyQuery(entries, { ...EMPTY_QUERY, ...q }).map((e) => e.id);

  it('joins runs by case; "changed" means another status, another answer, or a case one run lacks', () => {
    expect(entries.map((e) => [e.id, e.changed])).toEqual([
      ['x', false],
      ['y', true],
      ['z', true],
      ['w', true],
    ]);
    expect(entries[3]!.cells[0]).toBeNull();
  });

  it('filters by status, tag, cause, search and change; sorts', () => {
    expect(ids({ status: 'failed' })).toEqual(['y', 'z']);
    expect(ids({ status: 'error' })).toEqual(['z']);
    expect(ids({ status: 'pass' })).toEqual(['x', 'w']);
    expect(ids({ tag: 'op=add' })).toEqual(['x']);
    expect(ids({ cause: 'parser' })).toEqual(['y']);
    expect(ids({ text: 'wrong' })).toEqual(['y']);
    expect(ids({ changedOnly: true, status: 'failed' })).toEqual(['y', 'z']);
    expect(ids({ sort: 'id' })).toEqual(['w', 'x', 'y', 'z']);
    expect(ids({ sort: 'status' })).toEqual(['z', 'y', 'x', 'w']);
  });

  it('the address fragment keeps the view', () => {
    fc.assert(
      fc.property(
        fc.record({
          text: fc.string(),
          status: fc.constantFrom('all', 'failed', 'error', 'pass'),
          tag: fc.string(),
          cause: fc.string(),
          changedOnly: fc.boolean(),
          sort: fc.constantFrom('order', 'id', 'status', 'changed'),
        }),
        fc.option(fc.string(), { nil: null }),
        (q, key) => {
          const back = decodeHash(`#${encodeHash(q as Query, key || null)}`);
          expect(back).toEqual({ query: q, caseKey: key || null });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the page renders data as text only', () => {
  it('no HTML-parsing sink in the page code', () => {
    // The code, not its comments (which name the sinks it avoids).
    const src = readdirSync(fromRoot('harness', 'view', 'page'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(fromRoot('harness', 'view', 'page', f), 'utf8'))
      .join('\n')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    expect(src).toContain('createTextNode');
    expect(src).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|\beval\(|new Function/,
    );
  });
});

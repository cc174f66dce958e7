import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { validSummary } from '../../harness/report/summary.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject } from '../../scripts/fresh-project.mjs';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';
import { evalPageBlocks, FEATURE_FILES } from './eval-page.ts';
import { packed } from './pack.ts';
import { projectShell } from './project-shell.ts';

// The own-eval features as a user gets them: the packed toolgauge in a fresh ESM project, no --base-url (the built-in
// simulator plays each case from its expectedTools and expected). The project's eval files are the titled code
// blocks of docs/eval.md's sections — expected tool calls, judged scorers, the AI SDK and OpenAI Agents adapters —
// with the page's tsconfig.json, so the page's examples are the ones proved. Two runs of the page's evals: every eval
// under three models at once (the comparison), and the page's disagreeing-judge command. Their type check is in
// tests/package/fresh-project.test.ts, in the process of the other examples' checks (type-check.ts shares the
// libraries' parsed declarations between them).

const FILES = FEATURE_FILES;
const EVALS = ['arith-calls', 'arith-judged', 'weather-ai-sdk', 'weather-agents'];
const MODELS = { 'sim:oracle': 'sim_oracle', 'sim:wrong': 'sim_wrong', 'sim:wrong_arg': 'sim_wrong_arg' };
/** The page's command that runs the judged eval under a judge that reverses every verdict. */
const DISAGREE = evalPageBlocks('## Judged scorers')
  .filter((b) => b.lang === 'sh')
  .flatMap((b) => b.text.split('\n'))
  .find((l) => l.includes('disagree=1'));

/** The calls each case asks for, as this test reads the page's cases (name and arguments, in order). */
const EXPECTED_CALLS: Record<string, Record<string, Array<[string, Record<string, unknown>]>>> = {
  'arith-calls': {
    mul: [['multiply', { a: 6, b: 7 }]],
    chain: [
      ['multiply', { a: 6, b: 7 }],
      ['add', { a: 42, b: 1 }],
    ],
    weather: [['weather', { city: 'Paris' }]],
  },
  'arith-judged': { mul: [['multiply', { a: 6, b: 7 }]] },
  'weather-ai-sdk': { paris: [['get_weather', { city: 'Paris' }]] },
  'weather-agents': { paris: [['get_weather', { city: 'Paris' }]] },
};

interface Trace {
  output: {
    answer: string | null;
    toolCalls: Array<{ name: string; arguments: Record<string, unknown>; result: string | null }>;
  };
  judges?: Record<string, { model: string; verdict: { verdict: string; reason: string } | null; error: string | null }>;
}
interface Instance {
  id: string;
  pass: boolean;
  error: string | null;
  reason: string | null;
  trace: string;
  scores: Record<string, number | null>;
}

const root = tempDir('package-features');
let dir = '';

beforeAll(async () => {
  dir = freshProject(join(root, 'esm'), { type: 'module', ...(await packed()) }) as string;
  for (const f of FILES) writeFileSync(join(dir, f.file), f.text);
}, 300_000);

/** A command line in the project (projectShell). */
const sh = (line: string, env: Record<string, string> = {}) => projectShell(dir, line, env);

/** One model's run of one eval: its summary, each metric's value, its instances by id, and a case's trace. */
function runOf(outDir: string) {
  const summary = validSummary(readJson(join(outDir, 'summary.json')));
  const values: Record<string, number | null> = {};
  for (const [name, m] of Object.entries(summary.metrics)) if ('value' in m) values[name] = m.value as number | null;
  const instances = new Map(readLines<Instance>(join(outDir, 'instances.jsonl')).map((r) => [r.id, r]));
  const trace = (id: string) => readJson<Trace>(join(outDir, instances.get(id)!.trace));
  return { summary, values, instances, trace };
}

const calls = (t: Trace) => t.output.toolCalls.map((c) => [c.name, c.arguments]);

describe('the own-eval features in a fresh project, from the examples of docs/eval.md', () => {
  it('the page has a file for each example, and the command of a disagreeing judge', () => {
    expect(FILES.map((f) => f.file).sort()).toEqual(['tsconfig.json', ...EVALS.map((e) => `${e}.eval.ts`)].sort());
    expect(DISAGREE).toMatch(/^JUDGE_MODEL=.*npx toolgauge eval arith-judged\.eval\.ts/);
  });

  it('--model sim:oracle,sim:wrong,sim:wrong_arg over the four evals: the oracle passes every scorer, each wrong policy fails the scorer it aims at, and each eval has its paired comparison', async () => {
    const models = Object.keys(MODELS);
    const r = await sh(`npx toolgauge eval ${EVALS.map((e) => `${e}.eval.ts`).join(' ')} --model ${models} --json`);
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      evals: Array<{ name: string; model: string; outDir: string }>;
      comparisons: Array<{ name: string; path: string | null }>;
    };
    expect(doc.evals.map((e) => `${e.name} ${e.model}`).sort()).toEqual(
      EVALS.flatMap((e) => models.map((m) => `${e} ${m}`)).sort(),
    );
    for (const e of doc.evals)
      expect(e.outDir).toBe(join(dir, 'results', e.name, MODELS[e.model as keyof typeof MODELS]));
    expect(doc.comparisons.map((c) => c.name).sort()).toEqual([...EVALS].sort());
    for (const c of doc.comparisons) expect(c.path).toBe(join(dir, 'results', c.name, 'comparison.md'));

    const run = (e: string, m: keyof typeof MODELS) => runOf(join(dir, 'results', e, MODELS[m]));

    // The oracle: every case passes on every scorer, and the traces hold the calls the page's cases ask for — made
    // by toolLoop, the AI SDK agent and the OpenAI Agents agent alike, with the tools' results.
    for (const e of EVALS) {
      const { summary, values, instances, trace } = run(e, 'sim:oracle');
      expect([...instances.keys()].sort(), e).toEqual(Object.keys(EXPECTED_CALLS[e]!).sort());
      expect(summary.counts, e).toMatchObject({ runs: instances.size, passed: instances.size, errors: 0 });
      for (const [metric, v] of Object.entries(values))
        expect(v, `${e} ${metric}`).toBe(metric === 'error_rate' ? 0 : 1);
      for (const [id, want] of Object.entries(EXPECTED_CALLS[e]!)) expect(calls(trace(id)), `${e} ${id}`).toEqual(want);
    }
    expect(Object.keys(run('arith-calls', 'sim:oracle').values)).toContain('tool_calls');
    expect(Object.keys(run('arith-judged', 'sim:oracle').values)).toEqual(
      expect.arrayContaining(['factuality', 'gives_product']),
    );
    for (const e of ['weather-ai-sdk', 'weather-agents']) {
      const { output } = run(e, 'sim:oracle').trace('paris');
      expect(output.answer).toBe('sunny');
      expect(output.toolCalls[0]?.result, e).toBe('sunny'); // the agent's own tool ran
      expect(Object.keys(run(e, 'sim:oracle').values)).toEqual(
        expect.arrayContaining(['tool_calls', 'answer_matches']),
      );
    }
    // The judges (the run's own model) gave their verdicts on the oracle's answer.
    const judged = run('arith-judged', 'sim:oracle').trace('mul');
    expect(judged.output.answer).toBe('42');
    for (const name of ['factuality', 'gives_product'])
      expect(judged.judges?.[name]).toMatchObject({ model: 'sim:oracle', verdict: { verdict: 'pass' }, error: null });

    // sim:wrong makes the same calls and answers wrong: the judges and answer_matches fail it, tool_calls does not.
    for (const e of EVALS) {
      const { values, trace } = run(e, 'sim:wrong');
      for (const [id, want] of Object.entries(EXPECTED_CALLS[e]!)) expect(calls(trace(id)), `${e} ${id}`).toEqual(want);
      if ('tool_calls' in values) expect(values.tool_calls, e).toBe(1);
    }
    expect(run('arith-calls', 'sim:wrong').values.pass_rate).toBe(1);
    const wrongJudged = run('arith-judged', 'sim:wrong');
    expect(wrongJudged.trace('mul').output.answer).toBe('43');
    expect(wrongJudged.summary.metrics).toMatchObject({
      pass_rate: { value: 0 },
      factuality: { value: 0, n: 1 },
      gives_product: { value: 0, n: 1 },
    });
    for (const name of ['factuality', 'gives_product'])
      expect(wrongJudged.trace('mul').judges?.[name]?.verdict?.verdict).toBe('fail');
    for (const e of ['weather-ai-sdk', 'weather-agents'])
      expect(run(e, 'sim:wrong').summary.metrics, e).toMatchObject({
        pass_rate: { value: 0 },
        answer_matches: { value: 0 },
      });

    // sim:wrong_arg changes one argument of the first call: every case's tool_calls fails, the reason naming that
    // argument and the value sent (as the trace has it); a later call made right keeps its share of the score.
    for (const e of ['arith-calls', 'weather-ai-sdk', 'weather-agents']) {
      const { values, instances, trace } = run(e, 'sim:wrong_arg');
      expect(values.pass_rate, e).toBe(0);
      for (const [id, want] of Object.entries(EXPECTED_CALLS[e]!)) {
        const got = trace(id).output.toolCalls;
        expect(got.map((c) => c.name)).toEqual(want.map(([n]) => n));
        const changed = Object.keys(want[0]![1]).filter((k) => got[0]!.arguments[k] !== want[0]![1][k]);
        expect(changed, `${e} ${id}`).toHaveLength(1);
        const [arg] = changed;
        const reason = instances.get(id)!.reason;
        expect(reason).toContain(`call 1 ${want[0]![0]}: ${arg}: `);
        expect(reason).toContain(`got ${JSON.stringify(got[0]!.arguments[arg!])})`);
        // strict order: the calls made as expected over the larger count
        const right = got.filter((c, i) => JSON.stringify(c.arguments) === JSON.stringify(want[i]![1])).length;
        expect(instances.get(id)!.scores.tool_calls, `${e} ${id}`).toBeCloseTo(right / want.length, 9);
      }
    }

    // The comparisons: every model against the first, the figures those of the runs.
    for (const e of EVALS) {
      const cmp = readJson<
        Array<{ baseline: string; candidate: string; results: Array<{ metric: string; meanA: number; meanB: number }> }>
      >(join(dir, 'results', e, 'comparison.json'));
      expect(cmp.map((c) => `${c.baseline} ${c.candidate}`)).toEqual([
        'sim:oracle sim:wrong',
        'sim:oracle sim:wrong_arg',
      ]);
      for (const c of cmp) {
        const base = run(e, 'sim:oracle').values;
        const cand = run(e, c.candidate as keyof typeof MODELS).values;
        const metrics = c.results.map((x) => x.metric);
        expect(metrics, e).toContain('pass_rate');
        for (const x of c.results) {
          expect(x.meanA, `${e} ${c.candidate} ${x.metric}`).toBeCloseTo(base[x.metric]!, 5);
          expect(x.meanB, `${e} ${c.candidate} ${x.metric}`).toBeCloseTo(cand[x.metric]!, 5);
        }
      }
      expect(cmp[0]!.results.find((x) => x.metric === 'pass_rate')).toMatchObject({
        meanA: 1,
        meanB: e === 'arith-calls' ? 1 : 0,
      });
    }
    expect(readFileSync(join(dir, 'results', 'arith-calls', 'comparison.md'), 'utf8')).toMatch(
      /## sim:wrong_arg vs sim:oracle[\s\S]*\| tool_calls \| 1\.000 \| 0\.167 \|/,
    );
  });

  it("the page's disagreeing judge (JUDGE_MODEL='sim:judge?disagree=1') fails the oracle's right answer on both judged scorers", async () => {
    const r = await sh(`${DISAGREE!.replace(/\s+#.*$/, '')} --out-dir results/judge-disagrees`);
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    const { summary, trace } = runOf(join(dir, 'results', 'judge-disagrees'));
    expect(summary.metrics).toMatchObject({
      pass_rate: { value: 0 },
      factuality: { value: 0, n: 1 },
      gives_product: { value: 0, n: 1 },
    });
    const t = trace('mul');
    expect(calls(t)).toEqual(EXPECTED_CALLS['arith-judged']!.mul);
    expect(t.output.answer).toBe('42');
    for (const name of ['factuality', 'gives_product'])
      expect(t.judges?.[name]).toMatchObject({
        model: 'sim:judge?disagree=1',
        verdict: { verdict: 'fail' },
        error: null,
      });
  });

  // The README's own eval, as its first command runs it: passes on sim:oracle (the built-in simulator makes the
  // expected call and answers), and the same command on sim:wrong fails the gate (exit 1). Its file is written into the
  // project for this test only.
  it("the README's eval passes its gate on sim:oracle and fails it on sim:wrong", async () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const start = readme.indexOf('## Your own eval');
    const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))![1]!;
    const command = /```sh\n([^\n]*--model sim:oracle[^\n]*)/.exec(readme.slice(start))![1]!.replace(/\s+#.*$/, '');
    expect(command).toMatch(/^npx toolgauge eval arith\.eval\.ts --model sim:oracle --gate /);
    writeFileSync(join(dir, 'arith.eval.ts'), code);
    try {
      const pass = await sh(`${command} --out-dir readme-oracle`);
      expect(pass.exitCode, `${pass.stdout}\n${pass.stderr}`).toBe(0);
      const oracle = runOf(join(dir, 'readme-oracle'));
      expect(oracle.values.pass_rate).toBe(1);
      expect(calls(oracle.trace('0'))).toEqual([['multiply', { a: 6, b: 7 }]]);
      const fail = await sh(`${command.replace('sim:oracle', 'sim:wrong')} --out-dir readme-wrong`);
      expect(fail.exitCode, `${fail.stdout}\n${fail.stderr}`).toBe(1);
      const wrong = runOf(join(dir, 'readme-wrong'));
      expect(wrong.values.pass_rate).toBe(0);
      expect(wrong.instances.get('0')!.reason).toMatch(/answer_matches/);
    } finally {
      rmSync(join(dir, 'arith.eval.ts'));
    }
  });
});

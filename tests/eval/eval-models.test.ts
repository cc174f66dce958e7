import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { startSimServer, type ChatBody, type SimServer } from '../../harness/sim/server.ts';
import { loadRunDir, runDirs } from '../../harness/view/load.ts';
import { viewData } from '../../harness/view/data.ts';
import { inProcess, readJson, tempDir } from '../helpers/cli.ts';

// `toolgauge eval FILE --model a,b` in this process against a simulator of this file's own: `sim:oracle` answers
// every case right, `sim:wrong` gets every addition one off. The figures below are derived from those planted
// answers, not from the comparison code.

const EVAL = 'duo';
/** Seven additions (sim:wrong fails each) and one multiplication (both models pass it). */
const CASES = [
  ...[1, 2, 3, 4, 5, 6, 7].map((k) => ({
    id: `add-${k}`,
    input: `What is ${k} plus ${k * 10}?`,
    expected: `${11 * k}`,
  })),
  { id: 'mul-1', input: 'What is 6 times 7?', expected: '42' },
];

const question = (body: ChatBody) =>
  /(\d+)\s+(times|plus)\s+(\d+)/.exec(String(body.messages.find((m) => m.role === 'user')?.content ?? ''));

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: {
      [EVAL]: {
        chat: (spec, body) => {
          const m = question(body);
          if (!m) return { content: '<answer>?</answer>' };
          const result = [...body.messages].reverse().find((x) => x.role === 'tool');
          if (!result) {
            const name = m[2] === 'times' ? 'multiply' : 'add';
            const args = JSON.stringify({ a: Number(m[1]), b: Number(m[3]) });
            return { content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name, arguments: args } }] };
          }
          const off = spec.name === 'wrong' && m[2] === 'plus' ? 1 : 0;
          return { content: `<answer>${Number(result.content) + off}</answer>` };
        },
      },
    },
  });
});
afterAll(() => sim.close());

function evalFile(dir: string): string {
  const file = join(dir, `${EVAL}.eval.ts`);
  writeFileSync(
    file,
    `import { describeEval, scorers, toolLoop } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
const number = { type: 'number' };
describeEval(${JSON.stringify(EVAL)}, {
  data: () => ${JSON.stringify(CASES)},
  tools: [
    { name: 'multiply', parameters: { type: 'object', properties: { a: number, b: number } }, run: ({ a, b }) => String(a * b) },
    { name: 'add', parameters: { type: 'object', properties: { a: number, b: number } }, run: ({ a, b }) => String(a + b) },
  ],
  task: toolLoop({ maxTurns: 3 }),
  scorers: [scorers.answerMatches(), scorers.custom('used_a_tool', ({ output }) => output.toolCalls.length > 0)],
});
`,
  );
  return file;
}

interface Row {
  metric: string;
  n: number;
  meanA: number;
  meanB: number;
  diff: number;
  pValue: number;
  pAdjusted: number;
  verdict: string;
  mcnemar?: { b01: number; b10: number };
}

describe('toolgauge eval --model a,b', () => {
  it('runs each model into its own folder, writes their paired comparison beside them, exits with the worst gate', async () => {
    const dir = tempDir('eval-models');
    const out = join(dir, 'out');
    const r = await inProcess(
      [
        'eval',
        evalFile(dir),
        '--base-url',
        sim.url,
        '--model',
        'sim:oracle,sim:wrong',
        '--out-dir',
        out,
        '--gate',
        'pass_rate>=0.5',
        '--json',
      ],
      {},
    );
    // the gate passes for sim:oracle (8/8) and fails for sim:wrong (1/8): the worst code, 1
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout) as {
      evals: Array<{ name: string; model: string; outDir: string; summary: { gate: { passed: boolean } } }>;
      comparisons: Array<{ name: string; path: string | null }>;
      exitCode: number;
    };
    expect(doc.exitCode).toBe(1);
    expect(doc.evals.map((e) => [e.name, e.model, e.outDir, e.summary.gate.passed])).toEqual([
      [EVAL, 'sim:oracle', join(out, 'sim_oracle'), true],
      [EVAL, 'sim:wrong', join(out, 'sim_wrong'), false],
    ]);
    expect(doc.comparisons).toEqual([{ name: EVAL, path: join(out, 'comparison.md') }]);
    for (const f of ['comparison.md', 'comparison.json', 'comparison.svg']) expect(existsSync(join(out, f))).toBe(true);

    // By hand: 8 shared cases; sim:wrong loses the 7 additions (McNemar b10 = 7, b01 = 0: p = 2 · 2⁻⁷), both use a
    // tool every time (no discordant pair: p = 1); Holm over the 3 rows multiplies the smallest p by 3.
    const [cmp] = readJson<Array<{ baseline: string; candidate: string; shared: number; results: Row[] }>>(
      join(out, 'comparison.json'),
    );
    expect([cmp!.baseline, cmp!.candidate, cmp!.shared]).toEqual(['sim:oracle', 'sim:wrong', 8]);
    const row = (metric: string) => cmp!.results.find((x) => x.metric === metric)!;
    for (const metric of ['pass_rate', 'answer_matches']) {
      expect(row(metric)).toMatchObject({ n: 8, meanA: 1, meanB: 1 / 8, diff: -7 / 8, mcnemar: { b01: 0, b10: 7 } });
      expect(row(metric).pValue).toBeCloseTo(2 / 128, 12);
      expect(row(metric).pAdjusted).toBeCloseTo(3 * (2 / 128), 12);
      expect(row(metric).verdict).toBe('credible harm');
    }
    expect(row('used_a_tool')).toMatchObject({ meanA: 1, meanB: 1, diff: 0, pValue: 1, pAdjusted: 1 });

    // The viewer, pointed at the eval's folder or at the folder above it, shows both runs side by side.
    for (const path of [out, dir]) {
      const dirs = runDirs([path]);
      expect(dirs).toEqual([join(out, 'sim_oracle'), join(out, 'sim_wrong')]);
      const { data } = viewData(
        dirs.map((d) => loadRunDir(d)),
        {},
      );
      expect(data.comparisonRefused).toBeNull();
      expect(data.comparisons[0]!.rows.find((x) => x.metric === 'pass_rate')).toMatchObject({
        verdict: 'credible harm',
      });
    }
  });

  it("a list with a repeated or an empty name, with --shard, or into a one-model run's folder is a one-line usage error (exit 2)", async () => {
    const dir = tempDir('eval-models-bad');
    const file = evalFile(dir);
    for (const args of [
      ['--model', 'sim:oracle,sim:oracle'],
      ['--model', 'sim:oracle,,sim:wrong'],
      ['--model', 'sim:oracle,'],
      ['--model', 'sim:oracle,sim:wrong', '--shard', '1/2'],
    ]) {
      const u = await inProcess(['eval', file, '--out-dir', join(dir, 'out'), ...args], {});
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(u.stdout, args.join(' ')).toBe('');
    }
    expect(existsSync(join(dir, 'out'))).toBe(false);
    // a folder that holds a one-model run is not made a folder of model folders
    mkdirSync(join(dir, 'one'));
    writeFileSync(join(dir, 'one', 'summary.json'), '{}');
    const u = await inProcess(['eval', file, '--out-dir', join(dir, 'one'), '--model', 'sim:oracle,sim:wrong'], {});
    expect([u.code, u.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(u.stderr).toContain('holds a one-model run (summary.json)');
  });
});

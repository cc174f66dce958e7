import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../core/config.ts';
import { runSuite } from '../../launch/run-suite.ts';
import { scorers } from './scorers.ts';
import { evalRunOptions, evalSuite } from './suite.ts';
import type { ScoredMeta } from '../generic.ts';
import type { Scorer, ScoreValue, TaskOutput } from './types.ts';

describe('describeEval data', () => {
  it('names a repeated id by the array indices of both rows', async () => {
    const def = evalSuite('dup', {
      data: () => [
        { id: 'a', input: '1' },
        { id: 'b', input: '2' },
        { id: 'c', input: '3' },
        { id: 'b', input: '4' },
      ],
      task: async () => ({}) as never,
      scorers: [],
    });
    const run = readConfig({});
    await expect(Promise.resolve().then(() => def.load(run, def.settings({}, run)))).rejects.toThrow(
      "describeEval dup: data() gives the id 'b' twice (data()[1] and data()[3])",
    );
  });
});

describe('describeEval failure messages', () => {
  const output = (answer: string): TaskOutput => ({
    output: answer,
    answer,
    toolCalls: [],
    messages: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    turns: 1,
  });
  const def = evalSuite('msgs', {
    data: () => [
      { id: 'throws', input: 'x' },
      { id: 'half', input: 'y' },
      { id: 'wrong', input: 'z', expected: '42' },
    ],
    task: async (input) => {
      if (input === 'x') throw new TypeError('boom');
      return output(input === 'z' ? '41' : 'fine');
    },
    scorers: [
      scorers.custom('quiet', ({ case: c }) => (c.id === 'half' ? 0.5 : 1)),
      scorers.custom('full', () => 1),
      scorers.custom('explained', ({ output: o }) =>
        o.answer === '41' ? { score: 0, reason: 'answered 41' } : { score: 1 },
      ),
    ],
    threshold: 1,
  });

  let out = '';
  let byId = new Map<string, ScoredMeta>();
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'tg-eval-msgs-'));
    const run = await runSuite(def, { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: out });
    byId = new Map(run.metas.map((m) => [m.id, m]));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('a task that throws: "harness error" once, in the message; the stored error is the bare reason', () => {
    const thrown = byId.get('throws')!;
    expect(thrown.error).toBe('TypeError: boom');
    expect(def.verdict(thrown).message).toBe('msgs throws: harness error: TypeError: boom');
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toContain('harness error: TypeError: boom');
    expect(report).not.toMatch(/harness error: harness error/);
  });

  it('a failing case names each scorer under the threshold with its score, with or without a reason', () => {
    expect(byId.get('half')!.reason).toBe('quiet: score 0.50; mean 0.83 < 1');
    expect(def.verdict(byId.get('half')!).message).toContain('quiet: score 0.50');
    expect(byId.get('wrong')!.reason).toBe('explained: answered 41 (score 0.00); mean 0.67 < 1');
  });
});

const output: TaskOutput = {
  output: 'x',
  answer: 'x',
  toolCalls: [],
  messages: [],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  turns: 1,
};

/** One case run through the eval's suite with a stub context (no model: the task returns a fixed output). */
async function runCase(scorerList: Scorer[], threshold = 1) {
  const def = evalSuite('nulls', {
    data: () => [{ id: 'a', input: 'q' }],
    task: async () => output,
    scorers: scorerList,
    threshold,
  });
  const run = readConfig({});
  const settings = def.settings({}, run);
  const [inst] = (await def.load(run, settings)).instances;
  const ctx = {
    run,
    settings,
    trial: 0,
    outDir: '/nonexistent',
    client: () => ({}) as never,
    sampling: () => ({}) as never,
    sandbox: () => ({}) as never,
    tracePath: () => 'traces/a.json',
  };
  return (await def.run(inst!, ctx)).meta;
}
const fixed = (name: string, v: ScoreValue): Scorer => ({ name, score: () => v });

describe('describeEval scores: null is unscored, an invalid score is the scorer error', () => {
  it('passes on the mean of the scored scores only', async () => {
    const m = await runCase([fixed('a', 1), fixed('b', null), fixed('c', { score: null, reason: 'n/a' })]);
    expect(m).toMatchObject({ pass: true, error: null, scores: { a: 1, b: null, c: null } });
    expect(m.unscored).toBeUndefined();
    const f = await runCase([fixed('a', 0), fixed('b', null)], 0.5);
    expect(f).toMatchObject({ pass: false, scores: { a: 0, b: null } });
  });

  it('records a case no scorer scored as unscored: not a pass', async () => {
    const m = await runCase([fixed('a', null), fixed('b', { score: null })]);
    expect(m).toMatchObject({ pass: false, unscored: true, reason: 'unscored: every scorer returned null' });
  });

  it('fails the case naming the scorer for NaN, Infinity or a number outside [0, 1]', async () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 2, -1])
      await expect(runCase([fixed('a', 1), fixed('judge', bad)])).rejects.toThrow(
        `scorer 'judge': returned the score ${bad};`,
      );
  });
});

describe('describeEval with a task of your own', () => {
  it('passes its input and output through typed, and shows the output when it is not the standard one', async () => {
    const def = evalSuite('own', {
      data: () => [{ id: 'p', input: { a: 6, b: 7 }, expected: 42 }],
      task: (input) => ({ product: input.a * input.b }),
      scorers: [{ name: 'product', score: ({ output, expected }) => output.product === expected }],
    });
    const run = readConfig({});
    const settings = def.settings({}, run);
    const [inst] = (await def.load(run, settings)).instances;
    const r = await def.run(inst!, {
      run,
      settings,
      trial: 0,
      outDir: '/nonexistent',
      client: () => ({}) as never,
      sampling: () => ({}) as never,
      sandbox: () => ({}) as never,
      tracePath: () => 'traces/p.json',
    });
    expect(r.meta).toMatchObject({ pass: true, scores: { product: 1 } });
    expect(r.files!['traces/p.json']).toMatchObject({ input: { a: 6, b: 7 }, output: { product: 42 } });
    expect(r.transcript).toContain('output:   {"product":42}');
  });
});

describe("describeEval's trials and timeout", () => {
  const base = { data: () => [], task: async () => ({}) as never, scorers: [] };

  it('are checked: a whole number of trials from 1, a timeout a Node timer honours', () => {
    for (const trials of [0, 1.5, -1, Number.NaN])
      expect(() => evalSuite('t', { ...base, trials })).toThrow(
        `describeEval t: trials must be a whole number from 1, got ${trials}`,
      );
    for (const timeout of [0, 2 ** 31, 1.5])
      expect(() => evalSuite('t', { ...base, timeout })).toThrow(
        'describeEval t: timeout must be a whole number of ms',
      );
    expect(evalRunOptions('t', { trials: 3, timeout: 5000 })).toEqual({ trials: 3, timeout: 5000 });
    expect(evalRunOptions('t', {})).toEqual({});
  });

  it("record the eval's trials in its config", () => {
    const run = readConfig({});
    const def = evalSuite('t', { ...base, trials: 3 });
    expect(def.config(run, def.settings({}, run))).toMatchObject({ trials: 3 });
    const plain = evalSuite('t', base);
    expect(plain.config(run, plain.settings({}, run))).not.toHaveProperty('trials');
  });
});

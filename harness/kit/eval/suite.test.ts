import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../core/config.ts';
import { runSuite } from '../../launch/run-suite.ts';
import { scorers } from './scorers.ts';
import { evalSuite } from './suite.ts';
import type { ScoredMeta } from '../generic.ts';
import type { TaskOutput } from './types.ts';

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

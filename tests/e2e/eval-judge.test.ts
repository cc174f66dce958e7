import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import type { ScoredMeta } from '../../harness/kit/generic.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { startSimServer, type Responder } from '../../harness/sim/server.ts';
import { tempDir } from '../helpers/cli.ts';

// Judged scorers end to end, in process, over real HTTP to the simulator: the task model's answers are fixed by
// this file's responder (by case id), the judge is the simulator's `sim:judge`, which grades with its own rule.
const ANSWERS: Record<string, string> = { right: 'It is Paris, on the Seine.', wrong: 'Lyon' };
const CASES = [
  { id: 'right', input: 'What is the capital of France?', expected: 'Paris' },
  { id: 'wrong', input: 'What is the capital of France? (again)', expected: 'Paris' },
];

const fixed: Responder = {
  chat: (_spec, _body, ctx) => ({ content: `<answer>${ANSWERS[ctx.id]}</answer>` }),
};

interface Trace {
  output: { usage: { total_tokens: number } };
  judges?: Record<
    string,
    {
      model: string;
      prompt: { system: string; user: string };
      reply: string | null;
      verdict: { verdict: string } | null;
      error: string | null;
      usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    }
  >;
}

async function judgedRun(judgeModel: string, env: Record<string, string> = {}) {
  const sim = await startSimServer({ responders: { capital: fixed } });
  const out = tempDir('eval-judge');
  try {
    const def = evalSuite('capital', {
      data: () => CASES,
      task: toolLoop({ maxTurns: 1 }),
      scorers: [scorers.factuality({ model: judgeModel })],
    });
    const run = await runSuite(def, {
      OPENAI_BASE_URL: sim.url,
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_OUT_DIR: out,
      ...env,
    });
    const byId = new Map(run.metas.map((m) => [m.id, m as ScoredMeta]));
    const trace = (id: string): Trace =>
      JSON.parse(readFileSync(join(run.outDir, byId.get(id)!.trace!), 'utf8')) as Trace;
    const summary = JSON.parse(readFileSync(join(run.outDir, 'summary.json'), 'utf8'));
    const report = readFileSync(join(run.outDir, 'report.md'), 'utf8');
    return { byId, trace, summary, report, out, requests: sim.stats.requests };
  } finally {
    await sim.close();
  }
}

describe('judged scorers against sim:judge', () => {
  it('a right answer passes, a wrong one fails; the trace holds prompt, reply and verdict; judge usage is totalled apart', async () => {
    const r = await judgedRun('sim:judge');
    try {
      expect(r.byId.get('right')).toMatchObject({ pass: true, error: null, scores: { factuality: 1 } });
      expect(r.byId.get('wrong')).toMatchObject({ pass: false, error: null, scores: { factuality: 0 } });
      expect(r.byId.get('wrong')!.reason).toMatch(/^factuality: fail: /);

      const judged = r.trace('right').judges!.factuality!;
      expect(judged.model).toBe('sim:judge');
      expect(judged.prompt.user).toContain('<reference_answer>\nParis\n</reference_answer>');
      expect(judged.prompt.user).toContain(`<candidate_answer>\n${ANSWERS.right}\n</candidate_answer>`);
      expect(judged.reply).toMatch(/"verdict":"pass"/);
      expect(judged.verdict).toMatchObject({ verdict: 'pass' });
      expect(r.trace('wrong').judges!.factuality!.verdict).toMatchObject({ verdict: 'fail' });

      // Two task requests and two judge requests reached the simulator, besides the run's one read of its models list
      // (the header's provenance).
      expect(r.requests).toBe(5);
      const usages = ['right', 'wrong'].map((id) => r.trace(id).judges!.factuality!.usage!);
      const sum = (k: 'prompt_tokens' | 'completion_tokens' | 'total_tokens') => usages.reduce((s, u) => s + u[k], 0);
      expect(r.summary.extra.judge_usage).toEqual({
        prompt_tokens: sum('prompt_tokens'),
        completion_tokens: sum('completion_tokens'),
        total_tokens: sum('total_tokens'),
        runs: 2,
      });
      // The judge's prompt (rubric, reference, candidate) is longer than the task's question: its count is its own.
      const task = ['right', 'wrong'].reduce((s, id) => s + r.trace(id).output.usage.total_tokens, 0);
      expect(r.summary.extra.judge_usage.total_tokens).not.toBe(task);
      expect(r.summary.extra.judge_errors).toBeUndefined();
      expect(r.report).toContain('Judge usage');
    } finally {
      rmSync(r.out, { recursive: true, force: true });
    }
  });

  it('with sim:judge?invalid=1 every judged case is a judge error naming the scorer: neither a pass nor a fail', async () => {
    const r = await judgedRun('sim:judge?invalid=1');
    try {
      for (const id of ['right', 'wrong']) {
        const m = r.byId.get(id)!;
        expect(m.pass).toBe(false);
        expect(m.error).toMatch(/^scorer 'factuality': judge error: no JSON verdict in the judge's reply/);
        expect(m.judge_error).toBe('factuality');
        const judged = r.trace(id).judges!.factuality!;
        expect(judged.verdict).toBeNull();
        expect(judged.reply).toBeTruthy();
        expect(judged.error).toMatch(/no JSON verdict/);
      }
      expect(r.summary.counts).toMatchObject({ passed: 0, failed: 0, errors: 2 });
      expect(r.summary.extra.judge_errors).toEqual({ factuality: 2 });
      expect(r.report).toContain('Judge errors');
    } finally {
      rmSync(r.out, { recursive: true, force: true });
    }
  });

  it('a run recorded with --cache record replays its judge calls too, with no request sent', async () => {
    const cache = tempDir('eval-judge-cache');
    try {
      const recorded = await judgedRun('sim:judge', { TOOLGAUGE_CACHE: 'record', TOOLGAUGE_CACHE_DIR: cache });
      rmSync(recorded.out, { recursive: true, force: true });
      const replayed = await judgedRun('sim:judge', { TOOLGAUGE_CACHE: 'replay', TOOLGAUGE_CACHE_DIR: cache });
      try {
        expect(replayed.requests).toBe(0);
        expect(replayed.byId.get('right')).toMatchObject({ pass: true, error: null });
        expect(replayed.byId.get('wrong')).toMatchObject({ pass: false, error: null });
        expect(replayed.summary.extra.judge_usage).toEqual(recorded.summary.extra.judge_usage);
      } finally {
        rmSync(replayed.out, { recursive: true, force: true });
      }
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("by default the judge is the run's model on the run's simulator; a judge request that fails is a judge error", async () => {
    const out = tempDir('eval-judge-default');
    try {
      const answer = (text: string) => ({
        output: text,
        answer: text,
        toolCalls: [],
        messages: [],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        turns: 0,
      });
      const def = evalSuite('defaults', {
        data: () => CASES,
        task: (_input, ctx) => answer(ANSWERS[ctx.case.id]!),
        // sim:nosuch is refused by the simulator (400, not retried): the request fails.
        scorers: [scorers.factuality(), scorers.judge({ name: 'refused', rubric: 'any', model: 'sim:nosuch' })],
      });
      // No endpoint: the run starts its own simulator, which answers the judge as the run's model (sim:oracle).
      const run = await runSuite(def, { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: out });
      const byId = new Map(run.metas.map((m) => [m.id, m as ScoredMeta]));
      for (const id of ['right', 'wrong']) {
        const m = byId.get(id)!;
        expect(m.scores).toEqual({ factuality: id === 'right' ? 1 : 0, refused: null });
        expect(m.error).toMatch(
          /^scorer 'refused': judge error: judge request failed: .*unknown simulator policy 'nosuch'/,
        );
        const t = JSON.parse(readFileSync(join(run.outDir, m.trace!), 'utf8')) as Trace;
        expect(t.judges!.factuality!.model).toBe('sim:oracle');
        expect(t.judges!.refused).toMatchObject({ model: 'sim:nosuch', reply: null, verdict: null });
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

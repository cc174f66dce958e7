import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';
import { bundledMazeResponder } from '../helpers/maze-sim.ts';

// `toolgauge maze --verdict llm|both`: the LLM judge's verdicts decide pass, TSR, PRR and RC (or are reported beside
// the rule judge's). In process (runSuite), real HTTP to the simulator. sim:oracle passes every run by the rules;
// sim:judge?disagree=… plants other labels on some runs (its rests_on says so), so the LLM's metrics differ from the
// rules'. The expected figures are computed here from the files — each run's planted label from its evaluation file,
// its hit and C_act from its inference trace — by ToolMaze's definitions (README "Metrics"), not by the metric code.

const ONLY = 'C1_task_001,C2_task_001';
const MODES = ['P0', 'P1', 'P2', 'P3', 'P4'] as const;
type Label = 'success' | 'recovered' | 'failed_safely' | 'failed';
type Estimate = { value: number | null; n: number };
type Summary = {
  header: { generation: Record<string, unknown> };
  config: Record<string, unknown>;
  counts: Record<string, number>;
  metrics: Record<string, Record<string, Estimate>> & { judge_kappa?: Estimate };
  extra: Record<string, unknown>;
};
type Meta = { id: string; pass: boolean; rule_pass?: boolean; reason: string | null; verdict_by?: string };

/** One run read back from its files: the planted LLM label (null: no verdict), and the trace's facts. */
interface RunFacts {
  id: string;
  mode: string;
  label: Label | null;
  rulePass: boolean;
  hit: boolean;
  cAct: number;
  cOracle: number;
}

function facts(out: string): RunFacts[] {
  return readLines<Meta>(join(out, 'instances.jsonl')).map((m) => {
    const [task, mode] = m.id.split(':') as [string, string];
    const dir = join(out, task.slice(0, 2).toLowerCase());
    const ev = readJson<{ pass: boolean; c_oracle: number; llm_judge?: { label: Label | null } }>(
      join(dir, 'evaluations', `${task}_${mode}_eval.json`),
    );
    const inf = readJson<{ trace: Array<{ status: string }> }>(
      join(dir, 'inferences', `${task}_${mode}_inference.json`),
    );
    // A hit: a perturbed result reached the agent. C_act: tool results from the first hit to the end.
    const first = inf.trace.findIndex((e) => e.status === 'explicit_error' || e.status === 'implicit_corruption');
    return {
      id: m.id,
      mode,
      label: ev.llm_judge?.label ?? null,
      rulePass: ev.pass,
      hit: first >= 0,
      cAct: first >= 0 ? inf.trace.length - first : 0,
      cOracle: ev.c_oracle,
    };
  });
}

/** ToolMaze's TSR, PRR and RC of one mode, with pass read from the LLM's label; judge errors left out. */
function expected(runs: RunFacts[], mode: string) {
  const scored = runs.filter((r) => r.mode === mode && r.label !== null);
  const pass = (r: RunFacts) => r.label !== 'failed';
  const hits = scored.filter((r) => r.hit);
  const rc = (r: RunFacts) => (!r.hit ? 0 : !pass(r) ? 1 : 1 - r.cOracle / Math.max(r.cAct, r.cOracle));
  return {
    n: scored.length,
    tsr: scored.length ? scored.filter(pass).length / scored.length : null,
    prr: hits.length ? hits.filter(pass).length / hits.length : null,
    rc: scored.length ? scored.reduce((t, r) => t + rc(r), 0) / scored.length : null,
  };
}

function expectMetrics(s: Summary, prefix: '' | 'llm.', runs: RunFacts[]) {
  const m = (prefix ? (s.metrics.llm as unknown as Summary['metrics']) : s.metrics)!;
  for (const mode of MODES) {
    const e = expected(runs, mode);
    // A mode whose every run is a judge error has no metric at all under that judge.
    if (e.n === 0) {
      expect(m.tsr?.[mode], `${prefix}tsr.${mode}`).toBeUndefined();
      continue;
    }
    expect(m.tsr![mode]?.n, `${prefix}tsr.${mode}`).toBe(e.n);
    for (const k of ['tsr', 'prr', 'rc'] as const) {
      const got = m[k]![mode]?.value ?? null;
      if (e[k] === null) expect(got, `${prefix}${k}.${mode}`).toBeNull();
      else expect(got, `${prefix}${k}.${mode}`).toBeCloseTo(e[k], 9);
    }
  }
}

const env = (out: string, extra: Record<string, string>) => ({
  TOOLGAUGE_MODEL: 'sim:oracle',
  TOOLGAUGE_MAZE_ONLY: ONLY,
  TOOLGAUGE_OUT_DIR: out,
  TOOLGAUGE_CONCURRENCY: '2',
  ...extra,
});

describe('toolgauge maze --verdict llm', () => {
  let out: string;
  let s: Summary;
  let runs: RunFacts[];
  beforeAll(async () => {
    out = tempDir('maze-verdict-llm');
    await runSuite(
      mazeSuite,
      env(out, { TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge?disagree=0.5&seed=1', TOOLGAUGE_MAZE_VERDICT: 'llm' }),
    );
    s = readJson<Summary>(join(out, 'summary.json'));
    runs = facts(out);
  }, 60_000);

  it('TSR, PRR and RC follow the LLM judge’s planted verdicts, not the rule judge’s', () => {
    // The planted disagreements fail runs the rules pass: otherwise this test could not tell the judges apart.
    expect(runs.every((r) => r.rulePass)).toBe(true);
    expect(runs.filter((r) => r.label === 'failed').length).toBeGreaterThan(0);
    expect(runs.every((r) => r.label !== null)).toBe(true);
    expectMetrics(s, '', runs);
    expect(s.counts).toMatchObject({ runs: 10, passes: runs.filter((r) => r.label !== 'failed').length });
    expect(s.counts.judge_errors).toBe(0);
  });

  it('each run’s pass is the LLM’s; the rule judge’s is kept beside it; the setting is in the header and config', () => {
    const metas = readLines<Meta>(join(out, 'instances.jsonl'));
    for (const m of metas) {
      const r = runs.find((x) => x.id === m.id)!;
      expect(m.pass, m.id).toBe(r.label !== 'failed');
      expect(m).toMatchObject({ verdict_by: 'llm', rule_pass: true });
      if (!m.pass) expect(m.reason, m.id).toMatch(/^failed \(LLM judge\): .*planted a disagreement/);
    }
    expect(s.header.generation).toMatchObject({ verdict: 'llm' });
    expect(s.config).toMatchObject({ verdict: 'llm' });
    // The ToolMaze-shaped metrics files carry the deciding judge's outcomes too.
    const c2 = expected(
      runs.filter((r) => r.id.startsWith('C2')),
      'P2',
    );
    const [file] = readdirSync(join(out, 'c2', 'metrics'));
    const report = readJson<{ verdict?: string; per_mode: Record<string, { tsr: { value: number } }> }>(
      join(out, 'c2', 'metrics', file!),
    );
    expect(report.verdict).toBe('llm');
    expect(report.per_mode.P2!.tsr.value).toBeCloseTo(c2.tsr!, 9);
  });

  it('totals the judge’s tokens apart from the agent’s', () => {
    const judge = (s.extra.judge_tokens as Record<string, { runs: number; prompt_tokens: number }>).all!;
    const agent = (s.extra.tokens as Record<string, { runs: number; prompt_tokens: number }>).all!;
    expect(judge.runs).toBe(10);
    expect(judge.prompt_tokens).toBeGreaterThan(0);
    expect(judge.prompt_tokens).not.toBe(agent.prompt_tokens);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/## The LLM judge's tokens per mode/);
    expect(md).toMatch(/verdict: `llm`/);
  });

  it('a judge error is counted apart and never scored: with no verdict at all, no metric has data', async () => {
    const o = tempDir('maze-verdict-invalid');
    await runSuite(
      mazeSuite,
      env(o, {
        TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge?invalid=1',
        TOOLGAUGE_MAZE_VERDICT: 'llm',
        TOOLGAUGE_MAZE_ONLY: 'C1_task_001',
      }),
    );
    const si = readJson<Summary>(join(o, 'summary.json'));
    expect(si.counts).toMatchObject({ runs: 5, judge_errors: 5, errors: 0, passes: 0 });
    // Not a fail: no run is scored, so there is no TSR, PRR or RC at all (five fails would give TSR 0 over 5).
    expect(si.metrics.tsr).toBeUndefined();
    expect(si.metrics.rc).toBeUndefined();
    expect((si.extra.verdict as { labels: Record<string, Record<string, number>> }).labels.P2).toEqual({
      judge_error: 1,
    });
    for (const m of readLines<Meta>(join(o, 'instances.jsonl'))) {
      expect(m.pass).toBe(false);
      expect(m.reason).toMatch(/^judge error: no <verdict>/);
    }
  });
});

describe('toolgauge maze --verdict both', () => {
  it('reports the rule judge’s and the LLM judge’s metrics side by side, with kappa; judge errors counted apart', async () => {
    const out = tempDir('maze-verdict-both');
    await runSuite(
      mazeSuite,
      env(out, {
        TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge?disagree=0.5&invalid=0.3&seed=1',
        TOOLGAUGE_MAZE_VERDICT: 'both',
      }),
    );
    const s = readJson<Summary>(join(out, 'summary.json'));
    const runs = facts(out);
    const errors = runs.filter((r) => r.label === null).length;
    expect(errors).toBeGreaterThan(0);
    expect(runs.some((r) => r.label === 'failed')).toBe(true);
    // The rule judge's metrics stay the ones of record: the oracle passes every run by the rules.
    for (const mode of MODES) expect(s.metrics.tsr![mode]).toMatchObject({ value: 1, n: 2 });
    expectMetrics(s, 'llm.', runs);
    expect(s.counts).toMatchObject({ runs: 10, passes: 10, judge_errors: errors });
    expect(s.metrics.judge_kappa).toMatchObject({ n: 10 - errors });
    for (const m of readLines<Meta>(join(out, 'instances.jsonl'))) {
      expect(m.pass).toBe(true);
      expect(m.verdict_by).toBeUndefined();
    }
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/## Rule judge and LLM judge side by side/);
    expect(md).toMatch(
      /\| mode \| TSR rules \| TSR LLM \| PRR rules \| PRR LLM \| RC rules \| RC LLM \| judge errors \|/,
    );
    expect(md).toMatch(/## Rule judge vs LLM judge/);
  }, 60_000);
});

describe('toolgauge maze --verdict llm --cache replay', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({
      responders: {
        maze: bundledMazeResponder(),
      },
    });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('replays the judge’s requests as well as the agent’s: no request reaches either endpoint', async () => {
    const cache = tempDir('maze-verdict-cache');
    const run = async (mode: 'record' | 'replay') => {
      const out = tempDir(`maze-verdict-${mode}`);
      await runSuite(
        mazeSuite,
        env(out, {
          OPENAI_BASE_URL: sim.url,
          TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge?disagree=0.5&seed=1',
          TOOLGAUGE_MAZE_JUDGE_BASE_URL: sim.url,
          TOOLGAUGE_MAZE_VERDICT: 'llm',
          TOOLGAUGE_MAZE_ONLY: 'C2_task_001',
          TOOLGAUGE_CACHE: mode,
          TOOLGAUGE_CACHE_DIR: cache,
        }),
      );
      return out;
    };
    const recorded = await run('record');
    const sent = sim.stats.requests;
    expect(sent).toBeGreaterThan(5);
    const replayed = await run('replay');
    expect(sim.stats.requests).toBe(sent);
    expect(facts(replayed).map((r) => r.label)).toEqual(facts(recorded).map((r) => r.label));
    const s = readJson<Summary>(join(replayed, 'summary.json'));
    expect(s.counts).toMatchObject({ judge_errors: 0, errors: 0 });
  }, 60_000);
});

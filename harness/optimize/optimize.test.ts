import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRolePrompts } from '../agent/team/prompts.ts';
import { readConfig } from '../core/config.ts';
import { suiteTrialSampling } from '../kit/sampling.ts';
import { tracePath } from '../kit/names.ts';
import { SIMULATOR_NOTICE } from '../report/summary.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile, type DatasetEntry, type LoadedDataset } from '../toolhop/dataset.ts';
import { goldSandbox } from '../toolhop/gold-sandbox.ts';
import { singlePrompt } from '../toolhop/run-instance.ts';
import { readToolhopSettings, type Topology } from '../toolhop/settings.ts';
import { toolhopResponder } from '../toolhop/sim-responder.ts';
import { toolhopSuite } from '../toolhop/suite.ts';
import { runOptimize, type OptimizeOutcome, type OptimizeRequest } from './run.ts';
import { REFLECT_SUITE, reflectResponder } from './sim-reflect.ts';
import { fixtureRunner } from './testing.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

// The optimizer end to end on the real runner: every rollout is the ToolHop suite's own `run` against the simulator
// over HTTP (sim:trait), every reflection a request to sim:reflect. The dataset's Python tools are replaced by the
// gold-answer sandbox (the fixture's winners call them; what they return does not change its answers).

const REAL = fileURLToPath(new URL('../../../shared/data/toolhop/ToolHop.sample.json', import.meta.url));
const datasets: LoadedDataset[] = [
  loadDatasetFile(BUNDLED_SAMPLE),
  ...(existsSync(REAL) ? [loadDatasetFile(REAL)] : []),
];
const entries: DatasetEntry[] = datasets.flatMap((d) => d.entries);
const rows = new Map(entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const sandbox = goldSandbox((id) => rows.get(id));

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: {
      toolhop: toolhopResponder(async () => ({ file: 'both', sha256: '', entries })),
      [REFLECT_SUITE]: reflectResponder(() => [...rows.values()]),
    },
  });
});
afterAll(() => sim.close());

function request(o: {
  data?: string;
  topology?: Topology;
  team?: Record<string, string>;
  train: number;
  val: number;
  budget: number;
  seed?: number;
  heldout?: number;
  method?: 'gepa' | 'mipro';
  model?: string;
}): OptimizeRequest {
  const data = o.data ?? BUNDLED_SAMPLE;
  return {
    method: o.method ?? 'gepa',
    suite: 'toolhop',
    run: readConfig({ TOOLGAUGE_MODEL: o.model ?? 'sim:trait', TOOLGAUGE_CONCURRENCY: '6' }),
    settings: readToolhopSettings({
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
      TOOLHOP_DATA: data,
      TOOLHOP_TOPOLOGY: o.topology ?? 'single',
      ...o.team,
    }),
    reflection: { model: 'sim:reflect', baseUrl: undefined, apiKey: 'x', temperature: 0, timeoutMs: 5000, retries: 1 },
    trainSize: o.train,
    valSize: o.val,
    budget: o.budget,
    seed: o.seed ?? 1,
    out: tempDir('optimize-e2e'),
    allowEvalIds: data === BUNDLED_SAMPLE,
    resume: false,
    heldout: o.heldout ?? 0,
    mipro: { numCandidates: 3, numTrials: 4, minibatch: 3, fullEvalEvery: 2, bootstrapRows: 5 },
  };
}

const optimize = (req: OptimizeRequest) =>
  runOptimize(req, { sandbox: () => sandbox, simUrl: sim.url, durableLog: false });

describe('GEPA on single, the bundled sample (11 rows, --allow-eval-ids)', () => {
  let o: OptimizeOutcome;
  let req: OptimizeRequest;
  beforeAll(async () => {
    req = request({ train: 5, val: 6, budget: 60 });
    o = await optimize(req);
  });

  it('improves validation accuracy within the budget', () => {
    expect(o.summary.validation.best.value).toBeGreaterThan(o.summary.validation.seed.value);
    expect(o.summary.spent).toBeLessThanOrEqual(60);
    expect(o.best.id).not.toBe(o.seed.id);
  });

  it('writes the candidate tree, the best prompts in the seed layout, the splits, a labelled report and a chart', () => {
    const d = o.outDir;
    for (const f of [
      'log.jsonl',
      'splits.json',
      'candidates.json',
      'summary.json',
      'report.md',
      'charts/progress.svg',
      'best/single/solver.txt',
    ])
      expect(existsSync(join(d, f)), f).toBe(true);
    for (const c of o.engine.candidates)
      expect(singlePrompt(join(d, 'candidates', c.id)).text.solver).toBe(c.prompts.solver);
    expect(singlePrompt(join(d, 'best')).text.solver).toBe(o.best.prompts.solver);
    const splits = JSON.parse(readFileSync(join(d, 'splits.json'), 'utf8')) as {
      train: string[];
      val: string[];
      evalOverlap: string[];
    };
    expect(splits.train).toEqual(o.splits.train);
    expect(splits.evalOverlap.length).toBe(11);
    const report = readFileSync(join(d, 'report.md'), 'utf8');
    expect(report).toContain(SIMULATOR_NOTICE);
    expect(report).toContain('calibration fixtures');
    // single is in every method's part of the reference's grid.
    expect(o.summary.conformance).toEqual({ conformant: true, reasons: [] });
    expect(report).not.toContain('Non-conformant');
    expect(readFileSync(join(d, 'charts/progress.svg'), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
    const tree = JSON.parse(readFileSync(join(d, 'candidates.json'), 'utf8')) as Array<{
      id: string;
      parents: string[];
      val: number | null;
    }>;
    expect(tree.map((c) => c.id)).toEqual(o.engine.candidates.map((c) => c.id));
    const lineage = o.summary.lineage.map((l) => l.id);
    expect(lineage[0]).toBe('c0');
    expect(lineage.at(-1)).toBe(o.best.id);
    for (let i = 1; i < lineage.length; i++)
      expect(tree.find((c) => c.id === lineage[i])!.parents).toContain(lineage[i - 1]);
    expect(o.summary.tokens.task.total).toBeGreaterThan(0);
    expect(o.summary.tokens.reflection.calls).toBeGreaterThan(0);
  });

  it('logs every candidate with its parent, minibatch and validation scores, and every reflection prompt and answer', () => {
    const lines = readFileSync(join(o.outDir, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = lines.filter((l) => l.type === 'event') as Array<{ kind: string; data: Record<string, unknown> }>;
    for (const c of o.engine.candidates) {
      const made = events.find((e) => e.kind === 'candidate' && e.data.id === c.id)!;
      expect(made.data.parents).toEqual(c.parents);
      if (c.origin === 'reflection')
        expect(
          events.some((e) => e.kind === 'step' && e.data.child === c.id && Array.isArray(e.data.child_scores)),
        ).toBe(true);
    }
    for (const c of o.engine.validated())
      expect(events.some((e) => e.kind === 'validation' && e.data.id === c.id)).toBe(true);
    const reflections = lines.filter((l) => l.type === 'reflection');
    expect(reflections.length).toBe(o.engine.reflectionCalls);
    for (const r of reflections) expect(r.prompt).toContain('<current_instruction>');
    expect(lines.filter((l) => l.type === 'rollout').length).toBe(o.summary.spent);
  });

  it('the best prompts, run by the suite from DIR/best (what `toolhop --prompts DIR/best` does), score what the log says', async () => {
    const settings = { ...req.settings, promptsDir: join(o.outDir, 'best') };
    const client = (await import('../kit/runtime.ts')).runtimeFor(req.run, sim.url).client();
    for (const id of o.splits.val) {
      const done = await toolhopSuite.run(entries.find((e) => e.id === id)!, {
        run: req.run,
        settings,
        trial: 0,
        outDir: o.outDir,
        client: () => client,
        sampling: suiteTrialSampling(toolhopSuite, req.run, settings, 0),
        sandbox: () => sandbox,
        tracePath,
      });
      expect(done.meta.correct ? 1 : 0, `row ${id}`).toBe(o.engine.valScores(o.best.id)!.get(id));
    }
  });

  it('the fixture without HTTP (testing.ts) scores every rollout exactly as the real runner did', async () => {
    const pure = fixtureRunner(rows);
    for (const r of o.engine.rollouts())
      expect((await pure(o.engine.byId(r.candidate), r.row)).score, `${r.candidate} row ${r.row}`).toBe(r.score);
  });
});

describe('GEPA runs for every team topology (bundled sample, small teams)', () => {
  const cases: Array<[Topology, Record<string, string>]> = [
    ['independent', { TOOLHOP_TEAM_SIZE: '3' }],
    ['decentralized', { TOOLHOP_TEAM_SIZE: '2', TOOLHOP_ROUNDS: '2' }],
    ['centralized', { TOOLHOP_TEAM_SIZE: '2' }],
    ['sequential', { TOOLHOP_TEAM_SIZE: '2' }],
  ];
  it.each(cases)(
    '%s: improves validation within the budget; best/ holds every role in the seed layout',
    async (topology, team) => {
      const req = request({ topology, team, train: 5, val: 6, budget: 30, seed: 2 });
      const o = await optimize(req);
      expect(o.summary.spent).toBeLessThanOrEqual(30);
      expect(o.summary.validation.best.value).toBeGreaterThan(o.summary.validation.seed.value);
      const roles = Object.keys(o.seed.prompts);
      expect(roles.length).toBe(topology === 'centralized' ? 3 : topology === 'sequential' ? 2 : 1);
      const loaded = loadRolePrompts(join(o.outDir, 'best'), topology, roles, { suite: 'toolhop' });
      expect(loaded.text).toEqual(o.best.prompts);
      // The feedback says which role gave the scored answer; the search rewrites that role first.
      const answerer = {
        independent: 'solver',
        decentralized: 'debater',
        centralized: 'manager',
        sequential: 'verifier',
      }[topology as Exclude<Topology, 'single'>];
      for (const r of o.engine.rollouts()) expect(r.feedback.answeredBy).toBe(answerer);
      expect(o.engine.candidates.find((c) => c.origin === 'reflection')!.role).toBe(answerer);
      // Small teams are outside the reference's grid on ToolHop (r = 4 only): the job says it is non-conformant.
      expect(o.summary.conformance.conformant).toBe(false);
      expect(o.summary.conformance.reasons[0]).toMatch(/^off-grid cell: team size \d+/);
      expect(readFileSync(join(o.outDir, 'report.md'), 'utf8')).toContain(
        '**Non-conformant job** (run with `--allow-any-cell`)',
      );
    },
  );
});

describe('MIPRO on single, the bundled sample', () => {
  it('proposes instructions, searches combinations, stays within the budget', async () => {
    const o = await optimize(request({ method: 'mipro', train: 5, val: 6, budget: 40, seed: 3 }));
    expect(o.summary.spent).toBeLessThanOrEqual(40);
    expect(o.engine.candidates.some((c) => c.origin === 'proposal')).toBe(true);
    expect(o.summary.validation.best.value).toBeGreaterThan(o.summary.validation.seed.value);
  });
});

describe.skipIf(!existsSync(REAL))(
  'GEPA on single with train/val from the 182 real rows (needs ../shared/data)',
  () => {
    it('improves validation accuracy credibly within the budget, and the gain holds on held-out rows (paired)', async () => {
      const o = await optimize(request({ data: REAL, train: 24, val: 24, budget: 110, seed: 1, heldout: 50 }));
      const s = o.summary;
      expect(s.splits.excluded_eval_ids).toBe(0);
      expect(s.spent).toBeLessThanOrEqual(110);
      expect(s.validation.comparison.verdict).toBe('credible gain');
      expect(s.heldout!.comparison.n).toBe(50);
      expect(s.heldout!.comparison.verdict).toBe('credible gain');
      const seen = new Set([...o.splits.train, ...o.splits.val]);
      expect(o.splits.heldout.filter((id) => seen.has(id))).toEqual([]);
    });
  },
);

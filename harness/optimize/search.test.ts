import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { pairedCompare } from '../stats/index.ts';
import { loadDatasetFile } from '../toolhop/dataset.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { carriesTrait, traitValue } from '../toolhop/sim-trait.ts';
import type { Engine } from './engine.ts';
import { GEPA_DEFAULTS, runGepa, tryMerge, type GepaOptions } from './gepa.ts';
import { OptimizeLog, readLog } from './log.ts';
import { MIPRO_DEFAULTS, runMipro } from './mipro.ts';
import { drawSplits, toolhopEvalIds } from './splits.ts';
import { fixtureEngine as makeEngine, fixtureReflector, fixtureRunner } from './testing.ts';
import type { RolloutRunner } from './types.ts';

// Each engine logs to a folder of its own under the OS temporary folder: removed once this file's tests are done.
const made = new Set<string>();
const fixtureEngine = (o: Parameters<typeof makeEngine>[0]) => {
  const r = makeEngine(o);
  made.add(r.dir);
  return r;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

// The searches on the calibration fixture without HTTP (testing.ts; optimize.test.ts checks it agrees with the real
// runner): a working GEPA finds instructions that also help on rows it never saw; its broken variants do not.

const REAL = fileURLToPath(new URL('../../../shared/data/toolhop/ToolHop.sample.json', import.meta.url));
const SEED_PROMPT = 'You are solving ToolHop. Use the tools to answer.';
const TYPES = ['number', 'number', 'number', 'string', 'date', 'letter', 'datetime'];

/** Rows with ToolHop's answer types in roughly its proportions, ids outside 0–99. */
function syntheticRows(n: number, seed = 1): ToolhopRow[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: 1000 + i,
    question: `Synthetic question ${i}: what is the value at the end of chain ${rng.int(1e6)}?`,
    answer: String(i),
    sub_task: { a: '1' },
    tools: { a: { name: `t${i}`, description: '', parameters: { type: 'object' as const, properties: {} } } },
    functions: ['def t(): pass'],
    domain: 'synthetic',
    answer_type: rng.pick(TYPES),
    previous_answer_type: 'person',
  })) as ToolhopRow[];
}

interface Setup {
  rows: Map<string, ToolhopRow>;
  train: string[];
  val: string[];
  heldout: string[];
}

function setup(rows: ToolhopRow[], seed: number, trainSize = 30, valSize = 30): Setup {
  const s = drawSplits(
    rows.map((r) => ({ id: String(r.id), stratum: r.answer_type })),
    { trainSize, valSize, seed, allowEvalIds: false, evalIds: toolhopEvalIds() },
  );
  return { rows: new Map(rows.map((r) => [String(r.id), r])), train: s.train, val: s.val, heldout: s.heldout };
}

function gepaOptions(s: Setup, seed: number, extra: Partial<GepaOptions> = {}): GepaOptions {
  return {
    ...GEPA_DEFAULTS,
    topology: 'single',
    roles: ['solver'],
    answerer: 'solver',
    seedPrompts: { solver: SEED_PROMPT },
    train: s.train,
    val: s.val,
    seed,
    ...extra,
  };
}

async function heldoutComparison(engine: Engine, runner: RolloutRunner, s: Setup) {
  const seed = engine.candidates[0]!;
  const best = engine.best()!;
  const on = async (id: string) =>
    new Map(await Promise.all(s.heldout.map(async (r) => [r, (await runner(engine.byId(id), r)).score] as const)));
  return { best, seed, comparison: pairedCompare(await on(seed.id), await on(best.id), { metric: 'accuracy' }) };
}

function valComparison(engine: Engine) {
  const seed = engine.candidates[0]!;
  const best = engine.best()!;
  return pairedCompare(new Map(engine.valScores(seed.id)!), new Map(engine.valScores(best.id)!), {
    metric: 'accuracy',
  });
}

async function gepaRun(
  s: Setup,
  seed: number,
  o: { task?: string; reflect?: string; budget?: number; extra?: Partial<GepaOptions> } = {},
) {
  const runner = fixtureRunner(s.rows, o.task);
  const { engine } = fixtureEngine({
    runner,
    reflector: fixtureReflector(s.rows.values(), o.reflect),
    budget: o.budget ?? 300,
  });
  const result = await runGepa(engine, gepaOptions(s, seed, o.extra));
  return { engine, result, runner, held: await heldoutComparison(engine, runner, s), val: valComparison(engine) };
}

function searchesOn(label: string, rows: () => ToolhopRow[]) {
  describe(`GEPA on the trait fixture, single (${label})`, () => {
    it('improves validation accuracy within the budget, and the gain holds on held-out rows (paired, credible)', async () => {
      for (const seed of [1, 2, 3]) {
        const s = setup(rows(), seed);
        const { engine, val, held } = await gepaRun(s, seed);
        expect(engine.spent).toBeLessThanOrEqual(300);
        expect(val.verdict, `seed ${seed}`).toBe('credible gain');
        expect(held.comparison.verdict, `seed ${seed}`).toBe('credible gain');
        expect(held.comparison.mcnemar!.b10, 'an instruction never loses a row the seed solved').toBe(0);
      }
    });

    it('without reflection (a rewrite that sees no feedback) it gains nothing', async () => {
      const s = setup(rows(), 4);
      const { held, engine } = await gepaRun(s, 4, { extra: { ablation: { reflection: 'none' } } });
      expect(engine.candidates.length, 'it did search').toBeGreaterThan(1);
      expect(held.comparison.verdict).toBe('no credible change');
    });

    it('with the acceptance rule inverted (children that do worse are kept) it gains nothing', async () => {
      const s = setup(rows(), 5);
      const { held, engine } = await gepaRun(s, 5, { extra: { ablation: { acceptance: 'inverted' } } });
      expect(engine.candidates.length).toBeGreaterThan(3);
      expect(held.comparison.verdict).toBe('no credible change');
    });

    it('training on the validation rows makes a memorised "gain" on validation that held-out rows do not confirm', async () => {
      // The row-unique trait: an instruction helps only the row it was written for (a memorised answer).
      const memo = { task: 'sim:trait?trait=question', reflect: 'sim:reflect?trait=question&max=3' };
      const s = setup(rows(), 6);
      const leaky = await gepaRun(s, 6, { ...memo, extra: { ablation: { trainOn: 'val' } } });
      expect(leaky.val.verdict, 'the leak looks like a win on validation').toBe('credible gain');
      expect(leaky.held.comparison.verdict, 'and is none where it counts').toBe('no credible change');
      // The honest protocol on the same fixture claims nothing: memorising training rows does not move validation.
      const honest = await gepaRun(s, 6, memo);
      expect(honest.val.verdict).toBe('no credible change');
      expect(honest.held.comparison.verdict).toBe('no credible change');
    });
  });
}

searchesOn('synthetic rows', () => syntheticRows(200));
describe.skipIf(!existsSync(REAL))('the 182 real rows (needs ../shared/data)', () => {
  searchesOn('182 real ToolHop rows', () => loadDatasetFile(REAL).entries.flatMap((e) => (e.ok ? [e.row] : [])));
});

describe('MIPRO on the trait fixture', () => {
  it('finds a credibly better combination on validation that holds on held-out rows, within the budget', async () => {
    const s = setup(syntheticRows(200), 7);
    const runner = fixtureRunner(s.rows);
    const { engine } = fixtureEngine({
      runner,
      reflector: fixtureReflector(s.rows.values(), 'sim:reflect?max=3'),
      budget: 250,
    });
    await runMipro(engine, {
      ...MIPRO_DEFAULTS,
      topology: 'single',
      roles: ['solver'],
      answerer: 'solver',
      seedPrompts: { solver: SEED_PROMPT },
      train: s.train,
      val: s.val,
      seed: 7,
    });
    expect(engine.spent).toBeLessThanOrEqual(250);
    expect(valComparison(engine).verdict).toBe('credible gain');
    expect((await heldoutComparison(engine, runner, s)).comparison.verdict).toBe('credible gain');
    expect(engine.best()!.origin).toBe('proposal');
  });
});

/** Budgeted rollout lines of a log, and whether any key repeats. */
function loggedRollouts(dir: string) {
  const lines = readLog(join(dir, 'log.jsonl')).filter((l) => l.type === 'rollout' && l.error === null && l.budgeted);
  const keys = lines.map((l) => (l as { key: string }).key);
  return { count: lines.length, unique: new Set(keys).size, keys: new Set(keys) };
}

describe('the budget', () => {
  const s = setup(syntheticRows(120), 8, 20, 15);
  it('is never exceeded, and every rollout it counts is logged exactly once (any budget, minibatch, seed, method)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 15, max: 160 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('gepa', 'mipro'),
        fc.boolean(),
        async (budget, minibatch, seed, method, merge) => {
          let calls = 0;
          const inner = fixtureRunner(s.rows);
          const runner: RolloutRunner = (c, r) => {
            calls++;
            return inner(c, r);
          };
          const { engine, dir, log } = fixtureEngine({ runner, reflector: fixtureReflector(s.rows.values()), budget });
          if (method === 'gepa') await runGepa(engine, gepaOptions(s, seed, { minibatch, merge }));
          else
            await runMipro(engine, {
              ...MIPRO_DEFAULTS,
              topology: 'single',
              roles: ['solver'],
              answerer: 'solver',
              seedPrompts: { solver: SEED_PROMPT },
              train: s.train,
              val: s.val,
              seed,
              minibatch,
              numTrials: 8,
            });
          log.close();
          const logged = loggedRollouts(dir);
          expect(engine.spent).toBeLessThanOrEqual(budget);
          expect(calls).toBe(engine.spent);
          expect(logged.count).toBe(engine.spent);
          expect(logged.unique).toBe(logged.count);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('below one validation of the seed, nothing runs', async () => {
    const { engine } = fixtureEngine({
      runner: fixtureRunner(s.rows),
      reflector: fixtureReflector(s.rows.values()),
      budget: 14,
    });
    const r = await runGepa(engine, gepaOptions(s, 1));
    expect(engine.spent).toBe(0);
    expect(r.stopReason).toMatch(/does not cover the seed's validation/);
  });
});

class Killed extends Error {}

/** Make the log die after `k` rollout lines, as a SIGKILL would: nothing is written after that point. */
function killAfter(log: OptimizeLog, k: number): void {
  let n = 0;
  let dead = false;
  const guard =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A) => {
      if (dead) throw new Killed('killed');
      f(...a);
    };
  const appendRollout = log.appendRollout.bind(log);
  log.appendRollout = (l) => {
    if (dead) throw new Killed('killed');
    appendRollout(l);
    if (++n >= k) dead = true;
  };
  log.appendReflection = guard(log.appendReflection.bind(log));
  log.event = guard(log.event.bind(log));
}

describe('resuming after a kill', () => {
  const s = setup(syntheticRows(120), 9, 20, 15);
  const search = (method: 'gepa' | 'mipro', engine: Engine, seed: number) =>
    method === 'gepa'
      ? runGepa(engine, gepaOptions(s, seed))
      : runMipro(engine, {
          ...MIPRO_DEFAULTS,
          topology: 'single',
          roles: ['solver'],
          answerer: 'solver',
          seedPrompts: { solver: SEED_PROMPT },
          train: s.train,
          val: s.val,
          seed,
          numTrials: 10,
        });

  it('loses and repeats no rollout: the resumed run ends where an uninterrupted one does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'gepa' | 'mipro'>('gepa', 'mipro'),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 0, max: 50 }),
        async (method, k, seed) => {
          const budget = 160;
          const whole = fixtureEngine({
            runner: fixtureRunner(s.rows),
            reflector: fixtureReflector(s.rows.values()),
            budget,
          });
          await search(method, whole.engine, seed);
          whole.log.close();

          let calls = 0;
          const inner = fixtureRunner(s.rows);
          const counting: RolloutRunner = (c, r) => {
            calls++;
            return inner(c, r);
          };
          const first = fixtureEngine({ runner: counting, reflector: fixtureReflector(s.rows.values()), budget });
          killAfter(first.log, k);
          const killed = await search(method, first.engine, seed).then(
            () => false,
            (e) => (e instanceof Killed ? true : Promise.reject(e)),
          );
          first.log.close();
          const before = loggedRollouts(first.dir);
          const again = fixtureEngine({
            runner: counting,
            reflector: fixtureReflector(s.rows.values()),
            budget,
            dir: first.dir,
            resume: true,
          });
          await search(method, again.engine, seed);
          again.log.close();
          const after = loggedRollouts(first.dir);

          expect(after.unique, 'no key logged twice').toBe(after.count);
          expect(after.keys).toEqual(loggedRollouts(whole.dir).keys);
          expect(again.engine.spent).toBe(whole.engine.spent);
          expect(again.engine.replayed).toBe(before.count);
          expect(again.engine.candidates.map((c) => c.sha)).toEqual(whole.engine.candidates.map((c) => c.sha));
          expect(again.engine.best()!.sha).toBe(whole.engine.best()!.sha);
          // Every logged rollout ran once; only rollouts in flight at the kill (never logged) ran again.
          if (!killed) expect(calls).toBe(whole.engine.spent);
          expect(calls - after.count).toBeLessThanOrEqual(4);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('stops at a harness error without counting it, and a resumed run tries that rollout again', async () => {
    const whole = fixtureEngine({
      runner: fixtureRunner(s.rows),
      reflector: fixtureReflector(s.rows.values()),
      budget: 120,
    });
    await runGepa(whole.engine, gepaOptions(s, 3));
    const inner = fixtureRunner(s.rows);
    let failed = false;
    const flaky: RolloutRunner = async (c, r) => {
      if (c.id === 'c1' && !failed) {
        failed = true;
        return { ...(await inner(c, r)), score: 0, error: 'endpoint failed after 6 attempt(s): 500' };
      }
      return inner(c, r);
    };
    const first = fixtureEngine({ runner: flaky, reflector: fixtureReflector(s.rows.values()), budget: 120 });
    await expect(runGepa(first.engine, gepaOptions(s, 3))).rejects.toThrow(
      /1 rollout\(s\) ended in a harness error, first: c1 on row \S+: endpoint failed/,
    );
    first.log.close();
    const erroredKeys = readLog(join(first.dir, 'log.jsonl')).filter((l) => l.type === 'rollout' && l.error !== null);
    expect(erroredKeys).toHaveLength(1);
    expect(first.engine.spent).toBe(loggedRollouts(first.dir).count);
    const again = fixtureEngine({
      runner: inner,
      reflector: fixtureReflector(s.rows.values()),
      budget: 120,
      dir: first.dir,
      resume: true,
    });
    await runGepa(again.engine, gepaOptions(s, 3));
    expect(again.engine.spent).toBe(whole.engine.spent);
    expect(again.engine.best()!.sha).toBe(whole.engine.best()!.sha);
    expect(loggedRollouts(first.dir).keys).toEqual(loggedRollouts(whole.dir).keys);
  });

  it('refuses a log written with other settings', () => {
    const { dir, log } = fixtureEngine({
      runner: fixtureRunner(new Map()),
      reflector: fixtureReflector([]),
      budget: 10,
      config: { seed: 1, budget: 10 },
    });
    log.close();
    expect(() => OptimizeLog.open(join(dir, 'log.jsonl'), { seed: 2, budget: 10 }, true)).toThrow(
      /written with seed=1, this run has 2/,
    );
    // A larger budget is allowed: the search goes on.
    expect(() => OptimizeLog.open(join(dir, 'log.jsonl'), { seed: 1, budget: 99 }, true).close()).not.toThrow();
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8').split('\n')[0]).toContain('"seed":1');
  });
});

describe('GEPA merge', () => {
  // Two roles: a row is solved when role A carries its answer type or role B carries its previous answer type. Two
  // children of the seed, one improving A and one improving B, are each best on rows of their own: both stay on the
  // Pareto front, and a merge takes A from one and B from the other.
  const rows = syntheticRows(160, 11).map((r, i) => ({
    ...r,
    previous_answer_type: ['person', 'date', 'year', 'place'][i % 4]!,
  }));
  const s = setup(rows, 11, 30, 30);
  const runner: RolloutRunner = async (c, id) => {
    const row = s.rows.get(id)!;
    const ok =
      carriesTrait(c.prompts.A!, 'answer_type', traitValue(row, 'answer_type')) ||
      carriesTrait(c.prompts.B!, 'previous_answer_type', traitValue(row, 'previous_answer_type'));
    const base = await fixtureRunner(s.rows)(c, id);
    return { ...base, score: ok ? 1 : 0, feedback: { ...base.feedback, correct: ok } };
  };
  const options = (merge: boolean): GepaOptions => ({
    ...GEPA_DEFAULTS,
    topology: 'sequential',
    roles: ['A', 'B'],
    answerer: 'B',
    seedPrompts: { A: 'Seed A.', B: 'Seed B.' },
    train: s.train,
    val: s.val,
    seed: 11,
    merge,
  });

  it('combines, role by role, two front candidates that improved different roles, and keeps the merge when it does at least as well', async () => {
    const { engine, log } = fixtureEngine({ runner, reflector: fixtureReflector([]), budget: 400 });
    const o = options(true);
    const seed = engine.candidate(o.seedPrompts, [], null, 'seed', 0).candidate;
    await engine.validate(seed, o.val);
    const a = engine.candidate(
      { A: 'Seed A.\n- When the answer type is "number": x', B: 'Seed B.' },
      [seed.id],
      'A',
      'reflection',
      1,
    ).candidate;
    const b = engine.candidate(
      { A: 'Seed A.', B: 'Seed B.\n- When the previous answer type is "person": x' },
      [seed.id],
      'B',
      'reflection',
      2,
    ).candidate;
    await engine.validate(a, o.val);
    await engine.validate(b, o.val);
    expect(await tryMerge(engine, o, 3)).toBe(true);
    const merged = engine.candidates.at(-1)!;
    expect(merged.origin).toBe('merge');
    expect([...merged.parents].sort()).toEqual([a.id, b.id].sort());
    expect(merged.prompts).toEqual({ A: a.prompts.A, B: b.prompts.B });
    const ev = log.eventLines().find((e) => e.kind === 'merge')!;
    expect(ev.data.accepted).toBe(true);
    expect(engine.valMean(merged.id)).toBeGreaterThan(Math.max(engine.valMean(a.id), engine.valMean(b.id)));
    // Nothing new to merge: the same pair is not tried again.
    expect(await tryMerge(engine, o, 4)).toBe(false);
  });

  it('a search with merging off makes no merge', async () => {
    const { engine, log } = fixtureEngine({ runner, reflector: fixtureReflector(rows), budget: 300 });
    await runGepa(engine, options(false));
    expect(log.eventLines().filter((e) => e.kind === 'merge')).toEqual([]);
    expect(engine.candidates.some((c) => c.origin === 'merge')).toBe(false);
  });
});

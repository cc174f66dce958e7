import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { traitWins } from '../toolhop/sim-trait.ts';
import { Engine } from './engine.ts';
import { fixtureRollout } from './fixture-rollout.ts';
import { OptimizeLog } from './log.ts';
import { reflectAnswer } from './sim-reflect.ts';
import type { ReflectionModel, RolloutRunner } from './types.ts';

/**
 * Test support: the calibration fixture without HTTP, for tests of the search itself that need thousands of
 * rollouts. A rollout of a single agent is decided exactly as `sim:trait` decides it over the wire (the same
 * `traitWins` on the same system-prompt text, the same instance and agent ids), and the reflection is `sim:reflect`'s
 * pure `reflectAnswer`; optimize.test.ts checks against the real runner that the two agree row by row.
 */
export function fixtureRunner(rows: ReadonlyMap<string, ToolhopRow>, taskModel = 'sim:trait'): RolloutRunner {
  const spec = parsePolicySpec(taskModel);
  return async (c, id) => {
    const row = rows.get(id);
    if (!row) throw new Error(`no row ${id}`);
    const won = traitWins(spec, row, c.prompts.solver ?? '', { instance: `toolhop:${id}`, agent: 'solver', trial: 0 });
    const predicted = won ? row.answer : 'wrong';
    return fixtureRollout(row, {
      predicted,
      correct: won,
      toolCalls: won ? Object.keys(row.tools).length : 0,
      answeredBy: 'solver',
      runs: [{ role: 'solver', final: `<answer>${predicted}</answer>` }],
    });
  };
}

export function fixtureReflector(rows: Iterable<ToolhopRow>, model = 'sim:reflect'): ReflectionModel {
  const spec = parsePolicySpec(model);
  const byQuestion = new Map([...rows].map((r) => [r.question.replace(/\s+/g, ' ').trim().toLowerCase(), r]));
  return async (prompt) => ({
    answer: reflectAnswer(spec, prompt, (q) => byQuestion.get(q.replace(/\s+/g, ' ').trim().toLowerCase())),
    tokens: { prompt: 50, completion: 20, total: 70 },
  });
}

/** An engine over a fresh (or resumed) log in a temporary folder. */
export function fixtureEngine(o: {
  runner: RolloutRunner;
  reflector: ReflectionModel;
  budget: number;
  dir?: string;
  resume?: boolean;
  config?: Record<string, unknown>;
  concurrency?: number;
}): { engine: Engine; log: OptimizeLog; dir: string } {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'optimize-'));
  const log = OptimizeLog.open(join(dir, 'log.jsonl'), o.config ?? { test: true }, o.resume ?? false, {
    durable: false,
  });
  return {
    engine: new Engine({
      log,
      runner: o.runner,
      reflector: o.reflector,
      budget: o.budget,
      concurrency: o.concurrency ?? 4,
    }),
    log,
    dir,
  };
}

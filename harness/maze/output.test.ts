import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judge, type JudgeMode } from './judge.ts';
import { computeMetrics, failureTable, outcomeOf, summaryShape, type RunOutcome } from './aggregate.ts';
import {
  EvaluationFile,
  InferenceFile,
  MetricsReportFile,
  buildEvaluation,
  buildInference,
  evaluationPath,
  inferencePath,
  mazeRoot,
  metricsReportPath,
  modelDirName,
  recomputeFromFiles,
  writeMetricsReports,
} from './output.ts';
import { mazePolicy } from './policies.ts';
import { scriptedAgent, walkPath, writeRunFiles } from './testing.ts';
import { runLocal, type MazeAgent } from './run-local.ts';
import { MODES, loadMazeTasks, type MazeTask, type Mode } from './task.ts';
import { hashString } from '../core/rng.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

const tasks = loadMazeTasks();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A mixed agent so that every metric is strictly between 0 and 1: oracle on some runs, naive on others. */
function mixedAgent(task: MazeTask, mode: string): MazeAgent {
  const oracle = hashString(`${task.id}|${mode}`) % 3 !== 0;
  return (m) => mazePolicy(oracle ? 'oracle' : 'naive', task, m);
}

/** Each task and mode runs once per file: the agent is the same under either judge mode, only the verdict differs. */
const localRuns = new Map<string, ReturnType<typeof runLocal>>();
function runOnce(task: MazeTask, mode: Mode): ReturnType<typeof runLocal> {
  const key = `${task.id}|${mode}`;
  let r = localRuns.get(key);
  if (!r) localRuns.set(key, (r = runLocal(task, mode, mixedAgent(task, mode))));
  return r;
}

function runAll(root: string, judgeMode: JudgeMode, subset: MazeTask[]): RunOutcome[] {
  const outcomes: RunOutcome[] = [];
  for (const task of subset) {
    for (const mode of MODES) {
      const r = runOnce(task, mode);
      const v = judge(task, mode, r.trace, r.finalAnswer, { mode: judgeMode });
      writeRunFiles(
        root,
        buildInference(task, mode, 'sim:mixed', { ...r, messages: r.messages }),
        buildEvaluation(v, 'sim:mixed'),
      );
      outcomes.push(outcomeOf(v));
    }
  }
  return outcomes;
}

describe('metrics: definitions', () => {
  const o = (task_id: string, mode: 'P1' | 'P0', pass: boolean, hit: boolean, rc: number): RunOutcome => ({
    task_id,
    complexity: 'c2',
    mode,
    pass,
    hit,
    rc,
    recovery: !hit ? 'none' : pass ? 'retry' : 'unrecovered',
    failure_reason: pass ? null : 'no_retry_or_switch',
  });

  it('TSR = passes / runs; PRR = (hit ∧ pass) / hits; RC = mean over all runs', () => {
    const runs = [
      o('a', 'P1', true, true, 0.25),
      o('b', 'P1', false, true, 1),
      o('c', 'P1', true, false, 0),
      o('d', 'P1', false, false, 0),
    ];
    const m = computeMetrics(runs).by_mode.P1!;
    expect(m.tsr.value).toBe(0.5);
    expect(m.prr.value).toBe(0.5);
    expect(m.prr.n).toBe(2);
    expect(m.rc.value).toBeCloseTo(1.25 / 4, 12);
    expect(m.rc.n).toBe(4);
    expect(m.outcomes).toEqual({ task_ids: ['a', 'b', 'c', 'd'], tsr: [1, 0, 1, 0], prr: [1, 0], rc: [0.25, 1, 0, 0] });
    expect(m.recovery).toEqual({ retry: 1, switch: 0, abort: 0, none: 2, unrecovered: 1 });
    expect(m.failure_reasons).toEqual({ no_retry_or_switch: 2 });
    expect(m.tsr.lo).toBeLessThanOrEqual(0.5);
    expect(m.tsr.hi).toBeGreaterThanOrEqual(0.5);
    expect(m.tsr.denominator).toBe('runs');
    expect(m.prr.denominator).toMatch(/hits/);
  });

  it('PRR is undefined (NaN, n = 0) without hits; order of runs does not matter', () => {
    const runs = [o('a', 'P0', true, false, 0), o('b', 'P0', false, false, 0)];
    const m = computeMetrics(runs).by_mode.P0!;
    expect(m.prr.n).toBe(0);
    expect(Number.isNaN(m.prr.value)).toBe(true);
    expect(computeMetrics([...runs].reverse())).toEqual(computeMetrics(runs));
  });

  it('failure table and summary shape', () => {
    const runs = [o('a', 'P1', false, true, 1), o('b', 'P0', true, false, 0)];
    expect(failureTable(runs)).toEqual([{ failure_reason: 'no_retry_or_switch', total: 1, P1: 1 }]);
    const s = summaryShape(computeMetrics(runs));
    expect(s.metrics.tsr.P1).toMatchObject({ value: 0, n: 1 });
    expect(s.breakdowns.complexity.c2?.rc.P1).toMatchObject({ value: 1, n: 1 });
  });
});

describe('output files and recomputeFromFiles', () => {
  const subset = tasks.filter((_, i) => i % 3 === 0);

  for (const judgeMode of ['compat', 'strict'] as JudgeMode[]) {
    it(`TSR / PRR / RC from saved inference + evaluation files equal the in-memory metrics (${judgeMode})`, () => {
      const root = mazeRoot(tempDir('maze-out'), 'sim:mixed?seed=1');
      dirs.push(root);
      const outcomes = runAll(root, judgeMode, subset);
      const mem = computeMetrics(outcomes);
      const re = recomputeFromFiles(root, { tasks });
      expect(re.discrepancies).toEqual([]);
      expect(re.files).toBe(subset.length * MODES.length);
      // The comparison must be able to fail: the sample mixes passes and failures in every perturbed mode.
      for (const m of ['P1', 'P2', 'P3', 'P4'] as const) {
        expect(mem.by_mode[m]!.tsr.value).toBeGreaterThan(0);
        expect(mem.by_mode[m]!.tsr.value).toBeLessThan(1);
      }
      for (const m of MODES) {
        const a = mem.by_mode[m]!;
        const b = re.by_mode[m]!;
        expect(b.runs).toBe(a.runs);
        expect(b.hits).toBe(a.hits);
        expect(b.tsr).toBeCloseTo(a.tsr.value, 12);
        if (a.hits > 0) expect(b.prr).toBeCloseTo(a.prr.value, 12);
        else expect(b.prr).toBeNull();
        expect(b.rc).toBeCloseTo(a.rc.value, 12);
        for (const c of ['c1', 'c2', 'c3', 'c4'] as const) {
          expect(re.by_complexity[c]![m]!.tsr).toBeCloseTo(mem.by_complexity[c]![m]!.tsr.value, 12);
          expect(re.by_complexity[c]![m]!.rc).toBeCloseTo(mem.by_complexity[c]![m]!.rc.value, 12);
        }
      }
    });
  }

  it('writes the documented layout and zod-valid shapes; metrics reports carry the injected timestamp', () => {
    const base = tempDir('maze-out');
    dirs.push(base);
    const root = mazeRoot(base, 'sim:oracle');
    expect(root).toBe(join(base, 'sim_oracle', 'fc'));
    const task = tasks.find((t) => t.complexity === 'c3')!;
    const r = runLocal(task, 'P2', 'oracle');
    const v = judge(task, 'P2', r.trace, r.finalAnswer, { mode: 'compat' });
    const paths = writeRunFiles(root, buildInference(task, 'P2', 'sim:oracle', r), buildEvaluation(v, 'sim:oracle'));
    expect(paths.inference).toBe(join(root, 'c3', 'inferences', `${task.id}_P2_inference.json`));
    expect(paths.evaluation).toBe(join(root, 'c3', 'evaluations', `${task.id}_P2_eval.json`));
    expect(inferencePath(root, 'c3', task.id, 'P2')).toBe(paths.inference);
    expect(evaluationPath(root, 'c3', task.id, 'P2')).toBe(paths.evaluation);
    const inf = InferenceFile.parse(JSON.parse(readFileSync(paths.inference, 'utf8')));
    expect(inf.trace).toEqual(r.trace);
    expect(EvaluationFile.parse(JSON.parse(readFileSync(paths.evaluation, 'utf8')))).toMatchObject({
      pass: true,
      recovery: 'switch',
    });
    const written = writeMetricsReports(root, 'sim:oracle', [outcomeOf(v)], '2025-06-16T12:00:00Z', 'compat');
    expect(written).toEqual([metricsReportPath(root, 'c3', '2025-06-16T12:00:00Z')]);
    expect(written[0]).toMatch(/metrics_report_2025-06-16T12-00-00Z\.json$/);
    const rep = MetricsReportFile.parse(JSON.parse(readFileSync(written[0]!, 'utf8')));
    expect(rep).toMatchObject({ model: 'sim:oracle', complexity: 'c3', timestamp: '2025-06-16T12:00:00Z' });
    expect(rep.per_mode.P2).toMatchObject({ runs: 1, hits: 1, passes: 1, tsr: { value: 1 }, prr: { value: 1 } });
    expect(modelDirName('a/b c?x=1')).toBe('a_b_c_x_1');
  });

  it('re-judges each run in the judge mode its evaluation file records', () => {
    // A P0 run along a valid path that answers 12 where the task's value is 8857.5: compat does not check the
    // value, strict does, so the two modes give opposite verdicts on the same inference file.
    const task = tasks.find((t) => t.template === 'c2_transfer_share')!;
    const moves = walkPath(task, 'p0', { answer: 'The balance is <answer>12</answer>' });
    const r = runLocal(task, 'P0', scriptedAgent(task, moves));
    const verdicts = {
      compat: judge(task, 'P0', r.trace, r.finalAnswer, { mode: 'compat' }),
      strict: judge(task, 'P0', r.trace, r.finalAnswer, { mode: 'strict' }),
    };
    expect(verdicts.compat.pass).toBe(true);
    expect(verdicts.strict).toMatchObject({ pass: false, failure_reason: 'wrong_answer' });
    for (const [recorded, other] of [
      ['compat', 'strict'],
      ['strict', 'compat'],
    ] as Array<[JudgeMode, JudgeMode]>) {
      const base = tempDir('maze-out');
      dirs.push(base);
      const root = mazeRoot(base, 'm');
      writeRunFiles(root, buildInference(task, 'P0', 'm', r), buildEvaluation(verdicts[recorded], 'm'));
      const re = recomputeFromFiles(root, { tasks });
      expect(re.discrepancies, recorded).toEqual([]);
      expect(re.by_mode.P0?.tsr, recorded).toBe(recorded === 'compat' ? 1 : 0);
      // Asked for the other mode, the re-judge disagrees with the file: the check above can see a mode mix-up.
      expect(recomputeFromFiles(root, { tasks, judgeMode: other }).discrepancies, recorded).toEqual([
        `${task.id} P0: re-judged pass=${recorded === 'strict'}, file says ${recorded === 'compat'}`,
      ]);
    }
  });

  it('a tampered evaluation file is reported as a discrepancy', () => {
    const base = tempDir('maze-out');
    dirs.push(base);
    const root = mazeRoot(base, 'm');
    const task = tasks.find((t) => t.complexity === 'c2')!;
    const r = runLocal(task, 'P1', 'naive');
    const v = judge(task, 'P1', r.trace, r.finalAnswer, { mode: 'compat' });
    const p = writeRunFiles(root, buildInference(task, 'P1', 'm', r), buildEvaluation(v, 'm'));
    const ev = JSON.parse(readFileSync(p.evaluation, 'utf8'));
    writeFileSync(p.evaluation, JSON.stringify({ ...ev, pass: true, c_act: ev.c_act + 1 }));
    const re = recomputeFromFiles(root, { tasks });
    expect(re.discrepancies.join('\n')).toMatch(/c_act/);
    expect(re.discrepancies.join('\n')).toMatch(/re-judged pass=false/);
    expect(existsSync(join(root, 'c1'))).toBe(false);
  });
});

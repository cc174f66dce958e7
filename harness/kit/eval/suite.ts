import { renderTranscript } from '../../agent/transcript.ts';
import { sha256 } from '../../core/hash.ts';
import { MAX_TIMER_MS, timerMs } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { genericAggregator, scoredMetaSchema, type ScoredMeta } from '../generic.ts';
import { evalOutDir } from '../outdir.ts';
import type { SuiteDefinition, Verdict } from '../types.ts';
import { isJudgeError, judgeCase } from './judge-context.ts';
import { expectedToolsJson } from './expected-tools.ts';
import { scoreOf } from './scorers.ts';
import { builtinNameRefusal } from './builtin-names.ts';
import { registerEvalCases, registrationOf, simulatorEndpoint } from './sim-cases.ts';
import { closeToolSources, leaseTools, toolLabels, type EvalTools } from './tool-source.ts';
import type { EvalCase, Scorer, Task, TaskOutput } from './types.ts';

/**
 * The options of `describeEval` (docs/eval.md): cases whose `input` the task receives and whose `expected` the
 * scorers receive, with the task's output, all typed.
 */
export interface EvalOptions<TInput = string, TExpected = unknown, TOutput = TaskOutput> {
  data: () => readonly EvalCase<TInput, TExpected>[] | Promise<readonly EvalCase<TInput, TExpected>[]>;
  /** The eval's tools, and tool sources such as `mcp(…)` whose tools are listed when a case first needs them. */
  tools?: EvalTools;
  // The case types come from data() alone (the task and scorers are checked against them), the output type from the
  // task and the scorers.
  task: Task<NoInfer<TInput>, TOutput, NoInfer<TExpected>>;
  scorers: readonly Scorer<NoInfer<TInput>, NoInfer<TExpected>, TOutput>[];
  /** An instance passes when the mean of its scores reaches this (default 1: every scorer satisfied). */
  threshold?: number;
  /** Trials of each case in this eval, in place of the run's `--trials` (trial t is sent the seed: the run's + t). */
  trials?: number;
  /** One case's (one trial's) time limit in ms, in place of the run's (TOOLGAUGE_INSTANCE_TIMEOUT_MS; Vitest's per-test timeout). */
  timeout?: number;
}

export interface EvalInstance<TInput = unknown, TExpected = unknown> {
  id: string;
  case: EvalCase<TInput, TExpected> & { id: string };
}

/** What a user eval's run needs besides the shared run config (its options live in the test file, not the env). */
export interface EvalSettings {
  threshold: number;
}

const NAME = /^[A-Za-z0-9][\w.-]*$/;

/**
 * A user's eval as a suite on the kit: instances from `data()`, run by `task` with the eval's tools, scored by each
 * scorer (`metrics.<scorer>`), passing when the mean score reaches the threshold (`metrics.pass_rate`); the
 * generic aggregation, report, gate, resume, shards and comparisons come from the kit.
 */
export function evalSuite<TInput = string, TExpected = unknown, TOutput = TaskOutput>(
  name: string,
  o: EvalOptions<TInput, TExpected, TOutput>,
): SuiteDefinition<EvalInstance<TInput, TExpected>, ScoredMeta, EvalSettings> {
  if (!NAME.test(name))
    throw new UsageError(
      `describeEval: the name '${name}' must be letters, digits, '.', '-' or '_' (it names the output folder and the metrics)`,
    );
  const taken = builtinNameRefusal(name);
  if (taken) throw new UsageError(taken);
  evalRunOptions(name, o);
  // The loaded cases, and their registration with each simulator that answers this eval (by its URL).
  let loadedCases: Array<EvalCase<TInput, TExpected> & { id: string }> = [];
  const registered = new Map<string, Promise<void>>();
  const scorerNames = o.scorers.map((s) => s.name);
  const dup = scorerNames.find((n, i) => scorerNames.indexOf(n) !== i);
  if (dup) throw new UsageError(`describeEval ${name}: two scorers are named '${dup}'; give one a name option`);
  return {
    name,
    title: name,
    settings: () => ({ threshold: o.threshold ?? 1 }),
    // Several evals' --out-dir is their parent; `--model a,b` runs each model into its own folder inside the eval's
    // (docs/eval.md, "Several evals", "Several models")
    outDir: (run) => evalOutDir(run, name),
    outputs: [],
    async load() {
      const rows = await o.data();
      const seen = new Map<string, number>();
      const instances = rows.map((c, i) => {
        const id = c.id === undefined || c.id === null ? String(i) : String(c.id);
        // Array indices, as the user's code writes them: no doubt whether counting starts at 0 or 1.
        if (seen.has(id))
          throw new UsageError(
            `describeEval ${name}: data() gives the id '${id}' twice (data()[${seen.get(id)}] and data()[${i}])`,
          );
        seen.set(id, i);
        return { id, case: { ...c, id } };
      });
      loadedCases = instances.map((i) => i.case);
      return {
        instances,
        dataset: {
          file: '(describeEval data)',
          sha256: sha256(JSON.stringify(rows)),
          origin: `describeEval('${name}') data()`,
        },
      };
    },
    testName: (i) => `${name} › ${i.id}`,
    async run(inst, ctx) {
      // Answered by the simulator: it learns the cases before the first of them asks.
      const sim = simulatorEndpoint(ctx.run, ctx.simUrl);
      if (sim) {
        if (!registered.has(sim))
          registered.set(
            sim,
            registerEvalCases(sim, name, registrationOf(loadedCases as never), ctx.run.requestTimeoutMs),
          );
        await registered.get(sim);
      }
      // Tool sources (MCP servers) start on first use; a source that broke during the case makes it a harness error.
      const lease = await leaseTools(name, o.tools ?? [], ctx.run);
      const out = await (async () => {
        try {
          const produced = await o.task(inst.case.input, {
            client: ctx.client(),
            run: ctx.run,
            tools: lease.tools,
            case: inst.case,
            trial: ctx.trial,
            sampling: ctx.sampling(),
            suite: name,
          });
          const broke = lease.failure();
          if (broke) throw new Error(broke);
          return produced;
        } finally {
          await lease.release();
        }
      })();
      const scores: Record<string, number | null> = {};
      // Every scorer's reason, kept in the trace for the viewer (the meta's reason names the scorers under threshold).
      const scorerReasons: Record<string, string> = {};
      const judging = judgeCase({
        run: ctx.run,
        simUrl: ctx.simUrl,
        suite: name,
        id: inst.id,
        trial: ctx.trial,
        seed: ctx.sampling().seed,
      });
      // A judge with no verdict: the case is an error naming the first such scorer (the others still score).
      let judgeFailed: { scorer: string; message: string } | undefined;
      for (const s of o.scorers) {
        const args = { input: inst.case.input, expected: inst.case.expected, output: out, case: inst.case };
        try {
          const v = await scoreWith(s, { ...args, judge: judging.context });
          scores[s.name] = v.score;
          if (v.reason) scorerReasons[s.name] = v.reason;
        } catch (err) {
          if (!isJudgeError(err)) throw err;
          scores[s.name] = null;
          judgeFailed ??= { scorer: s.name, message: `scorer '${s.name}': ${err.message}` };
        }
      }
      const judgeUsage = judging.usage();
      const { pass, mean } = judgeFailed ? { pass: false, mean: null } : judge(scores, ctx.settings.threshold);
      // A task of your own may return anything; the transcript shows the standard output's conversation.
      const standard = isTaskOutput(out);
      const trace = ctx.tracePath(inst.id, ctx.trial);
      const meta: ScoredMeta = {
        suite: name,
        id: inst.id,
        trial: ctx.trial,
        error: judgeFailed?.message ?? null,
        pass,
        reason: judgeFailed
          ? judgeFailed.message
          : pass
            ? null
            : mean === null
              ? UNSCORED
              : failureReason(scores, scorerReasons, mean, ctx.settings.threshold),
        ...(mean === null && o.scorers.length && !judgeFailed ? { unscored: true } : {}),
        trace,
        scores,
        ...(inst.case.tags ? { tags: inst.case.tags } : {}),
        ...(judgeUsage ? { judge_usage: judgeUsage } : {}),
        ...(judgeFailed ? { judge_error: judgeFailed.scorer } : {}),
      };
      return {
        meta,
        files: {
          [trace]: {
            id: inst.id,
            trial: ctx.trial,
            input: inst.case.input,
            expected: inst.case.expected ?? null,
            ...(inst.case.expectedTools ? { expectedTools: expectedToolsJson(inst.case.expectedTools) } : {}),
            // What a tool source changed in what its server offered (a schema replaced, a tool left out).
            ...(lease.notes.length ? { toolNotes: lease.notes } : {}),
            output: out,
            scores,
            reasons: scorerReasons,
            // Each judged scorer's prompt, reply and verdict (or its error), under the scorer's name.
            ...(Object.keys(judging.records).length ? { judges: judging.records } : {}),
          },
        },
        transcript: renderTranscript({
          title: `${name} ${inst.id}`,
          messages: standard ? out.messages : [],
          footer: [
            `expected: ${JSON.stringify(inst.case.expected ?? null)}`,
            ...(inst.case.expectedTools
              ? [`expected tools: ${JSON.stringify(expectedToolsJson(inst.case.expectedTools))}`]
              : []),
            `${standard ? 'answer: ' : 'output: '}  ${standard ? out.answer : JSON.stringify(out ?? null)}`,
            ...lease.notes.map((n) => `tool note: ${n}`),
            ...Object.entries(scores).map(([k, v]) => `${k}: ${v}`),
          ],
        }),
      };
    },
    failed: (inst, trial, message) => ({
      suite: name,
      id: inst.id,
      trial,
      error: message,
      pass: false,
      reason: message,
      scores: Object.fromEntries(scorerNames.map((n) => [n, 0])),
    }),
    verdict: evalVerdict,
    // What a journal line read back must hold: a score from every scorer (the aggregation reads each).
    metaSchema: scoredMetaSchema({ scorers: scorerNames }),
    aggregator: genericAggregator,
    // What changes an instance's score (harness/kit/fingerprint.ts).
    fingerprintOn: ['threshold', 'scorers', 'tools'],
    config: () => ({
      threshold: o.threshold ?? 1,
      scorers: scorerNames,
      tools: toolLabels(o.tools ?? []),
      ...(o.trials !== undefined ? { trials: o.trials } : {}),
    }),
    metricNames: () => ['pass_rate', 'error_rate', 'pass@*', 'pass^*', ...scorerNames],
    close: () => closeToolSources(o.tools ?? []),
  };
}

/**
 * Why a case failed: each scorer under the threshold with its score (and first its reason, when it gave one), then
 * the mean against the threshold, so a failure names its scorers whether or not they explain themselves.
 */
export function failureReason(
  scores: Record<string, number | null>,
  reasons: Record<string, string>,
  mean: number,
  threshold: number,
): string {
  const under = Object.entries(scores)
    .filter((e): e is [string, number] => e[1] !== null)
    .filter(([k, v]) => v < threshold || (v < 1 && reasons[k]))
    .map(([k, v]) => `${k}: ${reasons[k] ? `${reasons[k]} (score ${v.toFixed(2)})` : `score ${v.toFixed(2)}`}`);
  return `${under.length ? under.join('; ') : 'no scorers'}; mean ${mean.toFixed(2)} < ${threshold}`;
}

function isTaskOutput(x: unknown): x is TaskOutput {
  const o = x as Partial<TaskOutput> | null;
  return !!o && typeof o === 'object' && Array.isArray(o.messages) && typeof o.answer === 'string';
}

/** The eval's own trials and timeout, checked: a whole number of trials from 1, a timeout Node's timers honour. */
export function evalRunOptions(
  name: string,
  o: { trials?: number | undefined; timeout?: number | undefined },
): { trials?: number; timeout?: number } {
  const t = o.trials;
  if (t !== undefined && !(Number.isInteger(t) && t >= 1))
    throw new UsageError(`describeEval ${name}: trials must be a whole number from 1, got ${String(t)}`);
  const ms = o.timeout;
  if (ms !== undefined) {
    const checked = timerMs.safeParse(ms);
    if (!checked.success)
      throw new UsageError(
        `describeEval ${name}: timeout must be a whole number of ms from 1, at most ${MAX_TIMER_MS}; got ${String(ms)}`,
      );
  }
  return { ...(t !== undefined ? { trials: t } : {}), ...(ms !== undefined ? { timeout: ms } : {}) };
}

const UNSCORED = 'unscored: every scorer returned null';

/** One scorer's score; a scorer that throws or returns no valid score fails the case with its name. */
async function scoreWith<TInput, TExpected, TOutput>(
  s: Scorer<TInput, TExpected, TOutput>,
  args: Parameters<Scorer<TInput, TExpected, TOutput>['score']>[0],
): Promise<ReturnType<typeof scoreOf>> {
  try {
    return scoreOf(await s.score(args));
  } catch (err) {
    if (isJudgeError(err)) throw err;
    throw new Error(`scorer '${s.name}': ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The pass rule: the mean of the scored (non-null) scores reaches the threshold. With no score at all the case is
 * unscored (mean null): not a pass, counted apart in the summary.
 */
export function judge(
  scores: Record<string, number | null>,
  threshold: number,
): { pass: boolean; mean: number | null } {
  const scored = Object.values(scores).filter((v): v is number => v !== null);
  if (!scored.length) return { pass: false, mean: null };
  const mean = scored.reduce((a, b) => a + b, 0) / scored.length;
  return { pass: mean >= threshold - 1e-12, mean };
}

/** The verdict of a case; "harness error" is said here, once (the stored error is the bare reason). */
function evalVerdict(m: ScoredMeta): Verdict {
  const scores = Object.entries(m.scores ?? {})
    .map(([k, v]) => `${k}=${v ?? 'unscored'}`)
    .join(' · ');
  const summary = m.error ? `error: ${m.error}` : `${m.pass ? 'pass' : 'fail'} · ${scores}`;
  const message = m.pass
    ? `${m.suite} ${m.id}: expected a failure, but it passed`
    : m.error
      ? `${m.suite} ${m.id}: ${m.judge_error ? '' : 'harness error: '}${m.error}`
      : `${m.suite} ${m.id}: ${m.reason ?? 'failed'}\n  scores: ${scores}`;
  return { pass: m.pass && !m.error, message, summary };
}

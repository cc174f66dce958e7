import { renderTranscript } from '../../agent/transcript.ts';
import { sha256 } from '../../core/hash.ts';
import { UsageError } from '../../core/errors.ts';
import { genericAggregator, scoredMetaSchema, type ScoredMeta } from '../generic.ts';
import { defaultOutDir } from '../outdir.ts';
import type { SuiteDefinition, Verdict } from '../types.ts';
import { scoreOf } from './scorers.ts';
import type { EvalCase, EvalTool, Scorer, Task } from './types.ts';

/** The options of `describeEval` (docs/eval.md). */
export interface EvalOptions {
  data: () => readonly EvalCase[] | Promise<readonly EvalCase[]>;
  tools?: readonly EvalTool[];
  task: Task;
  scorers: readonly Scorer[];
  /** An instance passes when the mean of its scores reaches this (default 1: every scorer satisfied). */
  threshold?: number;
}

export interface EvalInstance {
  id: string;
  case: EvalCase & { id: string };
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
export function evalSuite(name: string, o: EvalOptions): SuiteDefinition<EvalInstance, ScoredMeta, EvalSettings> {
  if (!NAME.test(name))
    throw new UsageError(
      `describeEval: the name '${name}' must be letters, digits, '.', '-' or '_' (it names the output folder and the metrics)`,
    );
  const scorerNames = o.scorers.map((s) => s.name);
  const dup = scorerNames.find((n, i) => scorerNames.indexOf(n) !== i);
  if (dup) throw new UsageError(`describeEval ${name}: two scorers are named '${dup}'; give one a name option`);
  return {
    name,
    title: name,
    settings: () => ({ threshold: o.threshold ?? 1 }),
    outDir: (run) => defaultOutDir(run.outDir, name),
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
      const out = await o.task(inst.case.input, {
        client: ctx.client(),
        run: ctx.run,
        tools: o.tools ?? [],
        case: inst.case,
        trial: ctx.trial,
        sampling: ctx.sampling(),
        suite: name,
      });
      const scores: Record<string, number> = {};
      // Every scorer's reason, kept in the trace for the viewer (the meta's reason names the scorers under threshold).
      const scorerReasons: Record<string, string> = {};
      for (const s of o.scorers) {
        const v = scoreOf(
          await s.score({ input: inst.case.input, expected: inst.case.expected, output: out, case: inst.case }),
        );
        scores[s.name] = v.score;
        if (v.reason) scorerReasons[s.name] = v.reason;
      }
      const mean = o.scorers.length ? Object.values(scores).reduce((a, b) => a + b, 0) / o.scorers.length : 0;
      const pass = mean >= ctx.settings.threshold - 1e-12;
      const trace = ctx.tracePath(inst.id, ctx.trial);
      const meta: ScoredMeta = {
        suite: name,
        id: inst.id,
        trial: ctx.trial,
        error: null,
        pass,
        reason: pass ? null : failureReason(scores, scorerReasons, mean, ctx.settings.threshold),
        trace,
        scores,
        ...(inst.case.tags ? { tags: inst.case.tags } : {}),
      };
      return {
        meta,
        files: {
          [trace]: {
            id: inst.id,
            trial: ctx.trial,
            input: inst.case.input,
            expected: inst.case.expected ?? null,
            output: out,
            scores,
            reasons: scorerReasons,
          },
        },
        transcript: renderTranscript({
          title: `${name} ${inst.id}`,
          messages: out.messages,
          footer: [
            `expected: ${JSON.stringify(inst.case.expected ?? null)}`,
            `answer:   ${out.answer}`,
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
    config: () => ({ threshold: o.threshold ?? 1, scorers: scorerNames, tools: (o.tools ?? []).map((t) => t.name) }),
    metricNames: () => ['pass_rate', 'error_rate', 'pass@*', 'pass^*', ...scorerNames],
  };
}

/**
 * Why a case failed: each scorer under the threshold with its score (and first its reason, when it gave one), then
 * the mean against the threshold, so a failure names its scorers whether or not they explain themselves.
 */
export function failureReason(
  scores: Record<string, number>,
  reasons: Record<string, string>,
  mean: number,
  threshold: number,
): string {
  const under = Object.entries(scores)
    .filter(([k, v]) => v < threshold || (v < 1 && reasons[k]))
    .map(([k, v]) => `${k}: ${reasons[k] ? `${reasons[k]} (score ${v.toFixed(2)})` : `score ${v.toFixed(2)}`}`);
  return `${under.length ? under.join('; ') : 'no scorers'}; mean ${mean.toFixed(2)} < ${threshold}`;
}

/** The verdict of a case; "harness error" is said here, once (the stored error is the bare reason). */
function evalVerdict(m: ScoredMeta): Verdict {
  const scores = Object.entries(m.scores ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(' · ');
  const summary = m.error ? `error: ${m.error}` : `${m.pass ? 'pass' : 'fail'} · ${scores}`;
  const message = m.pass
    ? `${m.suite} ${m.id}: expected a failure, but it passed`
    : m.error
      ? `${m.suite} ${m.id}: harness error: ${m.error}`
      : `${m.suite} ${m.id}: ${m.reason ?? 'failed'}\n  scores: ${scores}`;
  return { pass: m.pass && !m.error, message, summary };
}

import { relative } from 'node:path';
import { renderTranscript } from '../agent/transcript.ts';
import type { ChatMessage } from '../core/chat.ts';
import { redactUrl, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { ANTHROPIC_DEFAULT_MAX_TOKENS } from '../model/anthropic.ts';
import type { SamplingNeeds } from '../kit/sampling.ts';
import type { SuiteDefinition, Verdict } from '../kit/types.ts';
import { mazeCaseView } from './case-view.ts';
import { mazeAgent } from './agent.ts';
import { mazeAggregator } from './aggregator.ts';
import { mazeOutDir, readMazeConfig, type MazeConfig } from './config.ts';
import { mazeMetaOf, MazeMetaSchema, type MazeMeta } from './meta.ts';
import { EvaluationFile, evaluationPath, InferenceFile, inferencePath } from './output.ts';
import { askLlmJudge, judgeClient, judgeUsesSimulator } from './judge-client.ts';
import { runMazeInstance } from './run-instance.ts';
import { selectRuns } from './selection.ts';
import { mazeSimResponder } from './sim-responder.ts';
import { mazeDatasetOf, mazeTasksOf } from './tasks-of.ts';
import { COMPLEXITIES, type MazeTask, type Mode } from './task.ts';

/**
 * What every Maze request of the agent is asked with: the run's temperature and max tokens, top_p 1, and a seed by
 * the kit's rule (trial t sends seed + t). The Messages API has no seed: an anthropic run sends none, and max_tokens
 * 4096 when none is set.
 */
export function mazeSampling(
  run: Pick<RunConfig, 'temperature' | 'maxTokens'>,
  m: Pick<MazeConfig, 'agentType'>,
): SamplingNeeds {
  const anthropic = m.agentType === 'anthropic';
  const maxTokens = run.maxTokens ?? (anthropic ? ANTHROPIC_DEFAULT_MAX_TOKENS : undefined);
  return {
    base: { temperature: run.temperature, top_p: 1, ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}) },
    seeded: !anthropic,
  };
}

/** One (task, mode) run: the id is `<task>:<mode>`. */
export interface MazeInstance {
  id: string;
  task: MazeTask;
  mode: Mode;
}

/**
 * Maze on the suite kit: every selected task × mode is one instance, dealt over the four part files by
 * complexity (`suites/maze/c1.eval.ts` … `c4`); the kit writes the ToolMaze-layout inference and evaluation files.
 */
export const mazeSuite: SuiteDefinition<MazeInstance, MazeMeta, MazeConfig> = {
  name: 'maze',
  title: 'Maze',
  settings: (env) => readMazeConfig(env),
  outDir: (run, m) => mazeOutDir(run, m),
  outputs: [...COMPLEXITIES],
  load(_run, m) {
    const { runs, unknown } = selectRuns(mazeTasksOf(m), m.modes, m.only);
    // The same refusal as the CLI's, for runs through the API or Vitest directly: an unknown id would run nothing.
    if (unknown.length)
      throw new UsageError(
        `maze: TOOLGAUGE_MAZE_ONLY/TOOLGAUGE_MAZE_TASK_ID: no task ${unknown.join(', ')} in ${m.categories.join(',')}`,
      );
    return {
      instances: runs.map(({ task, mode }) => ({ id: `${task.id}:${mode}`, task, mode })),
      dataset: mazeDatasetOf(m),
    };
  },
  parts: 4,
  partOf: (i) => COMPLEXITIES.indexOf(i.task.complexity) + 1,
  testName: (i) => `maze › ${i.task.complexity} › ${i.task.id} › ${i.mode}`,
  async run(i, ctx) {
    const agent = await mazeAgent(ctx.run, ctx.settings, () => ctx.client());
    const judgeLlm = ctx.settings.judgeModel ? judgeClient(ctx.run, ctx.settings, ctx.simUrl) : undefined;
    const r = await runMazeInstance(i.task, i.mode, {
      agent,
      model: ctx.run.model,
      maxTurns: ctx.settings.maxTurns,
      judgeMode: ctx.settings.judge,
      trial: ctx.trial,
      maxToolCallsPerTurn: ctx.run.maxToolCallsPerTurn,
      sampling: ctx.sampling(),
      toolTransport: ctx.settings.toolTransport,
      ...(judgeLlm
        ? { llmJudge: (input) => askLlmJudge(judgeLlm, input, { trial: ctx.trial, seed: ctx.run.seed }) }
        : {}),
    });
    const ip = relative(ctx.outDir, inferencePath(ctx.outDir, i.task.complexity, i.task.id, i.mode, ctx.trial));
    const ep = relative(ctx.outDir, evaluationPath(ctx.outDir, i.task.complexity, i.task.id, i.mode, ctx.trial));
    return {
      meta: mazeMetaOf(r.evaluation, {
        error: r.error,
        turns: r.turns,
        toolCalls: r.toolCalls,
        trial: ctx.trial,
        trace: ip,
        usage: r.usage,
        verdict: ctx.settings.verdict,
      }),
      transcript: renderTranscript({
        title: `maze ${i.task.complexity} ${i.task.id} ${i.mode}: ${i.task.query}`,
        messages: (r.inference.messages ?? []) as ChatMessage[],
        footer: [
          `${ctx.settings.verdict === 'llm' ? 'rule judge' : 'verdict'}: ${r.error ? `harness error: ${r.error}` : r.evaluation.pass ? 'pass' : `fail (${r.evaluation.failure_reason})`} · recovery ${r.evaluation.recovery} · tokens ${r.usage.prompt_tokens} prompt + ${r.usage.completion_tokens} completion`,
          ...(r.llmJudge
            ? [
                `${ctx.settings.verdict === 'llm' ? 'verdict, ' : ''}LLM judge ${r.llmJudge.model}: ${r.llmJudge.label ?? `judge error: ${r.llmJudge.error}`}${r.llmJudge.verdict ? ` — ${r.llmJudge.verdict.rests_on}` : ''}${r.llmJudge.usage ? ` · judge tokens ${r.llmJudge.usage.prompt_tokens} prompt + ${r.llmJudge.usage.completion_tokens} completion` : ''}`,
              ]
            : []),
        ],
      }),
      files: {
        [ip]: InferenceFile.parse(r.inference),
        [ep]: EvaluationFile.parse(r.evaluation),
      },
    };
  },
  failed: (i, trial, message) => ({
    suite: 'maze',
    id: i.id,
    trial,
    error: message,
    reason: message,
    task_id: i.task.id,
    complexity: i.task.complexity,
    mode: i.mode,
    pass: false,
    hit: false,
    rc: 0,
    c_act: 0,
    c_oracle: 0,
    recovery: 'none',
    failure_reason: 'harness_error',
    turns: 0,
    tool_calls: 0,
  }),
  verdict: mazeVerdict,
  metaSchema: MazeMetaSchema,
  caseView: mazeCaseView,
  aggregator: mazeAggregator,
  // With the aggregator's comparableOn (judge, agent): what else changes a task's outcome or its verdicts
  // (harness/kit/fingerprint.ts).
  fingerprintOn: ['max_turns', 'agent_type', 'judge_model'],
  config: (run, m) => ({
    categories: m.categories,
    modes: m.modes,
    only: m.only ?? null,
    agent: m.agent,
    judge: m.judge,
    verdict: m.verdict,
    judge_model: m.judgeModel ?? null,
    judge_endpoint: m.judgeModel
      ? m.judgeBaseUrl
        ? redactUrl(m.judgeBaseUrl)
        : judgeUsesSimulator(m)
          ? 'built-in simulator'
          : "the run's endpoint"
      : null,
    max_turns: m.maxTurns,
    tools: m.toolPaths,
    tasks: m.tasksFile ?? null,
    concurrency: run.concurrency,
    retries: run.retries,
    agent_type: m.agentType,
    tool_transport: m.toolTransport,
  }),
  sampling: (run, m) => mazeSampling(run, m),
  // The LLM judge is another model: it is asked at temperature 0, top_p 1, with the run's seed on every trial; the
  // header records which judge decided the run (`verdict`), so a resume under another setting is refused.
  generationFacts: (run, m) =>
    m.judgeModel ? { judge: { temperature: 0, top_p: 1, seed: run.seed }, verdict: m.verdict } : {},
  responder: (_run, m) => mazeSimResponder(() => mazeTasksOf(m), m.tasksFile ?? m.casesDir),
  // A simulated judge beside a real agent endpoint still needs the simulator.
  needsSimulator: (_run, m) => judgeUsesSimulator(m),
  metricNames: (m) => [
    'tsr.*',
    'prr.*',
    'rc.*',
    'pass@*',
    'pass^*',
    ...(m.judgeModel ? ['judge_kappa', 'judge_agreement'] : []),
    ...(m.verdict === 'both' ? ['llm.tsr.*', 'llm.prr.*', 'llm.rc.*'] : []),
  ],
};

export function mazeVerdict(m: MazeMeta): Verdict {
  const pass = m.pass && !m.error;
  const header = `maze ${m.complexity} ${m.task_id} ${m.mode}`;
  // Under `--verdict llm` the LLM judge's label decides; the rule judge's reading is shown beside it.
  const byLlm = m.verdict_by === 'llm';
  const failure = byLlm ? (m.reason ?? 'failed (LLM judge)') : m.failure_reason;
  const judged = byLlm
    ? `LLM judge: ${m.llm_judge?.label ?? 'no verdict'} · rule judge: ${m.rule_pass ? 'pass' : `fail (${m.failure_reason})`}`
    : `recovery=${m.recovery}`;
  const summary = `${m.error ? `error: ${m.error}` : m.pass ? 'pass' : `fail: ${failure}`} · hit=${m.hit} · ${judged} · RC=${m.rc.toFixed(2)} · ${m.tool_calls} tool calls${m.resumed ? ' · resumed' : ''}`;
  const message = pass
    ? `${header}: expected a failure, but the run passed (${byLlm ? `LLM judge: ${m.llm_judge?.label}` : m.recovery})`
    : m.error
      ? `${header}: harness error: ${m.error}`
      : `${header}: ${failure}\n  hit a perturbation: ${m.hit} · ${judged} · ${byLlm ? 'rule judge ' : ''}RC ${m.rc.toFixed(2)} (C_act ${m.c_act}, C_oracle ${m.c_oracle}) · ${m.tool_calls} tool calls`;
  return { pass, message, summary };
}

// The registry loads a suite folder's definition as its default export (harness/kit/suite-folders.ts).
export default mazeSuite;

import { toolhopCaseView } from './case-view.ts';
import { resolveCell, styleOf } from './grid.ts';
import { renderTranscript } from '../agent/transcript.ts';
import type { ChatMessage } from '../core/chat.ts';
import { defaultOutDir } from '../kit/outdir.ts';
import type { SuiteDefinition, Verdict } from '../kit/types.ts';
// Its tools run in the sandbox: the kit's runtimes make one (harness/kit/runtime.ts).
import '../kit/sandboxed.ts';
import { toolhopAggregator } from './aggregator.ts';
import { loadDatasetFile, type DatasetEntry, type Selection } from './dataset.ts';
import { fromRecords, metaFromOutcome, ToolhopMetaSchema, type ToolhopMeta } from './meta.ts';
import { FILES } from './output.ts';
import { predictionLine, resultLine, transcriptText, type LineContext } from './reference-files.ts';
import { hopCount } from './row.ts';
import { runToolhopInstance, singlePrompt, type ToolhopOutcome } from './run-instance.ts';
import { planToolhopTeam, runToolhopTeam, type ToolhopTeamPlan, type ToolhopTeamSummary } from './team.ts';
import { readToolhopSettings, toolhopSampling, type ToolhopSettings } from './settings.ts';
import { toolhopResponder } from './sim-responder.ts';
import { resolveDataSource } from './source.ts';

/**
 * ToolHop on the suite kit: rows (valid or broken) load from the data source, each runs through the single-agent
 * tool loop with its Python tools in the sandbox, and scores by the reference runner's rules. The kit writes
 * predictions.jsonl and results.jsonl (reference-compatible) and one trace per row.
 */
export const toolhopSuite: SuiteDefinition<DatasetEntry, ToolhopMeta, ToolhopSettings> = {
  name: 'toolhop',
  title: 'ToolHop',
  settings: (env) => readToolhopSettings(env),
  // results/toolhop/<style>, the reference's folder name for the cell (grid.ts).
  outDir: (run, s) => defaultOutDir(run.outDir, 'toolhop', styleOf(resolveCell(s))),
  outputs: [FILES.predictions, FILES.results],
  recordFiles: [FILES.predictions, FILES.results],
  async load(run, s) {
    const src = await resolveDataSource(run, s);
    const ds = loadDatasetFile(src.path, selection(s));
    return { instances: ds.entries, dataset: { file: src.path, sha256: ds.sha256, origin: src.origin } };
  },
  parts: 4,
  weight: (e) => (e.ok ? hopCount(e.row) : 0),
  testName: (e) => `toolhop › ${e.id} › hops=${e.ok ? hopCount(e.row) : 0}`,
  // `--only` ignores `--limit`, as in load().
  callsTools: (s) => s.allowDatasetExec && (s.only !== undefined || s.limit !== 0),
  warm(ctx, instances) {
    // Start the sandbox workers while Vitest is still collecting, not on the first tool call.
    if (ctx.settings.allowDatasetExec && instances.some((e) => e.ok))
      void ctx
        .sandbox()
        .warm()
        .catch(() => undefined);
  },
  async run(entry, ctx) {
    const trace = ctx.tracePath(entry.id, ctx.trial);
    const deps = {
      client: ctx.client(),
      sandbox: ctx.sandbox,
      run: ctx.run,
      settings: ctx.settings,
      trial: ctx.trial,
      sampling: ctx.sampling,
    };
    let outcome: ToolhopOutcome;
    let team: ToolhopTeamSummary | null = null;
    if (!entry.ok) outcome = brokenRow(entry, ctx.trial, `invalid row: ${entry.error}`);
    else if (ctx.settings.topology === 'single') outcome = await runToolhopInstance(entry.row, deps);
    else {
      const t = await runToolhopTeam(entry.row, deps, teamPlan(ctx.settings));
      outcome = t;
      team = t.team;
    }
    const meta = metaFromOutcome(outcome, trace);
    if (team) {
      meta.team = {
        topology: team.topology,
        agents: team.agents,
        answered_by: team.answered_by,
        reports: team.parse.reports,
        parsed: team.parse.parsed,
      };
      meta.model_calls = team.cost.total.modelCalls;
    }
    const line: LineContext = {
      rawId: entry.ok ? entry.row.id : entry.id,
      model: ctx.run.model,
      style: styleOf(resolveCell(ctx.settings)),
      agents: team?.agents ?? 1,
      modelCalls: meta.model_calls ?? 0,
    };
    return {
      meta,
      records: { [FILES.predictions]: predictionLine(outcome, line), [FILES.results]: resultLine(outcome, line) },
      // The JSON trace, and the reference's text transcript beside it.
      files: {
        [trace]: outcome.trace,
        [ctx.tracePath(entry.id, ctx.trial, 'txt')]: transcriptText(outcome.trace.messages as ChatMessage[]),
      },
      transcript: renderTranscript({
        title: `toolhop ${entry.id}: ${outcome.trace.question}`,
        messages: outcome.trace.messages as ChatMessage[],
        footer: [
          `gold:      ${meta.gold}`,
          `predicted: ${meta.predicted}`,
          `verdict:   ${meta.error ? `harness error: ${meta.error}` : meta.correct ? `correct (${meta.rule})` : 'wrong'}`,
        ],
      }),
    };
  },
  failed: (entry, trial, message) => fromRecords(brokenRow(entry, trial, message).result, undefined),
  verdict: toolhopVerdict,
  metaSchema: ToolhopMetaSchema,
  caseView: toolhopCaseView,
  aggregator: toolhopAggregator,
  // Besides the generation settings (in the fingerprint already): what shapes an instance's run and score.
  fingerprintOn: [
    'topology',
    'framework',
    'prompts',
    'agents',
    'rounds',
    'comm',
    'roles',
    'team_temperature',
    'max_turns',
    'tool_result_char_budget',
    'allow_dataset_exec',
  ],
  config: (run, s) => ({
    topology: s.topology,
    ...(s.topology === 'single'
      ? s.promptsDir
        ? { prompts: singlePrompt(s.promptsDir).source }
        : {}
      : (() => {
          const p = teamPlan(s);
          return {
            framework: p.framework,
            agents: p.options.agents,
            rounds: p.options.rounds,
            comm: p.options.comm,
            roles: p.options.lead ? [p.options.lead, ...p.options.roles] : p.options.roles,
            team_temperature: s.teamTemperature ?? null,
            prompts: p.prompts.source,
          };
        })()),
    data: s.data ?? null,
    limit: s.limit,
    offset: s.offset,
    only: s.only ?? null,
    max_turns: s.maxTurns,
    tool_result_char_budget: s.toolResultCharBudget,
    sandbox: run.sandbox.backend,
    concurrency: run.concurrency,
    request_timeout_ms: run.requestTimeoutMs,
    retries: run.retries,
    cache: run.cache,
    allow_dataset_exec: s.allowDatasetExec,
    ci_cluster: s.ciCluster,
  }),
  // The turns' values, and the final-answer call's as phase `final`.
  sampling: (_run, s) => toolhopSampling(s),
  generationFacts: (_run, s) => ({
    preset: s.preset,
    ...(s.topology !== 'single' ? { team_seeds: "the trial's seed + the member's index" } : {}),
    ...(s.framework === 'openai-agents' ? { framework: '@openai/agents (Chat Completions model)' } : {}),
  }),
  responder: (run, s) =>
    toolhopResponder(() => resolveDataSource(run, s).then((src) => loadDatasetFile(src.path, selection(s)))),
  metricNames: () => [
    'accuracy',
    'strict_accuracy',
    'error_rate',
    'tokens_per_correct',
    'report_parse_rate',
    'pass@*',
    'pass^*',
  ],
};

const plans = new Map<string, ToolhopTeamPlan>();

/** A team's options and prompts, resolved once per run (every row reuses them). */
function teamPlan(s: ToolhopSettings): ToolhopTeamPlan {
  const key = JSON.stringify([
    s.topology,
    s.framework,
    s.teamSize,
    s.rounds,
    s.comm,
    s.promptsDir,
    s.teamTemperature,
    s.maxTurns,
  ]);
  let p = plans.get(key);
  if (!p) {
    p = planToolhopTeam({
      topology: s.topology as Exclude<ToolhopSettings['topology'], 'single'>,
      comm: s.comm,
      ...(s.teamSize !== undefined ? { agents: s.teamSize } : {}),
      ...(s.rounds !== undefined ? { rounds: s.rounds } : {}),
      ...(s.promptsDir ? { promptsDir: s.promptsDir } : {}),
      ...(s.teamTemperature !== undefined ? { temperature: s.teamTemperature } : {}),
      maxTurns: s.maxTurns,
      framework: s.framework,
    });
    plans.set(key, p);
  }
  return p;
}

/** Gold vs predicted for a wrong answer, the harness error for an error. */
export function toolhopVerdict(m: ToolhopMeta): Verdict {
  const pass = m.correct && !m.error;
  const header = `toolhop ${m.id}${m.trial ? ` (trial ${m.trial})` : ''}`;
  const summary = m.error
    ? `error: ${m.error}`
    : `${m.correct ? 'correct' : 'wrong'} (${m.rule ?? 'no rule matched'}) · gold '${m.gold}' · predicted '${m.predicted}' · ${m.turns} turns · ${m.tool_calls} tool calls (${m.tool_errors} errors)${m.forced_final ? ' · final answer forced' : ''}${m.resumed ? ' · resumed' : ''}`;
  const message = pass
    ? `${header}: expected a wrong answer, but '${m.predicted}' is correct (${m.rule})`
    : m.error
      ? `${header}: harness error: ${m.error}`
      : `${header}: wrong answer\n  gold:      ${m.gold}\n  predicted: ${m.predicted}\n  (${m.turns} turns, ${m.tool_calls} tool calls, ${m.tool_errors} tool errors${m.forced_final ? ', final answer forced' : ''})`;
  return { pass, message, summary };
}

function brokenRow(entry: DatasetEntry, trial: number, error: string): ToolhopOutcome {
  const row = entry.ok ? entry.row : undefined;
  const common = {
    id: entry.id,
    trial,
    hops: row ? hopCount(row) : 0,
    domain: row?.domain ?? '',
    answer_type: row?.answer_type ?? '',
  };
  const question = row?.question ?? '';
  const gold = row?.answer ?? '';
  return {
    prediction: {
      ...common,
      question,
      gold_answer: gold,
      predicted_answer: '',
      final_message: '',
      previous_tool_content: '',
      turns: 0,
      tool_calls: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      error,
      error_kind: entry.ok ? 'harness' : 'invalid_row',
    },
    result: { ...common, correct: false, rule: null, predicted_answer: '', gold_answer: gold, error },
    trace: {
      ...common,
      question,
      gold_answer: gold,
      started_at: new Date().toISOString(),
      wall_ms: 0,
      forced_final: false,
      exhausted: false,
      messages: [],
      tool_executions: [],
      model_calls: [],
      error,
    },
  };
}

/** The run's rows: as the reference, `--only` ignores `--limit`. */
function selection(s: ToolhopSettings): Selection {
  return { only: s.only, offset: s.offset, limit: s.only ? undefined : s.limit };
}

// The registry loads a suite folder's definition as its default export (harness/kit/suite-folders.ts).
export default toolhopSuite;

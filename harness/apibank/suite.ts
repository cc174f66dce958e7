import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { renderTranscript } from '../agent/transcript.ts';
import { defaultOutDir } from '../kit/outdir.ts';
import { valuesOf } from '../kit/sampling.ts';
import type { SuiteDefinition, Verdict } from '../kit/types.ts';
import { apibankCaseView } from './case-view.ts';
import { apibankAggregator } from './aggregator.ts';
import { ApibankMetaSchema, type ApibankMeta } from './meta.ts';
import { APIBANK_FILES, predictionLine, referenceTracePath, resultSummary, traceText } from './records.ts';
import { planTeam, runSingle, runTeamTask, styleOf, type TeamPlan } from './run.ts';
import { scoreOptionsFor, toolSearcherModeOf } from './scoring.ts';
import { dataRootOf, readApibankSettings, type ApibankSettings } from './settings.ts';
import { apibankSimResponder } from './sim-responder.ts';
import { ApibankData, DATA_LAYOUT, manifestPath, selectTasks, type ApibankTask } from './tasks.ts';

const promptsDirOf = (s: ApibankSettings) => s.promptsDir ?? `${dataRootOf(s)}/${DATA_LAYOUT.prompts}`;

const plans = new Map<string, TeamPlan>();
function teamPlanOf(s: ApibankSettings): TeamPlan {
  const key = `${s.topology}\0${promptsDirOf(s)}`;
  let p = plans.get(key);
  if (!p) plans.set(key, (p = planTeam(s.topology as Exclude<ApibankSettings['topology'], 'single'>, promptsDirOf(s))));
  return p;
}

/**
 * API-Bank on the suite kit: every selected task is one test (`apibank › L<level> › <id>`), answered by one chat
 * completion per agent with the reference runner's messages, and scored as the reference scores it (extraction
 * here, the environment's replay and the gold API's own check in env/). The kit writes the reference's
 * predictions.jsonl, results.jsonl and traces/, and summary.json/report.md with accuracy per level.
 */
export const apibankSuite: SuiteDefinition<ApibankTask, ApibankMeta, ApibankSettings> = {
  name: 'apibank',
  title: 'API-Bank',
  settings: (env) => readApibankSettings(env),
  outDir: (run, s) => defaultOutDir(run.outDir, 'apibank', styleOf(s.topology)),
  outputs: [APIBANK_FILES.predictions, APIBANK_FILES.results],
  recordFiles: [APIBANK_FILES.predictions, APIBANK_FILES.results],
  load(_run, s) {
    const root = dataRootOf(s);
    const data = new ApibankData(root);
    const manifest = s.curatedPath ?? manifestPath(root, s.level);
    const instances = selectTasks(data, { level: s.level, manifest, only: s.only, offset: s.offset, limit: s.limit });
    return {
      instances,
      dataset: {
        file: manifest,
        sha256: createHash('sha256').update(readFileSync(manifest)).digest('hex'),
        origin: `API-Bank level ${s.level} (${instances.length} tasks)`,
      },
    };
  },
  parts: 4,
  testName: (t) => `apibank › L${t.level} › ${t.id}`,
  async run(t, ctx) {
    const s = ctx.settings;
    const deps = {
      client: ctx.client(),
      model: ctx.run.model,
      sampling: ctx.sampling(),
      trial: ctx.trial,
      topology: s.topology,
      promptsDir: promptsDirOf(s),
      score: (task: ApibankTask) =>
        scoreOptionsFor(dataRootOf(s), toolSearcherModeOf(s.toolSearcher, task.level), s.embeddingCommand),
    };
    const o = s.topology === 'single' ? await runSingle(t, deps) : await runTeamTask(t, deps, teamPlanOf(s));
    const summary = resultSummary(t, o, { model: ctx.run.model, style: styleOf(s.topology) });
    const trace = referenceTracePath(t.id);
    const meta: ApibankMeta = {
      suite: 'apibank',
      id: t.id,
      trial: ctx.trial,
      error: o.error,
      pass: !o.error && o.verdict.correct === true,
      reason: o.error
        ? o.error
        : o.verdict.correct === true
          ? null
          : o.verdict.correct === null
            ? `undetermined: ${o.verdict.error}`
            : `${o.verdict.stage}: ${o.verdict.error}`,
      trace,
      level: t.level,
      gold_api_name: t.ground_truth.api_name,
      predicted_api_name: o.error ? null : o.verdict.predicted_api_name,
      stage: o.error ? 'solve' : o.verdict.stage,
      correct: o.error ? false : o.verdict.correct,
      topology: s.topology,
      n_llm_calls: o.usage.n_llm_calls,
      total_tokens: o.usage.total_tokens,
    };
    return {
      meta,
      records: {
        [APIBANK_FILES.predictions]: predictionLine(t, o, { model: ctx.run.model, style: styleOf(s.topology) }),
        [APIBANK_FILES.results]: summary,
      },
      files: { [trace]: traceText(t, o, summary) },
      transcript: renderTranscript({
        title: `apibank L${t.level} ${t.id}`,
        messages: o.messages,
        footer: [
          `gold:      ${t.gold_api_call}`,
          `predicted: ${o.predicted_answer}`,
          `verdict:   ${meta.reason ?? 'correct'}`,
        ],
      }),
    };
  },
  failed: (t, trial, message) => ({
    suite: 'apibank',
    id: t.id,
    trial,
    error: message,
    pass: false,
    reason: message,
    level: t.level,
    gold_api_name: t.ground_truth.api_name,
    predicted_api_name: null,
    stage: 'solve',
    correct: false,
    topology: 'single',
    n_llm_calls: 0,
    total_tokens: 0,
  }),
  verdict: apibankVerdict,
  metaSchema: ApibankMetaSchema,
  caseView: apibankCaseView,
  aggregator: apibankAggregator,
  fingerprintOn: ['level', 'prompts', 'embeddings'],
  config: (run, s) => ({
    level: s.level,
    data: s.data ?? null,
    curated_path: s.curatedPath ?? null,
    limit: s.limit ?? null,
    offset: s.offset,
    only: s.only ?? null,
    topology: s.topology,
    toolsearcher_scorer: s.toolSearcher ?? 'official (keyword for level-1 tasks)',
    embeddings: s.embeddingCommand?.join(' ') ?? null,
    prompts: s.promptsDir ?? null,
    concurrency: run.concurrency,
    request_timeout_ms: run.requestTimeoutMs,
    retries: run.retries,
    cache: run.cache,
  }),
  // The preset's values (or only what is set); the seed is the kit's.
  sampling: (_run, s) => ({ base: valuesOf(s.sampling, 0) }),
  generationFacts: (_run, s) => ({
    preset: s.preset,
    ...(s.topology !== 'single' ? { team_seeds: "the trial's seed + the member's index" } : {}),
  }),
  responder: (_run, s) => apibankSimResponder(() => dataRootOf(s)),
  metricNames: () => ['accuracy', 'accuracy_undetermined_wrong', 'undetermined_rate', 'error_rate'],
};

export function apibankVerdict(m: ApibankMeta): Verdict {
  const header = `apibank L${m.level} ${m.id}${m.trial ? ` (trial ${m.trial})` : ''}`;
  const summary = m.error
    ? `error: ${m.error}`
    : m.correct === true
      ? `correct (${m.gold_api_name})`
      : m.correct === null
        ? `undetermined: ${m.reason ?? ''}`
        : `wrong at ${m.stage}: ${m.reason ?? ''}`;
  const message = m.pass
    ? `${header}: expected a wrong call, but the reference's check accepts it`
    : m.error
      ? `${header}: harness error: ${m.error}`
      : `${header}: gold ${m.gold_api_name}, predicted ${m.predicted_api_name ?? '(no call)'}\n  ${m.reason ?? ''}`;
  return { pass: m.pass, message, summary };
}

// The registry loads a suite folder's definition as its default export (harness/kit/suite-folders.ts).
export default apibankSuite;

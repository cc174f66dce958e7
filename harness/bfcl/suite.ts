import { renderTranscript } from '../agent/transcript.ts';
import { defaultOutDir } from '../kit/outdir.ts';
import type { SuiteDefinition, Verdict } from '../kit/types.ts';
import { bfclCaseView } from './case-view.ts';
import { bfclAggregator } from './aggregator.ts';
import { BFCL_METRIC_NAMES } from './metric-names.ts';
import { ALL_CATEGORIES, checkKindOf, isMultiTurn } from './categories.ts';
import type { BfclCase } from './data.ts';
import { sharedExecutor } from './executors.ts';
import { BFCL_HF_REPO } from './hf.ts';
import { BfclMetaSchema, bfclMetaOf, failedBfclMeta, rescoreRecordOf, type BfclMeta } from './meta.ts';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { resultLine } from './rescore.ts';
import { bfclModelName, runBfclInstance } from './run-case.ts';
import { readBfclSettings, underscoreToDotOf, type BfclSettings } from './settings.ts';
import { bfclSimResponder } from './sim-responder.ts';
import { datasetInfo, needsExecutor, resolveBfclData, resolveBfclSource, selectCases } from './source.ts';

export const BFCL_FILES = { results: 'results.jsonl', beyond: 'beyond.jsonl', resultDir: 'result' } as const;

/** BFCL's own result file of a category, inside the output directory (`toolgauge bfcl rescore` reads these). */
export const resultFileOf = (category: string): string => `${BFCL_FILES.resultDir}/BFCL_v4_${category}_result.json`;

/**
 * BFCL on the suite kit: every selected case is one test (`bfcl › <category> › <id>`), run through BFCL's own
 * inference loop on the run's model client (FC: tools; prompt mode: BFCL's system prompt), scored by BFCL's checker
 * — multi-turn cases in BFCL's simulated APIs, state- and response-checked — with toolgauge's layers, attribution
 * and deviation class beside the verdict. The kit writes results.jsonl (`{id, category, valid, error_type}`, as
 * rescore does), beyond.jsonl, BFCL-format result files and one trace per case.
 */
export { BFCL_METRIC_NAMES } from './metric-names.ts';

export const bfclSuite: SuiteDefinition<BfclCase, BfclMeta, BfclSettings> = {
  name: 'bfcl',
  title: 'BFCL',
  settings: (env) => readBfclSettings(env),
  outDir: (run, s) => defaultOutDir(run.outDir, 'bfcl', bfclModelName(run.model), s.mode),
  outputs: [BFCL_FILES.results, BFCL_FILES.beyond, BFCL_FILES.resultDir],
  recordFiles: [BFCL_FILES.results, BFCL_FILES.beyond, ...ALL_CATEGORIES.map(resultFileOf)],
  async load(run, s) {
    const src = await resolveBfclData(run, s);
    // Fail at collection, not in the first multi-turn test, when BFCL's classes cannot be found.
    if (needsExecutor(s)) await resolveBfclSource(run, s);
    return { instances: selectCases(src.dir, s), dataset: datasetInfo(src, s) };
  },
  parts: 4,
  // A multi-turn case makes a model call per step and runs in the executor: deal those first.
  weight: (c) => (isMultiTurn(c.category) ? 10 * c.entry.question.length : 1),
  testName: (c) => `bfcl › ${c.category} › ${c.id}`,
  async run(c, ctx) {
    const s = ctx.settings;
    const executor =
      checkKindOf(c.category) === 'multi_turn'
        ? sharedExecutor(await resolveBfclSource(ctx.run, s), ctx.run.sandbox.pythonPath, ctx.run.sandbox.confine)
        : undefined;
    const out = await runBfclInstance(c, {
      client: ctx.client(),
      mode: s.mode,
      modelName: bfclModelName(ctx.run.model),
      trial: ctx.trial,
      executor,
      // The run's temperature and max tokens, and the trial's seed (the kit's default sampling).
      sampling: ctx.sampling(),
    });
    const trace = ctx.tracePath(c.id, ctx.trial);
    const meta = bfclMetaOf(c, out, { trial: ctx.trial, trace });
    const record = rescoreRecordOf(c, out.verdict, out.beyond);
    // The result exactly as BFCL writes it (strings and lists only, so plain JSON loses nothing).
    const result = JSON.parse(pyJsonDumps(out.result)) as unknown;
    const withTrial = <T extends object>(x: T) => (ctx.trial ? { ...x, trial: ctx.trial } : x);
    return {
      meta,
      records: {
        [BFCL_FILES.results]: withTrial(resultLine(record)),
        [BFCL_FILES.beyond]: withTrial(record),
        [resultFileOf(c.category)]: withTrial({ id: c.id, result }),
      },
      files: {
        [trace]: JSON.stringify(
          {
            id: c.id,
            category: c.category,
            mode: s.mode,
            trial: ctx.trial,
            model: ctx.run.model,
            result,
            bfcl: {
              valid: out.verdict.valid,
              error_type: out.verdict.error_type,
              error: out.verdict.error,
              crash: out.verdict.crash ?? null,
              undecided: out.verdict.undecided ?? null,
              decoded_turns: out.verdict.decodedTurns ?? null,
              multi_turn: out.verdict.multiTurn ?? null,
            },
            toolgauge: out.beyond ?? null,
            requests: out.requests,
            usage: out.usage,
            wall_ms: out.wallMs,
            messages: out.messages,
          },
          null,
          1,
        ),
      },
      transcript: renderTranscript({
        title: `bfcl ${c.category} ${c.id} (${s.mode})`,
        messages: out.messages,
        footer: [
          `BFCL:      ${out.verdict.valid ? 'valid' : `invalid (${out.verdict.error_type})${out.verdict.error[0] ? ` ${out.verdict.error[0].slice(0, 300)}` : ''}`}`,
          `toolgauge: ${toolgaugeLine(meta)}`,
        ],
      }),
    };
  },
  failed: (c, trial, message) => failedBfclMeta(c, trial, message),
  verdict: bfclVerdict,
  metaSchema: BfclMetaSchema,
  caseView: bfclCaseView,
  aggregator: bfclAggregator,
  // With the aggregator's comparableOn (mode): what else changes a case's outcome (harness/kit/fingerprint.ts).
  fingerprintOn: ['underscore_to_dot', 'model_name'],
  config: (run, s) => ({
    mode: s.mode,
    categories: s.categories,
    requested: s.requested,
    data: s.data ?? `${BFCL_HF_REPO}@${s.revision} (Hugging Face cache)`,
    bfcl_source: s.bfclSource ?? null,
    only: s.only ?? null,
    limit: s.limit ?? null,
    underscore_to_dot: underscoreToDotOf(s),
    model_name: bfclModelName(run.model),
    concurrency: run.concurrency,
    request_timeout_ms: run.requestTimeoutMs,
    retries: run.retries,
    cache: run.cache,
    max_tokens: run.maxTokens ?? null,
    python: run.sandbox.pythonPath,
  }),
  responder: (run, s) => bfclSimResponder(run, s),
  metricNames: () => BFCL_METRIC_NAMES,
};

function toolgaugeLine(m: BfclMeta): string {
  if (m.error) return `harness error: ${m.error}`;
  if (!m.toolgauge) return m.undecided ? `undecided (${m.undecided})` : '—';
  const t = m.toolgauge;
  const verdict = t.pass ? 'pass' : `fail (${t.cause ?? t.kind ?? '?'}${t.evidence ? `: ${t.evidence}` : ''})`;
  return `${verdict}${m.deviation ? ` · differs from BFCL: ${m.deviation.class}` : ''}`;
}

/** BFCL's verdict is the test's verdict; toolgauge's is in the summary line and the message. */
export function bfclVerdict(m: BfclMeta): Verdict {
  const pass = m.pass && !m.error;
  const header = `bfcl ${m.category} ${m.id}${m.trial ? ` (trial ${m.trial})` : ''}`;
  const summary = m.error
    ? `error: ${m.error}`
    : `BFCL ${m.valid ? 'valid' : m.error_type} · toolgauge ${toolgaugeLine(m)}${m.unpassable ? ' · answer key no output can pass' : ''}${m.resumed ? ' · resumed' : ''}`;
  const message = pass
    ? `${header}: expected an invalid result, but BFCL's checker accepts it`
    : m.error
      ? `${header}: harness error: ${m.error}`
      : `${header}: BFCL: ${m.error_type}${m.bfcl_error ? `\n  ${m.bfcl_error}` : ''}\n  toolgauge: ${toolgaugeLine(m)}${m.unpassable ? "\n  (this answer key cannot be passed by any output under BFCL's checker)" : ''}`;
  return { pass, message, summary };
}

// The registry loads a suite folder's definition as its default export (harness/kit/suite-folders.ts).
export default bfclSuite;

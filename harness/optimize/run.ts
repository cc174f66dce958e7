import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { redactUrl, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { stableStringify } from '../core/hash.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { planFromConfig } from '../kit/plan.ts';
import { runtimeFor } from '../kit/runtime.ts';
import { openRun } from '../launch/open-run.ts';
import '../kit/sandboxed.ts';
import { ModelClient } from '../model/client.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { isSimModel } from '../sim/policy-spec.ts';
import { loadDatasetFile, type DatasetEntry } from '../toolhop/dataset.ts';
import type { ToolhopSettings } from '../toolhop/settings.ts';
import { toolhopResponder } from '../toolhop/sim-responder.ts';
import { resolveDataSource } from '../toolhop/source.ts';
import { Engine, HarnessFailure, LogMismatch, promptsSha } from './engine.ts';
import { GEPA_DEFAULTS, runGepa, type GepaOptions, type SearchResult } from './gepa.ts';
import { OptimizeLog } from './log.ts';
import { MIPRO_DEFAULTS, runMipro, type MiproOptions } from './mipro.ts';
import { optimizerCell } from './grid.ts';
import { buildSummary, progressChart, renderReport, type OptimizeSummary } from './report.ts';
import { REFLECT_SUITE, reflectResponder } from './sim-reflect.ts';
import { describeIds, drawSplits, toolhopEvalIds, type Splits } from './splits.ts';
import { toolhopRunner, toolhopTarget, writePrompts } from './toolhop-runner.ts';
import type { Candidate, ReflectionModel } from './types.ts';

/**
 * One optimization, end to end: rows and splits (outside the eval ids), the simulator when a `sim:*` model is
 * used, the task runner (the suite's own `run`) and the reflection model, the search (GEPA or MIPRO), held-out
 * rows when asked, and the output folder: `log.jsonl`, `candidates/<id>/`, `best/`, `splits.json`,
 * `candidates.json`, `summary.json`, `report.md`, `charts/progress.svg`, `heldout-ids.txt`.
 */
export interface OptimizeRequest {
  method: 'gepa' | 'mipro';
  suite: 'toolhop';
  /** The task model's run configuration (model, endpoint, concurrency, sandbox, seed …). */
  run: RunConfig;
  /** The suite's settings: topology, team size, data, seed prompts folder (`promptsDir`), max turns … */
  settings: ToolhopSettings;
  reflection: {
    model: string;
    baseUrl: string | undefined;
    apiKey: string;
    temperature: number;
    timeoutMs: number;
    retries: number;
  };
  trainSize: number;
  valSize: number;
  budget: number;
  seed: number;
  out: string;
  allowEvalIds: boolean;
  /** `--allow-any-cell` was given (the command line refuses an off-grid cell without it). */
  allowAnyCell?: boolean;
  resume: boolean;
  /** Held-out rows to judge seed and best on after the search (0: none); outside the budget. */
  heldout: number;
  gepa?: Partial<
    Pick<
      GepaOptions,
      'minibatch' | 'merge' | 'maxMerges' | 'mergeSubsample' | 'skipPerfect' | 'maxIdleSteps' | 'maxSteps'
    >
  >;
  mipro?: Partial<
    Pick<
      MiproOptions,
      'numCandidates' | 'numTrials' | 'minibatch' | 'fullEvalEvery' | 'bootstrapRows' | 'examplesPerProposal'
    >
  >;
  /** Broken variants for calibration tests (GEPA only). */
  ablation?: GepaOptions['ablation'];
}

export interface OptimizeDeps {
  /** A sandbox instead of the run's (tests: tools that return the gold hop answers). */
  sandbox?: () => Sandbox;
  /** A running simulator instead of starting one. */
  simUrl?: string;
  say?: (line: string) => void;
  /** Close the run's sandbox when done (the CLI: its process should end; tests share one runtime). */
  closeRuntime?: boolean;
  /** fsync every log line (default true); tests of a whole search turn it off. */
  durableLog?: boolean;
}

export interface OptimizeOutcome {
  outDir: string;
  summary: OptimizeSummary;
  engine: Engine;
  splits: Splits;
  search: SearchResult;
  harnessFailure: string | null;
  seed: Candidate;
  best: Candidate;
}

/** Files and folders this command writes in its output folder (a fresh run removes only these). */
export const OPTIMIZE_OUTPUTS = [
  'log.jsonl',
  'candidates',
  'best',
  'splits.json',
  'candidates.json',
  'summary.json',
  'report.md',
  'charts',
  'heldout-ids.txt',
] as const;

export async function runOptimize(req: OptimizeRequest, deps: OptimizeDeps = {}): Promise<OptimizeOutcome> {
  const say = deps.say ?? (() => undefined);
  if (!req.settings.allowDatasetExec) {
    throw new UsageError(
      "toolgauge optimize: every rollout runs the dataset's Python tools; set TOOLHOP_ALLOW_DATASET_EXEC=1 when you intend to run them",
    );
  }
  const src = await resolveDataSource(req.run, req.settings);
  const ds = loadDatasetFile(src.path);
  const valid = ds.entries.filter((e): e is Extract<DatasetEntry, { ok: true }> => e.ok);
  const entries = new Map<string, DatasetEntry>(valid.map((e) => [e.id, e]));
  const splits = drawSplits(
    valid.map((e) => ({ id: e.id, stratum: e.row.answer_type.trim().toLowerCase() })),
    {
      trainSize: req.trainSize,
      valSize: req.valSize,
      seed: req.seed,
      allowEvalIds: req.allowEvalIds,
      evalIds: toolhopEvalIds(),
    },
  );
  const target = toolhopTarget(req.settings);
  const outDir = resolve(req.out);
  prepareOut(outDir, req.resume);

  const reflectionBase = req.reflection.baseUrl ?? (isSimModel(req.reflection.model) ? undefined : req.run.baseUrl);
  if (!reflectionBase && !isSimModel(req.reflection.model)) {
    throw new UsageError(
      `toolgauge optimize: --reflection-model '${req.reflection.model}' needs an endpoint: pass --reflection-base-url (or --base-url), or use sim:reflect`,
    );
  }
  const needSim = (!req.run.baseUrl && isSimModel(req.run.model)) || !reflectionBase;
  let runtime: ReturnType<typeof runtimeFor> | undefined;
  // The run's launcher: the engine of a gguf: task model, and the simulator (ToolHop's rows and the reflection model's
  // responder) when either model is simulated; the optimizer writes its own folder (prepareOut), so no lock.
  const opened = await openRun(planFromConfig(req.run, { simUrl: deps.simUrl }), {
    command: 'toolgauge optimize',
    suites: [],
    outDir,
    endpointChecked: true,
    simulator: needSim,
    ...(needSim
      ? {
          responders: {
            toolhop: toolhopResponder(async () => ds),
            [REFLECT_SUITE]: reflectResponder(() => valid.map((e) => e.row)),
          },
        }
      : {}),
  });
  const simUrl = opened.plan.simUrl;
  try {
    const rt = (runtime = runtimeFor(opened.plan.run, simUrl));
    const reflectionClient = new ModelClient({
      baseUrl: reflectionBase ?? simUrl!,
      apiKey: req.reflection.apiKey,
      model: req.reflection.model,
      timeoutMs: req.reflection.timeoutMs,
      retries: req.reflection.retries,
      concurrency: 1,
      temperature: req.reflection.temperature,
      backoff: reflectionBase ? { baseMs: 500, maxMs: 20_000 } : { baseMs: 20, maxMs: 200 },
    });
    const reflector: ReflectionModel = async (prompt, key) => {
      const r = await reflectionClient.chat(
        { messages: [{ role: 'user', content: prompt }] },
        { instance: `${REFLECT_SUITE}:${key}` },
      );
      return {
        answer: r.content ?? '',
        tokens: { prompt: r.usage.prompt_tokens, completion: r.usage.completion_tokens, total: r.usage.total_tokens },
      };
    };

    const config = {
      method: req.method,
      suite: req.suite,
      topology: target.topology,
      roles: target.roles,
      agents: req.settings.topology === 'single' ? null : (req.settings.teamSize ?? null),
      rounds: req.settings.rounds ?? null,
      comm: req.settings.topology === 'single' ? null : req.settings.comm,
      model: req.run.model,
      base_url: redactUrl(req.run.baseUrl) ?? null,
      temperature: req.run.temperature,
      max_turns: req.settings.maxTurns,
      reflection_model: req.reflection.model,
      reflection_base_url: redactUrl(req.reflection.baseUrl) ?? null,
      reflection_temperature: req.reflection.temperature,
      data: req.settings.data ?? null,
      data_sha256: ds.sha256,
      seed: req.seed,
      train_size: req.trainSize,
      val_size: req.valSize,
      allow_eval_ids: req.allowEvalIds,
      seed_prompts: req.settings.promptsDir ?? null,
      seed_prompts_sha: promptsSha(target.seedPrompts),
      gepa: req.method === 'gepa' ? { ...GEPA_DEFAULTS, ...req.gepa } : null,
      mipro: req.method === 'mipro' ? { ...MIPRO_DEFAULTS, ...req.mipro } : null,
      ablation: req.ablation ?? null,
      budget: req.budget,
      concurrency: req.run.concurrency,
      heldout: req.heldout,
      // A cell outside the method's part of the reference's grid (grid.ts): the job is non-conformant.
      off_grid: optimizerCell(req.method, req.settings).offGrid,
    };
    const log = OptimizeLog.open(
      join(outDir, 'log.jsonl'),
      JSON.parse(stableStringify(config)) as Record<string, unknown>,
      req.resume,
      { durable: deps.durableLog ?? true },
    );
    if (log.resumed) say(`resuming from ${join(outDir, 'log.jsonl')}`);
    writeFileAtomic(
      join(outDir, 'splits.json'),
      JSON.stringify(
        {
          ...splits,
          eval_ids: describeIds(toolhopEvalIds()).replace('–', '-'),
          eval_ids_file: 'cases/toolhop/toolhop_eval_ids.json',
          data: src.origin,
          data_sha256: ds.sha256,
        },
        null,
        1,
      ) + '\n',
    );
    writeFileSync(join(outDir, 'heldout-ids.txt'), splits.heldout.join(',') + '\n');

    const engine = new Engine({
      log,
      budget: req.budget,
      concurrency: req.run.concurrency,
      reflector,
      runner: toolhopRunner({
        run: req.run,
        settings: req.settings,
        entries,
        candidatesDir: join(outDir, 'candidates'),
        client: () => rt.client(),
        sandbox: deps.sandbox ?? (() => rt.sandbox()),
        outDir,
      }),
    });
    const common = {
      topology: target.topology,
      roles: target.roles,
      answerer: target.answerer,
      seedPrompts: target.seedPrompts,
      train: splits.train,
      val: splits.val,
      seed: req.seed,
      say,
    };
    let search: SearchResult = { stopReason: 'not started', steps: 0 };
    let harnessFailure: string | null = null;
    try {
      search =
        req.method === 'gepa'
          ? await runGepa(engine, {
              ...common,
              ...GEPA_DEFAULTS,
              ...req.gepa,
              ...(req.ablation ? { ablation: req.ablation } : {}),
            })
          : await runMipro(engine, { ...common, ...MIPRO_DEFAULTS, ...req.mipro });
    } catch (err) {
      if (err instanceof LogMismatch) {
        throw new UsageError(
          `toolgauge optimize: --resume: ${err.message}; the code or the inputs changed since ${join(outDir, 'log.jsonl')} was written: use another --out`,
        );
      }
      if (!(err instanceof HarnessFailure)) throw err;
      harnessFailure = err.message;
      search = { stopReason: 'a harness error', steps: search.steps };
    }
    const seedC = engine.candidates[0]!;
    const best = engine.best() ?? seedC;

    let heldout: { rows: string[]; seed: Map<string, number>; best: Map<string, number> } | null = null;
    if (req.heldout > 0 && !harnessFailure && engine.valScores(seedC.id)) {
      const rows = splits.heldout.slice(0, req.heldout);
      try {
        const s = await engine.evaluate(seedC, rows, 'heldout', { budgeted: false });
        const b = best === seedC ? s : await engine.evaluate(best, rows, 'heldout', { budgeted: false });
        heldout = {
          rows,
          seed: new Map(s.map((r) => [r.row, r.score])),
          best: new Map(b.map((r) => [r.row, r.score])),
        };
      } catch (err) {
        if (!(err instanceof HarnessFailure)) throw err;
        harnessFailure = err.message;
      }
    }

    for (const c of engine.candidates) writePrompts(join(outDir, 'candidates', c.id), target.topology, c.prompts);
    rmSync(join(outDir, 'best'), { recursive: true, force: true });
    writePrompts(join(outDir, 'best'), target.topology, best.prompts);
    const summary = buildSummary({
      method: req.method,
      suite: req.suite,
      topology: target.topology,
      agents: config.agents,
      roles: target.roles,
      answerer: target.answerer,
      taskModel: req.run.model,
      taskEndpoint: config.base_url,
      reflectionModel: req.reflection.model,
      reflectionEndpoint: config.reflection_base_url,
      simulated: isSimModel(req.run.model) || isSimModel(req.reflection.model),
      dataset: { file: src.path, sha256: ds.sha256, origin: src.origin },
      splits,
      budget: req.budget,
      spent: engine.spent,
      seed: req.seed,
      stopReason: search.stopReason,
      steps: search.steps,
      resumed: log.resumed,
      replayed: engine.replayed,
      harnessFailure,
      candidates: engine.candidates,
      valScores: (id) => engine.valScores(id),
      progress: engine.progress,
      events: log.eventLines(),
      seedId: seedC.id,
      bestId: best.id,
      heldout,
      tokens: {
        task: engine.taskTokens,
        taskRollouts: engine.spent + engine.extra,
        reflection: engine.reflectionTokens,
        reflectionCalls: engine.reflectionCalls,
      },
      outDir,
      config,
    });
    writeFileAtomic(join(outDir, 'candidates.json'), JSON.stringify(summary.candidates, null, 1) + '\n');
    writeFileAtomic(join(outDir, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');
    writeFileAtomic(join(outDir, 'charts', 'progress.svg'), progressChart(summary));
    writeFileAtomic(join(outDir, 'report.md'), renderReport(summary, outDir));
    log.close();
    return { outDir, summary, engine, splits, search, harnessFailure, seed: seedC, best };
  } finally {
    await opened.close();
    if (deps.closeRuntime) await runtime?.close();
  }
}

/** A fresh run removes what an earlier run of this command wrote there (and nothing else); a resumed one keeps it. */
function prepareOut(dir: string, resume: boolean): void {
  mkdirSync(dir, { recursive: true });
  if (resume) return;
  for (const name of OPTIMIZE_OUTPUTS) {
    const p = join(dir, name);
    if (existsSync(p) || isLink(p)) rmSync(p, { recursive: true, force: true });
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

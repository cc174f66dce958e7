import type { RunConfig } from '../core/config.ts';
import type { ModelClient } from '../model/client.ts';
import type { Sampling } from '../model/types.ts';
import type { Summary } from '../report/summary.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { Responder } from '../sim/server.ts';
import type { MetricEstimate } from '../stats/index.ts';
import type { SamplingNeeds } from './sampling.ts';
import type { ZodType } from 'zod';
import type { CaseView } from './case-view/contract.ts';

/**
 * The suite kit's contract. A suite declares how its instances load, how one runs, how it scores, how the metas
 * aggregate and how the report renders; the kit (harness/kit + the Vitest adapter in harness/vitest) owns test
 * generation, naming, meta transport, trials, resume, output files, shard blobs, the reporter registry and the
 * CLI plumbing. Nothing here imports Vitest or a suite.
 */

/** What every test leaves in `task.meta.toolgauge`; reporters aggregate only from this, after all tests. */
export interface InstanceMetaBase {
  suite: string;
  id: string;
  trial: number;
  /** A harness error (endpoint down after retries, broken row, sandbox crash): counted apart from wrong answers. */
  error: string | null;
  /** The instance's verdict (what the test asserted). */
  pass: boolean;
  /** A short reason when it did not pass (the failing-instances list of every report). */
  reason?: string | null;
  /** Position of the instance in the suite's list: record files are rewritten in this order. */
  order?: number;
  /** The instance's trace file, relative to the output directory. */
  trace?: string | null;
  /** The meta was read back from an earlier run's journal (--resume, or a filtered re-run). */
  resumed?: boolean;
}

export interface DatasetInfo {
  file: string;
  sha256: string;
  origin?: string;
}

export interface Loaded<I> {
  /** In dataset order. */
  instances: I[];
  dataset: DatasetInfo | null;
}

/** What one run of one instance (one trial) produced. */
export interface Finished<M extends InstanceMetaBase> {
  meta: M;
  /** One line per record file (a JSONL file of the suite's `recordFiles`). */
  records?: Record<string, unknown>;
  /** Whole files, by path relative to the output directory (traces, per-run JSON files): text, or a value written as JSON. */
  files?: Record<string, unknown>;
  /** A readable transcript (question, each tool call and result, final answer) for the Vitest UI. */
  transcript?: string;
}

/** How a test reads: pass/fail, the failure message, and a one-line summary for annotations. */
export interface Verdict {
  pass: boolean;
  message: string;
  summary: string;
}

export interface RunContext<S> {
  run: RunConfig;
  settings: S;
  trial: number;
  outDir: string;
  client(): ModelClient;
  /**
   * The sampling fields of this trial's requests (of the base values, or of a phase the suite declares), derived by
   * the kit from the run's plan (harness/kit/sampling.ts): what the header's `generation` block records.
   */
  sampling(phase?: string): Sampling;
  sandbox(): Sandbox;
  /** The simulator's URL when this run started it (for a suite's second, simulated model); else undefined. */
  simUrl?: string | undefined;
  /** Path (relative to outDir) of this instance's trace file: named by a hash of the id, the id kept inside. */
  tracePath(id: string, trial: number, ext?: string): string;
}

export interface Aggregate {
  counts: Record<string, number>;
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  errors: Summary['errors'];
  extra: Record<string, unknown>;
  /** Harness errors among the instances (gates fail on any). */
  harnessErrors: number;
  instances: number;
}

export interface Chart {
  file: string;
  label: string;
  svg: string;
}

/** Whether a larger value of a metric is better; comparisons word their verdicts with it. */
export type Direction = 'higher' | 'lower';

/**
 * How one suite turns its tests' metas into numbers and files. `aggregate` is pure (metas + seed + config), so the
 * reporter, `toolgauge report DIR` and merged shard reports all compute the same thing.
 */
export interface SuiteAggregator<M extends InstanceMetaBase = InstanceMetaBase> {
  aggregate(metas: M[], seed: number, config: Record<string, unknown>): Aggregate;
  /** Per-instance outcome of each metric, for paired comparisons between runs on the same instances. */
  outcomes(metas: M[]): Record<string, Map<string, number>>;
  markdown(summary: Summary): string;
  terminal(summary: Summary, outDir: string): string;
  charts(summary: Summary): Chart[];
  /** Metrics for which a smaller value is better (error rates, costs). */
  lowerIsBetter?: readonly string[];
  /** Suite-specific files written next to summary.json. */
  writeExtra?(outDir: string, metas: M[], summary: Summary): void;
  /** Config keys that must agree for `report --compare` (e.g. Maze's judge and agent modes). */
  comparableOn?: readonly string[];
}

export interface SuiteDefinition<I extends { id: string }, M extends InstanceMetaBase, S> {
  name: string;
  /** Human name for reports ("ToolHop"). */
  title: string;
  /** Parse the suite's settings (called at the edges only: CLI, global setup, reporter). Throws UsageError. */
  settings(env: NodeJS.ProcessEnv, run: RunConfig): S;
  outDir(run: RunConfig, settings: S): string;
  /** Names (files or folders) the suite writes in its output directory; a fresh run empties only these. */
  outputs: readonly string[];
  /** JSONL files with one line per instance and trial (fields `id`, `trial`): tidied on resume, sorted at the end. */
  recordFiles?: readonly string[];
  load(run: RunConfig, settings: S): Promise<Loaded<I>> | Loaded<I>;
  /** How many `*.eval.ts` part files the instances are dealt over (so `--shard` spreads them). */
  parts?: number;
  /** Which part file an instance belongs to (1-based), when the parts are not an even dealing (Maze: by complexity). */
  partOf?(instance: I): number;
  /** Expected cost of an instance: heavier ones are dealt first. */
  weight?(instance: I): number;
  /** Test name without the trial suffix, e.g. `toolhop › 17 › hops=4`. */
  testName(instance: I): string;
  /**
   * Whether a run with these settings calls the sandbox: the run's main process then starts it before the test
   * worker exists, and serves it to the worker (harness/sandbox/remote.ts).
   */
  callsTools?(settings: S): boolean;
  /** Start what the first instance would otherwise wait for (sandbox workers), while Vitest collects. */
  warm?(ctx: Omit<RunContext<S>, 'trial' | 'sampling'>, instances: I[]): void;
  run(instance: I, ctx: RunContext<S>): Promise<Finished<M>>;
  /** Stops what the suite started for its instances (a describeEval's MCP servers): called once when the run ends. */
  close?(): Promise<void>;
  /** The meta of an instance that could not run (a broken row, an exception): an error, never a silent drop. */
  failed(instance: I, trial: number, message: string): M;
  verdict(meta: M): Verdict;
  /**
   * The schema of this suite's meta: every journal line a resume or `-t` re-run reads back must pass it (besides the
   * kit's own, harness/kit/journal.ts), so an edited or truncated line is an error, never a crash in aggregation.
   */
  metaSchema?: ZodType;
  aggregator: SuiteAggregator<M>;
  /**
   * Config keys (of `config`) that change an instance's result, beyond the aggregator's `comparableOn`: with the
   * model, endpoint, dataset, template and generation they make the run's fingerprint, which `--resume` and a `-t`
   * re-run must match (harness/kit/fingerprint.ts).
   */
  fingerprintOn?: readonly string[];
  /** The suite's config block of summary.json (what a reader needs to reproduce the run). */
  config(run: RunConfig, settings: S): Record<string, unknown>;
  templateSha256?(run: RunConfig, settings: S): string | null;
  /**
   * What the suite's requests are asked with (default: the run's temperature and max tokens): its base values and
   * phases. The kit adds the seed by its one rule, hands each trial its values (`RunContext.sampling`) and records
   * the plan in the header's `generation` block and the fingerprint (harness/kit/sampling.ts).
   */
  sampling?(run: RunConfig, settings: S): SamplingNeeds;
  /** Other facts of the header's `generation` block (a preset's name, decoding axes, endpoints); never sampling values. */
  generationFacts?(run: RunConfig, settings: S): Record<string, unknown>;
  /**
   * V8 flags the suite's instances run faster with, set in the test worker before its cases load (a flag is the whole
   * process's: it stays for the suites after this one in that worker). Any such flag costs Node's built-in code cache
   * for the Node modules loaded after it (harness/core/late-v8-flags.ts).
   */
  v8Flags?: readonly string[];
  /** The simulator's behaviour for this suite's requests. */
  responder?(run: RunConfig, settings: S): Responder;
  /**
   * Whether this run needs the simulator even though the run's model has an endpoint (a second model of the suite,
   * such as Maze's `--judge-model sim:judge`, is simulated): the simulator then starts as for a simulated run.
   */
  needsSimulator?(run: RunConfig, settings: S): boolean;
  /** Metric names a gate may name (checked before any instance runs). A trailing `*` matches any suffix. */
  metricNames(settings: S): readonly string[];
  /**
   * How `toolgauge view` shows one case: its evidence from the journal line and the trace (harness/kit/case-view;
   * a built-in suite's is its folder's `case-view.ts`). Without one the viewer shows the journal line and the trace.
   */
  caseView?: CaseView;
}

/** A definition with settings `S`, of any instances and metas (where only the settings' type matters). */
// biome-ignore lint/suspicious/noExplicitAny: instances and metas of any type; `unknown` would reject them (parameter variance)
export type SuiteOf<S> = SuiteDefinition<any, any, S>;

// Definitions are stored and passed around without their type parameters.
// biome-ignore lint/suspicious/noExplicitAny: a definition of any settings, cases and results; `unknown` would reject them (parameter variance)
export type AnySuite = SuiteDefinition<any, any, any>;

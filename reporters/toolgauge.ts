import type { SerializedError } from 'vitest';
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSuite, Vitest } from 'vitest/node';
import { loadBuiltinSuites } from '../harness/builtin/load.ts';
import { UsageError } from '../harness/core/errors.ts';
import { runFromBlobs, type BlobRun } from '../harness/kit/blob-run.ts';
import { restoreTrace } from '../harness/kit/shard-traces.ts';
import { redact } from '../harness/core/redact.ts';
import { escapeTerminal } from '../harness/core/terminal.ts';
import { planRun, type RunPlan } from '../harness/kit/plan.ts';
import { registeredSuites } from '../harness/kit/registry.ts';
import { endRun, type EndedModule } from '../harness/kit/run-end.ts';
import type {} from '../harness/vitest/task-meta.ts';
import { stdoutIsADocument } from '../harness/vitest/stdout-reporters.ts';
import { PROGRESS_EVERY_CASES, PROGRESS_INTERVAL_MS, ProgressMeter } from '../harness/vitest/progress.ts';

/**
 * The toolgauge reporter: after all tests (so a merged shard report equals an unsharded run) the kit finalizes
 * every suite that ran — any suite, including ones this process has never seen — prints the terminal summaries
 * and sets the exit code (harness/kit/run-end.ts). Runs without eval files (unit tests) pass through untouched.
 */
/** What the CLI hands the reporter instance it creates (a reporter Vitest loads by path has none). */
export interface ToolgaugeReporterOptions {
  /** Launched by the CLI (exit codes follow the CLI's rule). */
  cli?: boolean;
  /** The run's configuration as the CLI parsed it: what `--merge-reports` (no global setup provides one) starts from. */
  plan?: RunPlan;
  /** Print everything on stderr (`toolgauge eval --json`: stdout holds one JSON document). */
  stderr?: boolean;
  /** Told, once the run has ended, which suites were finalized and where (`toolgauge eval --json`). */
  onEnded?: (suites: Array<{ suite: string; outDir: string }>) => void;
  /** Whether stderr is a terminal (default: process.stderr.isTTY); when it is not, progress lines go there. */
  stderrIsTTY?: boolean;
  /** The progress lines' clock (default Date.now). */
  now?: () => number;
}

const EVAL_MODULE = /\.eval\.[cm]?[jt]s$/;

export default class ToolgaugeReporter implements Reporter {
  /** How the plugin recognises an instance (a bundled copy of this class may carry another name). */
  readonly toolgaugeReporter = true;
  constructor(private readonly options: ToolgaugeReporterOptions = {}) {}
  private vitest?: Vitest;
  private startedAt = new Date();

  /** Another reporter's document owns stdout: the summary goes to stderr. */
  private toStderr = false;

  /** Progress lines for a log (stderr not a terminal, where Vitest's own lines are not redrawn); off on a terminal. */
  private progress?: ProgressMeter;
  private progressTimer?: ReturnType<typeof setInterval>;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.startedAt = new Date();
    if (!(this.options.stderrIsTTY ?? process.stderr.isTTY))
      this.progress = new ProgressMeter({
        everyCases: PROGRESS_EVERY_CASES,
        intervalMs: PROGRESS_INTERVAL_MS,
        now: this.options.now ?? Date.now,
      });
    this.toStderr =
      this.options.stderr === true ||
      stdoutIsADocument(
        vitest.config.reporters as unknown[],
        vitest.config.outputFile as string | Record<string, string> | undefined,
      );
  }

  onTestModuleCollected(mod: TestModule): void {
    if (!this.progress || !EVAL_MODULE.test(mod.moduleId)) return;
    this.progress.planned([...mod.children.allTests()].length);
    // Between cases too: a slow case must not leave the log silent for minutes.
    this.progressTimer ??= setInterval(() => this.printProgress(this.progress?.tick() ?? null), PROGRESS_INTERVAL_MS);
    this.progressTimer.unref?.();
  }

  onTestCaseResult(t: TestCase): void {
    if (!this.progress || !EVAL_MODULE.test(t.module.moduleId)) return;
    const state = t.result().state;
    const outcome =
      state === 'skipped' ? 'skipped' : t.meta().toolgauge?.error ? 'error' : state === 'failed' ? 'failed' : 'passed';
    this.printProgress(this.progress.finished(outcome));
  }

  private printProgress(line: string | null): void {
    if (line) process.stderr.write(`${line}\n`);
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandled: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): Promise<void> {
    if (this.progressTimer) clearInterval(this.progressTimer);
    this.progressTimer = undefined;
    const evalModules = modules.filter((m) => EVAL_MODULE.test(m.moduleId));
    if (!evalModules.length) return;
    // The aggregators, reports and gates of the built-in suites this run's tests belong to (a user's suite falls back
    // to the generic ones): a run of a user's eval loads none of them.
    const ended = evalModules.map(endedModule);
    await loadBuiltinSuites({ TOOLGAUGE_SUITES: [...suitesOf(ended)].join(',') });
    let kc: RunPlan;
    try {
      // What the global setup provided; in `--merge-reports` (no global setup) the environment, parsed here.
      // Merged blobs: the run the shards made, as their suite blocks recorded it (model, endpoint, settings).
      kc =
        evalModules[0]!.project.getProvidedContext().toolgauge ??
        runFromBlobs(this.options.plan ?? planRun(process.env, registeredSuites()), blocks(evalModules));
    } catch (err) {
      this.log(
        err instanceof UsageError
          ? err.message
          : `toolgauge: cannot read the run configuration: ${(err as Error).message}`,
      );
      process.exitCode = 2;
      return;
    }
    const merging = this.vitest?.config.mergeReports;
    const end = endRun(ended, kc, {
      startedAt: this.startedAt,
      endedAt: new Date(),
      interrupted: reason === 'interrupted',
      unhandled: unhandled.map(unhandledText),
      cli: this.options.cli === true,
      merged: !!merging,
    });
    // The shards' traces, carried in their blobs, into the merged folder the report links them from.
    if (merging) {
      const outDirs = new Map(end.suites.map((s) => [s.suite, s.outDir]));
      for (const mod of evalModules) {
        for (const t of mod.children.allTests()) {
          const suite = t.meta().toolgauge?.suite;
          const dir = suite ? outDirs.get(suite) : undefined;
          if (dir) restoreTrace(dir, t.meta().toolgaugeTrace);
        }
      }
    }
    for (const s of end.suites) {
      this.log(s.terminal);
      for (const e of s.errors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    for (const m of end.messages) this.log(m);
    if (end.exitCode !== undefined) process.exitCode = end.exitCode;
    this.options.onEnded?.(end.suites.map((s) => ({ suite: s.suite, outDir: s.outDir })));
  }

  /** Everything printed may carry ids, answers and errors from data or an endpoint: controls become escapes. */
  private log(msg: string): void {
    const text = escapeTerminal(redact(msg), '\n\t');
    if (this.toStderr) process.stderr.write(`${text}\n`);
    else if (this.vitest) this.vitest.logger.log(text);
    else console.log(text);
  }
}

/** Each suite block of the run once: its suite, dataset hash, output directory and recorded run. */
function blocks(modules: ReadonlyArray<TestModule>) {
  const seen = new Map<string, { suite: string; dataset: string | null; outDir: string; run: BlobRun | undefined }>();
  for (const mod of modules) {
    for (const s of mod.children.allSuites()) {
      const m = s.meta().toolgaugeSuite;
      if (m)
        seen.set(JSON.stringify([m.suite, m.dataset?.sha256 ?? null, m.run ?? null]), {
          suite: m.suite,
          dataset: m.dataset?.sha256 ?? null,
          outDir: m.outDir,
          run: m.run,
        });
    }
  }
  return [...seen.values()];
}

/** The suites the ended modules' tests belong to. */
function suitesOf(modules: EndedModule[]): Set<string> {
  const names = new Set<string>();
  for (const m of modules)
    for (const t of m.tests) for (const name of [t.meta?.suite, t.ident?.suite]) if (name) names.add(name);
  return names;
}

function endedModule(mod: TestModule): EndedModule {
  return {
    file: mod.relativeModuleId,
    // A suite block that failed while collecting (a bad setting, an unknown gate metric) reports on the block.
    errors: [...mod.errors(), ...[...mod.children.allSuites()].flatMap((s) => s.errors())].map((e) => ({
      name: e.name,
      message: e.message,
    })),
    tests: [...mod.children.allTests()].map((t) => ({
      name: t.name,
      state: t.result().state,
      meta: t.meta().toolgauge,
      instance: t.meta().toolgaugeInstance,
      ident: identity(t),
      error: t.result().errors?.[0]?.message,
      errorName: t.result().errors?.[0]?.name,
    })),
  };
}

/** An unhandled error as one line: its message and its cause's (Vitest's "Worker exited unexpectedly" is the cause). */
function unhandledText(e: SerializedError): string {
  const cause = e.cause && typeof e.cause === 'object' && 'message' in e.cause ? String(e.cause.message) : '';
  return cause ? `${e.message}: ${cause}` : e.message;
}

function identity(t: TestCase) {
  for (let p: TestSuite | TestModule = t.parent; p.type === 'suite'; p = p.parent) {
    const m = p.meta().toolgaugeSuite;
    if (m) return m;
  }
  return undefined;
}

import type { SerializedError } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestCase, TestModule, TestProject, TestRunEndReason, Vitest } from 'vitest/node';
import { redact } from '../harness/core/redact.ts';
import { escapeTerminal } from '../harness/core/terminal.ts';
import type { RunPlan } from '../harness/kit/plan.ts';
import type {} from '../harness/vitest/task-meta.ts';
import { stdoutIsADocument } from '../harness/vitest/stdout-reporters.ts';
import { PROGRESS_EVERY_CASES, PROGRESS_INTERVAL_MS, ProgressMeter } from '../harness/vitest/progress.ts';

/**
 * The toolgauge reporter: after all tests (so a merged shard report equals an unsharded run) the kit finalizes
 * every suite that ran — any suite, including ones this process has never seen — prints the terminal summaries
 * and sets the exit code (reporters/eval-end.ts, harness/kit/run-end.ts). Runs without eval files (unit tests) pass
 * through untouched, without loading any of that.
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
    const { endEvalRun } = await this.endModule(evalModules[0]!.project);
    const end = await endEvalRun(evalModules, unhandled, reason, {
      env: process.env,
      plan: this.options.plan,
      startedAt: this.startedAt,
      cli: this.options.cli === true,
      merged: !!this.vitest?.config.mergeReports,
    });
    if ('configError' in end) {
      this.refuse(end.configError);
      process.exitCode = 2;
      return;
    }
    for (const s of end.suites) {
      this.log(s.terminal);
      for (const e of s.errors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    // A run the end refuses (exit 2) says why on stderr, as every usage error of the CLI does (docs/eval.md#exit-codes);
    // the summaries of the evals it finalized stay where summaries go.
    for (const m of end.messages) end.exitCode === 2 ? this.refuse(m) : this.log(m);
    if (end.exitCode !== undefined) process.exitCode = end.exitCode;
    this.options.onEnded?.(end.suites.map((s) => ({ suite: s.suite, outDir: s.outDir })));
  }

  /**
   * reporters/eval-end.ts, loaded once eval files ran. From the sources under plain `vitest run`, through the eval
   * project's module runner rather than the one Vitest loaded this reporter with: the project's global setup has
   * loaded the plan, the suites and much of the end through it already, which would otherwise be transformed and
   * evaluated a second time in this process. A launcher's instance (the CLI's bundle, the package's JavaScript)
   * imports it as any module.
   */
  private async endModule(project: TestProject): Promise<typeof import('./eval-end.ts')> {
    if (import.meta.url.endsWith('.ts') && this.options.cli !== true)
      return project.import(fileURLToPath(new URL('./eval-end.ts', import.meta.url)));
    return import('./eval-end.ts');
  }

  /** Everything printed may carry ids, answers and errors from data or an endpoint: controls become escapes. */
  private log(msg: string): void {
    const text = printable(msg);
    if (this.toStderr) process.stderr.write(`${text}\n`);
    else if (this.vitest) this.vitest.logger.log(text);
    else console.log(text);
  }

  /** Why the run was refused: on stderr, whatever stdout holds. */
  private refuse(msg: string): void {
    process.stderr.write(`${printable(msg)}\n`);
  }
}

function printable(msg: string): string {
  return escapeTerminal(redact(msg), '\n\t');
}

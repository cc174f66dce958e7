import { reproHeader } from '../core/repro.ts';
import { samplingOf, type RunPlan } from './plan.ts';
import { finalizeSuite, type Finalized } from './finalize.ts';
import { genericAggregator } from './generic.ts';
import { journalOutside, readJournal } from './journal.ts';
import { releaseDirLock } from './lock.ts';
import { claimMergedDirs } from './merge-claim.ts';
import { isDirRefusal } from './resume-check.ts';
import { instanceKey } from './names.ts';
import { evalOutDir } from './outdir.ts';
import { suiteNamed } from './registry.ts';
import { generationHeader } from './sampling.ts';
import type { DatasetInfo, InstanceMetaBase } from './types.ts';

/** One eval test file after the run, reduced to what the kit needs (the reporter builds this from Vitest's). */
export interface EndedModule {
  file: string;
  /** Errors of the file itself (it failed to load or collect). */
  errors: Array<{ name?: string; message: string }>;
  tests: EndedTest[];
}

export interface EndedTest {
  name: string;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  meta: InstanceMetaBase | undefined;
  /** The instance and trial the test runs (set at collection, so also on a test that never finished). */
  instance?: { id: string; trial: number } | undefined;
  /** The suite block's identity (set at collection, so also on skipped tests). */
  ident:
    | {
        suite: string;
        title: string;
        dataset: DatasetInfo | null;
        outDir: string;
        /** The suite's own trials, when it sets them (describeEval's `trials`). */
        trials?: number;
        /** How many instances its dataset holds. */
        instances?: number;
      }
    | undefined;
  error: string | undefined;
  /** The error's class name (`DirLocked`, `ResumeRefused` … mean the run was refused the directory). */
  errorName?: string | undefined;
}

export interface RunEnd {
  /** Per suite: its finalized summary and where it was written. */
  suites: Array<{ suite: string; outDir: string; finalized: Finalized; terminal: string; errors: string[] }>;
  /** Lines to print besides the suites' terminal summaries. */
  messages: string[];
  /** The exit code to set, or undefined to keep Vitest's own. */
  exitCode: number | undefined;
}

/** Errors that mean "the run was asked wrongly" (exit code 2), not "the run went wrong". */
const USAGE_ERRORS = new Set(['UsageError', 'GateSyntaxError']);

/**
 * The end of an eval run: group the tests' metas by suite (any suite, including one this process never saw),
 * finalize each (summary.json, report.md, charts, journal), and decide the exit code — with a gate, the gate and
 * harness errors alone; under the CLI without a gate, harness errors; under plain `vitest run`, Vitest's own rule.
 * A usage error raised while collecting (a bad setting, a gate naming an unknown metric) exits 2. A suite whose
 * session was refused the output directory (another run holds it, another fingerprint, a journal that fails its
 * checks, a planted link) is not finalized there — finalizing would rewrite another run's files or the very journal
 * that was refused — and the run exits 2 with the reason, once. A merge of blob reports, which has no instance that
 * would prepare its folders, claims them here as a fresh run's first instance does (merge-claim.ts): a folder in use
 * refuses the merge (exit 2) before anything is written.
 */
export function endRun(
  modules: readonly EndedModule[],
  kc: RunPlan,
  o: {
    startedAt: Date;
    endedAt: Date;
    interrupted: boolean /** Vitest's unhandled errors (a test worker that died), as text. */;
    unhandled: readonly string[];
    cli: boolean /** Merged blob reports: output directories are this process's, not the shards'. */;
    merged?: boolean;
    /** A merge's writing of what its blobs carry into each suite's folder, once the folders are claimed. */
    carried?: (outDirs: ReadonlyMap<string, string>) => void;
  },
): RunEnd {
  const runs: Runs = new Map();
  try {
    return endRuns(modules, kc, o, runs);
  } finally {
    // The run is over for every directory it wrote, whatever the way out (a usage error while collecting, a refused
    // suite, a failed aggregation, a throw): give back the lock its first instance took (harness/kit/lock.ts). Under
    // plain Vitest in watch or UI mode the process lives on, and would hold the directory.
    for (const [suite, run] of runs) {
      try {
        releaseDirLock(outDirOf(suite, run, kc, o.merged), kc.runId);
      } catch {
        // a lock that cannot be read is not this run's
      }
    }
  }
}

type Runs = Map<
  string,
  {
    ident: EndedTest['ident'] | undefined;
    metas: InstanceMetaBase[];
    errors: string[];
    planned: number;
    unreported: EndedTest[];
    refused?: string;
  }
>;

/**
 * Where a suite of the run wrote: its own rule when this process knows it, else what its tests said at collection;
 * a merge of blob reports writes where its own --out-dir says, as describeEval's rule places an eval (kit/outdir.ts).
 */
function outDirOf(
  suite: string,
  run: { ident: EndedTest['ident'] | undefined },
  kc: RunPlan,
  merged: boolean | undefined,
): string {
  const def = suiteNamed(suite);
  const set = kc.suites[suite];
  const settings = set?.ok ? set.settings : undefined;
  return def && settings !== undefined
    ? def.outDir(kc.run, settings)
    : (!merged && run.ident?.outDir) || evalOutDir(kc.run, suite);
}

function endRuns(modules: readonly EndedModule[], kc: RunPlan, o: Parameters<typeof endRun>[2], runs: Runs): RunEnd {
  const loose: string[] = [];
  const messages: string[] = [];
  let usage = false;
  // One error from several files (each part of a suite loads the same data) is said once, with the files counted.
  const looseFiles = new Map<string, string[]>();
  for (const mod of modules) {
    for (const e of mod.errors) {
      if (USAGE_ERRORS.has(e.name ?? '')) usage = true;
      const files = looseFiles.get(e.message) ?? looseFiles.set(e.message, []).get(e.message)!;
      // A refusal of the whole run meets every block of a file: the file is counted once.
      if (files.at(-1) !== mod.file) files.push(mod.file);
    }
    for (const t of mod.tests) {
      const suite = t.meta?.suite ?? t.ident?.suite;
      if (!suite) continue;
      const run =
        runs.get(suite) ??
        runs.set(suite, { ident: undefined, metas: [], errors: [], planned: 0, unreported: [] }).get(suite)!;
      run.ident ??= t.ident;
      if (t.state !== 'skipped') run.planned++;
      if (!t.meta && isDirRefusal(t.errorName)) run.refused ??= t.error;
      if (t.meta) run.metas.push(t.meta);
      else if (t.state === 'failed') run.errors.push(`${t.name}: ${t.error ?? 'failed without a score'}`);
      // Collected but never reported: the test worker died or the run was interrupted before (or just after) it ran.
      else if (t.state === 'pending') run.unreported.push(t);
    }
  }
  for (const [message, files] of looseFiles)
    loose.push(
      `${files[0]}${files.length > 1 ? ` and ${files.length - 1} more file${files.length > 2 ? 's' : ''}` : ''}: ${message}`,
    );
  // Errors Vitest caught outside any test (a test worker that exited unexpectedly) belong to the run.
  for (const u of o.unhandled.slice(0, 5)) loose.push(`Vitest: ${u}`);
  if (o.unhandled.length > 5) loose.push(`Vitest: ${o.unhandled.length - 5} more unhandled errors`);
  const cause = o.interrupted
    ? 'the run was interrupted'
    : o.unhandled.length
      ? `the run ended with an error: ${o.unhandled[0]}`
      : 'the run ended before them';
  if (usage) return { suites: [], messages: loose.map((e) => `toolgauge: ${e}`), exitCode: 2 };
  if (o.merged) {
    // A merge writes its folders as a fresh run does (merge-claim.ts), then what the blobs carry, all under the locks.
    const dirs = new Map([...runs].map(([suite, run]) => [suite, outDirOf(suite, run, kc, true)]));
    try {
      claimMergedDirs(
        [...dirs].map(([suite, dir]) => ({ dir, outputs: suiteNamed(suite)?.outputs ?? [] })),
        kc.runId,
        kc.ownerPid ?? process.pid,
      );
    } catch (err) {
      if (!isDirRefusal((err as Error).name)) throw err;
      return { suites: [], messages: [`toolgauge: ${(err as Error).message}`], exitCode: 2 };
    }
    o.carried?.(dirs);
  }
  // A module that failed to load belongs to no suite we can name: a harness error of the run.
  const first = runs.values().next().value;
  if (loose.length) {
    if (first) first.errors.push(...loose);
    else messages.push(...loose.map((e) => `toolgauge: ${e}`));
  }
  let gatePassed = true;
  let refused = false;
  let harnessError = o.unhandled.length > 0 || o.interrupted || (loose.length > 0 && !runs.size);
  // A suite of the run had no case at all: a harness error under the CLI, and under plain Vitest too (no test failed).
  let emptyRun = false;
  const suites: RunEnd['suites'] = [];
  for (const [suite, run] of runs) {
    const def = suiteNamed(suite);
    const set = kc.suites[suite];
    const settings = set?.ok ? set.settings : undefined;
    const known = !!def && settings !== undefined;
    const outDir = outDirOf(suite, run, kc, o.merged);
    if (run.refused !== undefined) {
      messages.push(`toolgauge: ${suite}: ${run.refused}`);
      refused = true;
      continue;
    }
    if (!kc.filter && !o.merged && !run.planned && !run.metas.length && !run.errors.length && run.ident?.instances) {
      // Instances, but every test skipped (`.skip`, or `.only` in its file): finalizing would replace the last run's
      // files with an empty report.
      messages.push(`toolgauge: ${suite}: every test was skipped; its output is left as it was`);
      continue;
    }
    if (!kc.filter && !o.merged && run.ident?.instances === 0 && !run.metas.length && !run.errors.length) {
      // An eval whose data has no cases: nothing was measured, which must not pass as a run that went well.
      run.errors.push('no case ran: the data has no cases');
      emptyRun = true;
    }
    const metas = kc.filter ? withJournal(run.metas, outDir, suite) : run.metas;
    if (run.unreported.length) {
      // An instance can finish (its files and journal line on disk) and its worker die before the result reaches
      // Vitest: the journal has it. The rest never ran.
      const journal = readJournal(outDir, suite);
      const reported = new Set(metas.map((m) => instanceKey(m.id, m.trial)));
      let notRun = 0;
      for (const t of run.unreported) {
        const key = t.instance ? instanceKey(t.instance.id, t.instance.trial) : undefined;
        const onDisk = key === undefined ? undefined : journal.get(key);
        if (onDisk && !reported.has(key!)) metas.push(onDisk);
        else if (!onDisk) notRun++;
      }
      if (notRun) run.errors.push(`${notRun} of ${run.planned} instances did not run (${cause})`);
    }
    const agg = def?.aggregator ?? genericAggregator;
    const header = reproHeader(run.ident?.trials ? { ...kc.run, trials: run.ident.trials } : kc.run, {
      dataset: run.ident?.dataset ?? null,
      templateSha256: known ? (def.templateSha256?.(kc.run, settings) ?? null) : null,
      ...(known
        ? { generation: generationHeader(samplingOf(kc, def, settings), def.generationFacts?.(kc.run, settings)) }
        : {}),
      startedAt: o.startedAt,
      endedAt: o.endedAt,
    });
    let finalized: Finalized;
    try {
      finalized = finalizeSuite(suite, agg, metas, {
        header,
        config: known ? def.config(kc.run, settings) : { suite },
        seed: kc.run.seed,
        gate: kc.run.gate,
        outDir,
        collectionErrors: run.errors,
        recordFiles: def?.recordFiles,
        // A resume of fewer instances than the directory finished (a smaller or forgotten --limit) loses none of them.
        ...(kc.run.resume && !o.merged
          ? { keepInJournal: (inRun: (key: string) => boolean) => journalOutside(outDir, suite, inRun) }
          : {}),
      });
    } catch (err) {
      // No summary for this suite (finalizeSuite renamed the previous one): the run failed, and says why.
      messages.push(`toolgauge: ${(err as Error).message}`);
      harnessError = true;
      gatePassed = false;
      continue;
    }
    if (finalized.harnessErrors) harnessError = true;
    if (finalized.gate && !finalized.gate.passed) gatePassed = false;
    suites.push({ suite, outDir, finalized, terminal: agg.terminal(finalized.summary, outDir), errors: run.errors });
  }
  if (!runs.size) {
    messages.push('toolgauge: the eval run had no benchmark instances');
    gatePassed = false;
  }
  if (refused) return { suites, messages, exitCode: 2 };
  const exitCode = kc.run.gate
    ? gatePassed && !harnessError && runs.size
      ? 0
      : 1
    : o.cli
      ? harnessError || emptyRun || !runs.size
        ? 1
        : 0
      : emptyRun
        ? 1
        : undefined;
  return { suites, messages, exitCode };
}

/** A filtered re-run reports every finished instance: the journal's metas, replaced by the ones run now. */
function withJournal(metas: InstanceMetaBase[], outDir: string, suite: string): InstanceMetaBase[] {
  const merged = readJournal(outDir, suite);
  for (const m of metas) merged.set(instanceKey(m.id, m.trial), m);
  return [...merged.values()];
}

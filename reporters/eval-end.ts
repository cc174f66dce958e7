import type { SerializedError } from 'vitest';
import type { TestCase, TestModule, TestRunEndReason, TestSuite } from 'vitest/node';
import { loadBuiltinSuites } from '../harness/builtin/load.ts';
import { UsageError } from '../harness/core/errors.ts';
import { runFromBlobs, type BlobRun } from '../harness/kit/blob-run.ts';
import { restoreTrace } from '../harness/kit/shard-traces.ts';
import { type Fingerprint, writeFingerprint } from '../harness/kit/fingerprint.ts';
import { planRun, type RunPlan } from '../harness/kit/plan.ts';
import { registeredSuites } from '../harness/kit/registry.ts';
import { endRun, type EndedModule, type RunEnd } from '../harness/kit/run-end.ts';
import type {} from '../harness/vitest/task-meta.ts';

/**
 * The toolgauge reporter's end of an eval run (reporters/toolgauge.ts loads it once eval files ran, so a run of
 * unit tests loads none of the suites, the plan's parsers or the reports): the built-in suites the tests belong to,
 * the run's plan, and the kit's end (harness/kit/run-end.ts) — every suite finalized, the exit code decided. A plan
 * that cannot be had is one line to print and exit code 2.
 */
export async function endEvalRun(
  evalModules: ReadonlyArray<TestModule>,
  unhandled: ReadonlyArray<SerializedError>,
  reason: TestRunEndReason,
  o: {
    /** The reporter's environment: in `--merge-reports` (no global setup) the run's configuration is read from it. */
    env: NodeJS.ProcessEnv;
    /** The plan a launcher parsed (ToolgaugeReporterOptions.plan). */
    plan: RunPlan | undefined;
    startedAt: Date;
    cli: boolean;
    merged: boolean;
  },
): Promise<RunEnd | { configError: string }> {
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
      runFromBlobs(o.plan ?? planRun(o.env, registeredSuites()), blocks(evalModules));
  } catch (err) {
    return {
      configError:
        err instanceof UsageError
          ? err.message
          : `toolgauge: cannot read the run configuration: ${(err as Error).message}`,
    };
  }
  // Merged blobs of several suites (several evals, or one file that defines several): --out-dir is their parent.
  if (o.merged && suitesOf(ended).size > 1) kc = { ...kc, run: { ...kc.run, outDirHoldsEvals: true } };
  return endRun(ended, kc, {
    startedAt: o.startedAt,
    endedAt: new Date(),
    interrupted: reason === 'interrupted',
    unhandled: unhandled.map(unhandledText),
    cli: o.cli,
    merged: o.merged,
    // Into the merged folders, once claimed: the shards' traces, carried in their blobs, which the report links, and
    // the run's fingerprint, as the run's start stores it (a later --resume or -t re-run checks against it).
    carried: (outDirs) => {
      for (const mod of evalModules) {
        for (const t of mod.children.allTests()) {
          const suite = t.meta().toolgauge?.suite;
          const dir = suite ? outDirs.get(suite) : undefined;
          if (dir) restoreTrace(dir, t.meta().toolgaugeTrace);
        }
      }
      for (const b of blocks(evalModules)) {
        const dir = outDirs.get(b.suite);
        if (dir && b.fingerprint) writeFingerprint(dir, b.suite, kc.runId, b.fingerprint);
      }
    },
  });
}

/** Each suite block of the run once: its suite, dataset hash, output directory and recorded run. */
function blocks(modules: ReadonlyArray<TestModule>) {
  const seen = new Map<
    string,
    {
      suite: string;
      dataset: string | null;
      outDir: string;
      run: BlobRun | undefined;
      fingerprint: Fingerprint | undefined;
    }
  >();
  for (const mod of modules) {
    for (const s of mod.children.allSuites()) {
      const m = s.meta().toolgaugeSuite;
      if (m)
        seen.set(JSON.stringify([m.suite, m.dataset?.sha256 ?? null, m.run ?? null]), {
          suite: m.suite,
          dataset: m.dataset?.sha256 ?? null,
          outDir: m.outDir,
          run: m.run,
          fingerprint: m.fingerprint,
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

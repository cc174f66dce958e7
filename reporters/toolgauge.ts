import type { SerializedError } from '@vitest/utils';
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSuite, Vitest } from 'vitest/node';
import { reproHeader } from '../harness/core/repro.ts';
import { BUILTIN_SUITES } from '../harness/builtin/index.ts';
import { parseKitConfig, type KitConfig } from '../harness/kit/config.ts';
import { finalizeSuite } from '../harness/kit/finalize.ts';
import { genericAggregator } from '../harness/kit/generic.ts';
import { readJournal } from '../harness/kit/journal.ts';
import { instanceKey } from '../harness/kit/names.ts';
import { defaultOutDir } from '../harness/kit/outdir.ts';
import { suiteNamed } from '../harness/kit/registry.ts';
import type { DatasetInfo, InstanceMetaBase } from '../harness/kit/types.ts';
import '../harness/vitest/context.ts';

interface SuiteRun {
  suite: string;
  title: string;
  outDir: string | null;
  dataset: DatasetInfo | null;
  metas: InstanceMetaBase[];
  errors: string[];
}

/** Errors that mean "the run was asked wrongly" (exit code 2), not "the run went wrong". */
const USAGE_ERRORS = new Set(['UsageError', 'GateSyntaxError']);

/**
 * The toolgauge reporter. After all tests (so a merged shard report equals an unsharded run) it groups the tests'
 * metas by suite — any suite, including ones this process has never seen — and writes summary.json, report.md,
 * the charts and the journal per suite, prints a terminal summary, and decides the exit code: with a gate, the gate
 * and harness errors alone; under the CLI, harness errors; under plain `vitest run`, Vitest's own rule. Runs
 * without toolgauge tests (unit tests) pass through untouched.
 */
export default class ToolgaugeReporter implements Reporter {
  private vitest?: Vitest;
  private startedAt = new Date();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.startedAt = new Date();
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>, reason: TestRunEndReason): Promise<void> {
    const evalModules = modules.filter((m) => /\.eval\.[cm]?[jt]s$/.test(m.moduleId));
    if (!evalModules.length) return;
    let kc: KitConfig;
    try {
      kc = this.config(evalModules);
    } catch (err) {
      this.log(`toolgauge: cannot read the run configuration: ${(err as Error).message}`);
      process.exitCode = 2;
      return;
    }
    const runs = new Map<string, SuiteRun>();
    const loose: string[] = [];
    let usageError = false;
    for (const mod of evalModules) {
      for (const e of mod.errors()) {
        if (USAGE_ERRORS.has(e.name ?? '')) usageError = true;
        loose.push(`${mod.relativeModuleId}: ${e.message}`);
      }
      for (const t of mod.children.allTests()) {
        const meta = t.meta().toolgauge;
        const ident = suiteIdentity(t);
        const suite = meta?.suite ?? ident?.suite;
        if (!suite) continue;
        const run = runs.get(suite) ?? runs.set(suite, { suite, title: ident?.title ?? suite, outDir: ident?.outDir ?? null, dataset: ident?.dataset ?? null, metas: [], errors: [] }).get(suite)!;
        run.dataset ??= ident?.dataset ?? null;
        run.outDir ??= ident?.outDir ?? null;
        if (meta) run.metas.push(meta);
        else if (t.result().state === 'failed') run.errors.push(`${t.name}: ${t.result().errors?.[0]?.message ?? 'failed without a score'}`);
      }
    }
    // A module that failed to load belongs to no suite we can name: it is a harness error of the run.
    if (loose.length) {
      const target = runs.values().next().value;
      if (target) target.errors.push(...loose);
      else for (const e of loose) this.log(`toolgauge: ${e}`);
    }
    if (usageError) {
      process.exitCode = 2;
      return;
    }
    const endedAt = new Date();
    let gatePassed = true;
    let harnessError = unhandled.length > 0 || reason === 'interrupted' || (loose.length > 0 && !runs.size);
    for (const run of runs.values()) {
      const def = suiteNamed(run.suite);
      const set = kc.suites[run.suite];
      const settings = set?.ok ? set.settings : undefined;
      const outDir = def && settings !== undefined ? def.outDir(kc.run, settings) : (run.outDir ?? defaultOutDir(kc.run.outDir, run.suite));
      const metas = kc.filter ? withJournal(run.metas, outDir, run.suite) : run.metas;
      const header = reproHeader(kc.run, {
        dataset: run.dataset,
        templateSha256: def && settings !== undefined ? (def.templateSha256?.(kc.run, settings) ?? null) : null,
        startedAt: this.startedAt,
        endedAt,
      });
      const f = finalizeSuite(run.suite, def?.aggregator ?? genericAggregator, metas, {
        header,
        config: def && settings !== undefined ? def.config(kc.run, settings) : { suite: run.suite },
        seed: kc.run.seed,
        gate: kc.run.gate,
        outDir,
        collectionErrors: run.errors,
        recordFiles: def?.recordFiles,
      });
      if (f.harnessErrors) harnessError = true;
      if (f.gate && !f.gate.passed) gatePassed = false;
      this.log((def?.aggregator ?? genericAggregator).terminal(f.summary, outDir));
      for (const e of run.errors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    if (!runs.size) {
      this.log('toolgauge: the eval run had no benchmark instances');
      gatePassed = false;
    }
    // Exit code: with a gate, the gate and harness errors decide; under the toolgauge CLI without a gate, harness
    // errors decide; under plain `vitest run` without a gate, Vitest's own rule (any failing test) stands.
    if (kc.run.gate) process.exitCode = gatePassed && !harnessError && runs.size ? 0 : 1;
    else if (process.env.TOOLGAUGE_CLI === '1') process.exitCode = harnessError || !runs.size ? 1 : 0;
  }

  /** What the global setup provided; in `--merge-reports` (no global setup) the environment, parsed here. */
  private config(modules: ReadonlyArray<TestModule>): KitConfig {
    const provided = modules[0]?.project.getProvidedContext().toolgauge;
    return provided ?? parseKitConfig(process.env, BUILTIN_SUITES);
  }

  private log(msg: string): void {
    if (this.vitest) this.vitest.logger.log(msg);
    else console.log(msg);
  }
}

function suiteIdentity(t: TestCase) {
  for (let p: TestSuite | TestModule = t.parent; p; p = (p as TestSuite).parent) {
    if (p.type !== 'suite') return undefined;
    const m = p.meta().toolgaugeSuite;
    if (m) return m;
  }
  return undefined;
}

/** A filtered re-run reports every finished instance: the journal's metas, replaced by the ones run now. */
function withJournal(metas: InstanceMetaBase[], outDir: string, suite: string): InstanceMetaBase[] {
  const merged = readJournal(outDir, suite);
  for (const m of metas) merged.set(instanceKey(m.id, m.trial), m);
  return [...merged.values()];
}

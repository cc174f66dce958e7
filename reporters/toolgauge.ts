import type { SerializedError } from '@vitest/utils';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { readConfig, type RunConfig } from '../harness/core/config.ts';
import { reproHeader } from '../harness/core/repro.ts';
import type { InstanceMeta } from '../harness/vitest/meta.ts';
import './register-all.ts';
import { SUITE_AGGREGATORS, type SuiteName } from './suites.ts';
import { finalizeSuite } from './write.ts';

/**
 * The toolgauge reporter: after all tests (so a merged shard report equals an unsharded run), it aggregates the
 * eval tests' meta into summary.json + report.md + charts per suite, prints a terminal summary, and — when a gate
 * is set — decides the exit code from the gate and harness errors alone. Unit-test runs pass through untouched.
 */
export default class ToolgaugeReporter implements Reporter {
  private vitest?: Vitest;
  private startedAt = new Date();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.startedAt = new Date();
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>, reason: TestRunEndReason): Promise<void> {
    const evalModules = modules.filter((m) => m.project.name === 'eval');
    if (!evalModules.length) return;
    let cfg: RunConfig;
    try {
      cfg = readConfig();
    } catch (err) {
      this.log(`toolgauge: cannot read the run configuration: ${(err as Error).message}`);
      process.exitCode = 2;
      return;
    }
    const endedAt = new Date();
    const bySuite = new Map<SuiteName, { metas: InstanceMeta[]; errors: string[] }>();
    for (const mod of evalModules) {
      const suite = suiteOfModule(mod.moduleId);
      if (!suite) continue;
      const entry = bySuite.get(suite) ?? bySuite.set(suite, { metas: [], errors: [] }).get(suite)!;
      // A module that failed to load (bad data file, import error) is a harness error of the whole suite.
      for (const e of mod.errors()) entry.errors.push(`${mod.relativeModuleId}: ${e.message}`);
      for (const t of mod.children.allTests()) {
        const meta = t.meta().toolgauge;
        if (meta) entry.metas.push(meta);
        else if (t.result().state === 'failed') entry.errors.push(`${t.name}: ${t.result().errors?.[0]?.message ?? 'failed without a score'}`);
      }
    }
    let gatePassed = true;
    let harnessError = unhandled.length > 0 || reason === 'interrupted';
    for (const [suite, { metas, errors }] of bySuite) {
      const agg = SUITE_AGGREGATORS[suite];
      if (!agg) {
        this.log(`toolgauge: no aggregator for suite '${suite}'`);
        harnessError = true;
        continue;
      }
      const outDir = agg.outDir(cfg);
      const header = reproHeader(cfg, {
        dataset: await agg.dataset(cfg),
        templateSha256: agg.templateSha256?.(cfg) ?? null,
        startedAt: this.startedAt,
        endedAt,
      });
      const f = finalizeSuite(suite, agg, metas, { header, config: agg.config(cfg), seed: cfg.seed, gate: cfg.gate, outDir, collectionErrors: errors });
      if (f.harnessErrors) harnessError = true;
      if (f.gate && !f.gate.passed) gatePassed = false;
      this.log(agg.terminal(f.summary, outDir));
      for (const e of errors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    if (!bySuite.size) {
      this.log('toolgauge: the eval run had no benchmark instances');
      gatePassed = false;
    }
    // Exit code: with a gate, the gate and harness errors decide; under the toolgauge CLI without a gate, harness
    // errors decide; under plain `vitest run` without a gate, Vitest's own rule (any failing test) stands.
    if (cfg.gate) process.exitCode = gatePassed && !harnessError && bySuite.size ? 0 : 1;
    else if (process.env.TOOLGAUGE_CLI === '1') process.exitCode = harnessError || !bySuite.size ? 1 : 0;
  }

  private log(msg: string): void {
    if (this.vitest) this.vitest.logger.log(msg);
    else console.log(msg);
  }
}

function suiteOfModule(moduleId: string): SuiteName | undefined {
  const m = /suites\/(toolhop|maze|probe)\//.exec(moduleId.replace(/\\/g, '/'));
  return m?.[1] as SuiteName | undefined;
}

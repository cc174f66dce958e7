import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import type { SerializedError } from '@vitest/utils';
import { readConfig, type RunConfig } from '../harness/core/config.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { SUITE_AGGREGATORS, type SuiteName } from './suites.ts';
import { evaluateGate, type GateVerdict } from '../harness/vitest/gate.ts';
import { gateMetrics, type Summary } from '../harness/report/summary.ts';
import type { InstanceMeta } from '../harness/vitest/meta.ts';

/**
 * The toolgauge reporter: after all tests (so a merged shard report equals an unsharded run), it aggregates the
 * eval tests' meta into summary.json + report.md per suite, prints a terminal summary, and — when a gate is set —
 * decides the exit code from the gate and harness errors alone. Unit-test runs pass through untouched.
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
    const bySuite = new Map<SuiteName, { metas: InstanceMeta[]; harnessErrors: string[] }>();
    const slot = (s: SuiteName) => bySuite.get(s) ?? bySuite.set(s, { metas: [], harnessErrors: [] }).get(s)!;
    for (const mod of evalModules) {
      const suite = suiteOfModule(mod.moduleId);
      if (!suite) continue;
      const entry = slot(suite);
      // A module that failed to load (bad data file, import error) is a harness error of the whole suite.
      for (const e of mod.errors()) entry.harnessErrors.push(`${mod.relativeModuleId}: ${e.message}`);
      for (const t of mod.children.allTests()) {
        const meta = t.meta().toolgauge;
        if (meta) entry.metas.push(meta);
        else if (t.result().state === 'failed') entry.harnessErrors.push(`${t.name}: ${t.result().errors?.[0]?.message ?? 'failed without a score'}`);
      }
    }
    const gateExpr = cfg.gate;
    let allPassed = true;
    let anyHarnessError = unhandled.length > 0 || reason === 'interrupted';
    for (const [suite, { metas, harnessErrors }] of bySuite) {
      const agg = SUITE_AGGREGATORS[suite];
      if (!agg) {
        this.log(`toolgauge: no aggregator for suite '${suite}' yet`);
        continue;
      }
      const built = await agg.build(metas, cfg, { startedAt: this.startedAt, endedAt });
      const harnessErrorCount = built.harnessErrors + harnessErrors.length;
      let gate: GateVerdict | null = null;
      if (gateExpr) {
        try {
          gate = evaluateGate(gateExpr, gateMetrics(built.summary), { instances: built.instances, harnessErrors: harnessErrorCount });
        } catch (err) {
          gate = { expression: gateExpr, checks: [], passed: false, reasons: [(err as Error).message] };
        }
        allPassed &&= gate.passed;
      }
      if (harnessErrorCount) anyHarnessError = true;
      const summary: Summary = { ...built.summary, gate: gate as Summary['gate'] };
      summary.extra = { ...summary.extra, collection_errors: harnessErrors };
      writeFileAtomic(join(built.outDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
      writeFileSync(join(built.outDir, 'report.md'), agg.markdown(summary));
      this.log(agg.terminal(summary, built.outDir));
      for (const e of harnessErrors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    if (!bySuite.size) {
      this.log('toolgauge: the eval run had no benchmark instances');
      allPassed = false;
    }
    // The exit code: with a gate, the gate and harness errors decide; under the toolgauge CLI without a gate,
    // harness errors decide; under plain `vitest run` without a gate, Vitest's own (failing tests) stands.
    if (gateExpr) process.exitCode = allPassed && !anyHarnessError ? 0 : 1;
    else if (process.env.TOOLGAUGE_CLI === '1') process.exitCode = anyHarnessError || !bySuite.size ? 1 : 0;
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

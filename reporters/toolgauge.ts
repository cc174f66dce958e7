import type { SerializedError } from '@vitest/utils';
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSuite, Vitest } from 'vitest/node';
import { loadBuiltinSuites } from '../harness/builtin/load.ts';
import { redact } from '../harness/core/redact.ts';
import { parseKitConfig, type KitConfig } from '../harness/kit/config.ts';
import { registeredSuites } from '../harness/kit/registry.ts';
import { endRun, type EndedModule } from '../harness/kit/run-end.ts';
import '../harness/vitest/context.ts';

/**
 * The toolgauge reporter: after all tests (so a merged shard report equals an unsharded run) the kit finalizes
 * every suite that ran — any suite, including ones this process has never seen — prints the terminal summaries
 * and sets the exit code (harness/kit/run-end.ts). Runs without eval files (unit tests) pass through untouched.
 */
export default class ToolgaugeReporter implements Reporter {
  /** How the plugin recognises an instance (a bundled copy of this class may carry another name). */
  readonly toolgaugeReporter = true;
  private vitest?: Vitest;
  private startedAt = new Date();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.startedAt = new Date();
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>, reason: TestRunEndReason): Promise<void> {
    const evalModules = modules.filter((m) => /\.eval\.[cm]?[jt]s$/.test(m.moduleId));
    if (!evalModules.length) return;
    // The aggregators, reports and gates of the built-in suites this run's tests belong to (a user's suite falls back
    // to the generic ones): a run of a user's eval loads none of them.
    const ended = evalModules.map(endedModule);
    await loadBuiltinSuites({ TOOLGAUGE_SUITES: [...suitesOf(ended)].join(',') });
    let kc: KitConfig;
    try {
      // What the global setup provided; in `--merge-reports` (no global setup) the environment, parsed here.
      kc = evalModules[0]!.project.getProvidedContext().toolgauge ?? parseKitConfig(process.env, registeredSuites());
    } catch (err) {
      this.log(`toolgauge: cannot read the run configuration: ${(err as Error).message}`);
      process.exitCode = 2;
      return;
    }
    const end = endRun(ended, kc, {
      startedAt: this.startedAt,
      endedAt: new Date(),
      interrupted: reason === 'interrupted',
      unhandled: unhandled.map(unhandledText),
      cli: process.env.TOOLGAUGE_CLI === '1',
    });
    for (const s of end.suites) {
      this.log(s.terminal);
      for (const e of s.errors.slice(0, 5)) this.log(`  harness error: ${e}`);
    }
    for (const m of end.messages) this.log(m);
    if (end.exitCode !== undefined) process.exitCode = end.exitCode;
  }

  private log(msg: string): void {
    const text = redact(msg);
    if (this.vitest) this.vitest.logger.log(text);
    else console.log(text);
  }
}

/** The suites the ended modules' tests belong to. */
function suitesOf(modules: EndedModule[]): Set<string> {
  const names = new Set<string>();
  for (const m of modules) for (const t of m.tests) for (const name of [t.meta?.suite, t.ident?.suite]) if (name) names.add(name);
  return names;
}

function endedModule(mod: TestModule): EndedModule {
  return {
    file: mod.relativeModuleId,
    // A suite block that failed while collecting (a bad setting, an unknown gate metric) reports on the block.
    errors: [...mod.errors(), ...[...mod.children.allSuites()].flatMap((s) => s.errors())].map((e) => ({ name: e.name, message: e.message })),
    tests: [...mod.children.allTests()].map((t) => ({
      name: t.name,
      state: t.result().state,
      meta: t.meta().toolgauge,
      instance: t.meta().toolgaugeInstance,
      ident: identity(t),
      error: t.result().errors?.[0]?.message,
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

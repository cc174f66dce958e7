import ToolgaugeReporter from '../../reporters/toolgauge.ts';
import { loadBuiltinSuites, suiteModules } from '../builtin/load.ts';
import { REPORTER_PATH } from '../../reporters/path.ts';
import { builtinEvalConfig, launcherBundle, workerPreload } from '../vitest/eval-config.ts';
import { checkSuiteCommand, type CommandRunner, type SuiteCommand } from '../kit/command.ts';
import { parseFlags } from '../kit/flags/flags.ts';
import { cliInterruptLine } from '../kit/interrupt.ts';
import { MODEL_FLAGS, type Shard, settingsSource } from '../kit/flags/model-flags.ts';
import type { RunPlan } from '../kit/plan.ts';
import { registeredSuites } from '../kit/registry.ts';
import { startSandboxEarly, type EarlySandbox } from '../launch/early-sandbox.ts';
import { openRun } from '../launch/open-run.ts';
import { reportPathOf, runEvalSuites } from '../vitest/run.ts';

/**
 * Everything `toolgauge <suite>` does, the same for every suite: flags and environment → one plan (harness/kit/plan.ts);
 * a bad flag, a missing file, a bad suite setting, a simulator policy the suite cannot play or a gate naming a metric
 * the suite does not report is one line and exit code 2; then the launcher opens the run (harness/launch/open-run.ts:
 * out-dir check, engine, endpoint check, lock, simulator, sandbox) while Vitest's test worker starts, and the suite's
 * eval files run through Vitest's Node API with the plan provided to the workers.
 */
export async function runSuiteCommand<S>(
  c: SuiteCommand<S>,
  argv: string[],
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values } = parseFlags(c.command, argv, { ...MODEL_FLAGS, ...c.flags });
  const { plan, settings } = checkSuiteCommand(c, values, settingsSource(baseEnv, values, c.env));
  const instead = await c.instead?.(plan, settings);
  if (instead !== undefined) return instead;
  const outDir = c.suite.outDir(plan.run, settings);
  const mergeReports = values['merge-reports'] as string | undefined;
  // The sandbox's worker boots for about a second, and the first tool call waits for it: it starts now, so that it
  // boots while this process loads the suite and Vitest, forks the test worker and opens the run (a real endpoint's
  // check, a gguf: model's engine); the launcher adopts it, or it is closed below.
  const sandbox = mergeReports ? undefined : startSandboxEarly(plan);
  try {
    return await runSuite(c, values, plan, settings, outDir, mergeReports, sandbox);
  } finally {
    await sandbox?.close();
  }
}

async function runSuite<S>(
  c: SuiteCommand<S>,
  values: Record<string, unknown>,
  plan: RunPlan,
  settings: S,
  outDir: string,
  mergeReports: string | undefined,
  sandbox: EarlySandbox | undefined,
): Promise<number> {
  // Vitest's main process loads only this suite (harness/builtin/load.ts).
  await loadBuiltinSuites({ TOOLGAUGE_SUITES: c.suite.name });
  // The global setup's work (the launcher, below) and the reporter run from this process's modules: Vitest's main
  // process loads neither through Vite before it starts the test worker.
  const reporter = new ToolgaugeReporter({ cli: true, plan });
  const code = await runEvalSuites(c.evalFiles?.(settings) ?? [`suites/${c.suite.name}/`], {
    plan,
    reporter,
    config: (inline) =>
      builtinEvalConfig(plan.vitest, process.env, { reporter, reporterPath: REPORTER_PATH, ...inline }),
    preload: workerPreload(launcherBundle(process.env), suiteModules([c.suite.name])),
    worker: plan.run.evalWorker ?? c.worker ?? 'fork',
    // The run opens while the test worker starts (runEvalSuites forks it first).
    open: async (p) => {
      return openRun(p, {
        command: `toolgauge ${c.command}`,
        suites: registeredSuites(),
        outDir,
        // One writer per output directory, for the whole run (its workers join with the run id); a resume or -t
        // re-run checks the directory before anything runs.
        claim: {
          suite: c.suite,
          settings,
          dir: outDir,
          mode: mergeReports ? 'fresh' : p.run.resume ? 'resume' : values.filter ? 'merge' : 'fresh',
        },
        ...(c.validate ? { check: (q: RunPlan) => c.validate!(q, settings, values) } : {}),
        noRequests: Boolean(mergeReports),
        smoke: Boolean(values.smoke),
        ...(c.preflight ? { preflight: (q: RunPlan) => c.preflight!(q, settings) } : {}),
        serveSandbox: true,
        sandbox,
      });
    },
    shard: (values.shard as Shard | undefined)?.text,
    filter: values.filter as string | undefined,
    blobDir: values['blob-dir'] as string | undefined,
    mergeReports,
    reportPath: values['print-report'] ? reportPathOf(outDir) : undefined,
    interruptLine: cliInterruptLine(`toolgauge ${c.command}`, outDir),
  });
  c.after?.(plan, settings, outDir, values);
  return code;
}

/** The runner the command line hands each suite folder's command. */
export const SUITE_COMMAND_RUNNER: CommandRunner = { runSuite: runSuiteCommand };

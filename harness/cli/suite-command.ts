import { existsSync } from 'node:fs';
import ToolgaugeReporter from '../../reporters/toolgauge.ts';
import { loadBuiltinSuites } from '../builtin/load.ts';
import { UsageError } from '../core/errors.ts';
import { parseKitConfig, settingsOf, type KitConfig } from '../kit/config.ts';
import { checkGate, GateSyntaxError } from '../kit/gate.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';
import { claimOutDir, isDirRefusal } from '../kit/resume-check.ts';
import { registeredSuites } from '../kit/registry.ts';
import type { SuiteOf } from '../kit/types.ts';
import { checkEndpoint, EndpointUnavailable } from '../model/preflight.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { ggufPathOf } from '../core/engine-facts.ts';
import { parseFlags, type FlagSpecs } from './flags.ts';
import { flagsToEnv, MODEL_FLAGS } from './model-flags.ts';
import { reportPathOf, runEvalSuites } from '../vitest/run.ts';
import { runSmoke } from './smoke.ts';

export interface SuiteCommand<S> {
  /** The command name in messages (`toolhop`). */
  command: string;
  /** The suite: its settings are the command's `S`. */
  suite: SuiteOf<S>;
  /** The suite's own flags and the variable each maps onto. */
  flags: FlagSpecs;
  env: Record<string, string>;
  /** Flags naming files that must exist. */
  files?: readonly string[];
  /** The eval files to run (default: the suite's folder). */
  evalFiles?(settings: S): string[];
  /** Checks beyond the settings' own (a simulator policy this suite has no behaviour for …). Throw UsageError. */
  validate?(kc: KitConfig, settings: S): void | Promise<void>;
  /** Run instead of the eval suites (e.g. `--smoke-dataset`); return an exit code, or undefined to go on. */
  instead?(kc: KitConfig, settings: S): Promise<number | undefined>;
  /** The endpoint check before the first request, when the suite's requests are not OpenAI chat completions. */
  preflight?(kc: KitConfig, settings: S): Promise<void>;
  /** After the run (e.g. the reference `--out` file); `values`: the parsed flags. */
  after?(kc: KitConfig, settings: S, outDir: string, values: Record<string, unknown>): void;
}

/**
 * Everything `toolgauge <suite>` does before Vitest runs, the same for every suite: flags → environment → one
 * parse of the configuration; a bad flag, a missing file, a bad suite setting, a simulator policy the suite cannot
 * play or a gate naming a metric the suite does not report is one line and exit code 2; a real endpoint is checked
 * once (seconds, with the URL and the cause). Then the suite's eval files run through Vitest's Node API.
 */
export async function runSuiteCommand<S>(
  c: SuiteCommand<S>,
  argv: string[],
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values } = parseFlags(c.command, argv, { ...MODEL_FLAGS, ...c.flags });
  // Flags become environment variables (the same run as plain `vitest run` with them set), in a copy: the
  // configuration parsed from it reaches Vitest and its workers as a value (runEvalSuites), never through process.env.
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  flagsToEnv(values, c.env, env);
  // Vitest's main process loads only this suite (harness/builtin/load.ts).
  env.TOOLGAUGE_SUITES = c.suite.name;
  let { kc, settings } = checkSuiteCommand(c, values, env);
  // A gguf: model: its local engine starts now (after every check that needs no model), for the whole run. Its modules
  // (the server, chat templates, parsers: a third of the CLI's code) load only for such a model.
  const engines =
    ggufPathOf(kc.run.model) === null || values['merge-reports'] || kc.run.cache === 'replay'
      ? null
      : await import('../serve/run-engine.ts');
  const engine = engines ? await engines.prepareRunEngine(kc.run, `toolgauge ${c.command}`) : null;
  try {
    if (engine) {
      engines!.engineEnv(env, engine);
      kc = parseKitConfig(env, [c.suite]);
      settings = settingsOf(kc, c.suite);
    }
    return await runChecked(c, kc, settings, values, env);
  } finally {
    if (engine) await engines!.closeRunEngine(engine, env);
  }
}

/**
 * The checks every suite command makes before anything runs, on parsed flags and the environment they were turned
 * into: files named by flags exist, the suite's settings parse, a simulator policy parses, a gate names only metrics
 * the suite reports. Each failure is one UsageError line (exit 2). `toolhop sweep` runs them on every cell.
 */
export function checkSuiteCommand<S>(
  c: Pick<SuiteCommand<S>, 'command' | 'suite' | 'files'>,
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { kc: KitConfig; settings: S } {
  for (const f of c.files ?? []) {
    const v = values[f];
    if (typeof v === 'string' && !/^hf(:|$)/.test(v) && !existsSync(v))
      throw new UsageError(`toolgauge ${c.command}: --${f} '${v}' does not exist`);
  }
  const kc = parseKitConfig(env, [c.suite]);
  let settings: S;
  try {
    settings = settingsOf(kc, c.suite);
  } catch (err) {
    throw new UsageError(`toolgauge ${c.command}: ${(err as Error).message}`);
  }
  if (kc.run.usesSimulator) {
    try {
      parsePolicySpec(kc.run.model);
    } catch (err) {
      throw new UsageError(`toolgauge ${c.command}: --model ${(err as Error).message}`);
    }
  }
  if (kc.run.gate) {
    try {
      checkGate(kc.run.gate, c.suite.metricNames(settings));
    } catch (err) {
      if (err instanceof GateSyntaxError) throw new UsageError(`toolgauge ${c.command}: --gate: ${err.message}`);
      throw err;
    }
  }
  return { kc, settings };
}

async function runChecked<S>(
  c: SuiteCommand<S>,
  kc: KitConfig,
  settings: S,
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  await c.validate?.(kc, settings);
  const instead = await c.instead?.(kc, settings);
  if (instead !== undefined) return instead;
  const outDir = c.suite.outDir(kc.run, settings);
  // Before the first request: a run that cannot write its results must not pay for a single model call.
  assertOutDirWritable(`toolgauge ${c.command}`, outDir);
  // Replay answers every request from the cache: the endpoint need not be up.
  if (kc.run.baseUrl && !values['merge-reports'] && kc.run.cache !== 'replay') {
    try {
      if (c.preflight) await c.preflight(kc, settings);
      else await checkEndpoint({ baseUrl: kc.run.baseUrl, apiKey: kc.run.apiKey, model: kc.run.model });
    } catch (err) {
      if (err instanceof EndpointUnavailable) throw new UsageError(`toolgauge ${c.command}: ${err.message}`);
      throw err;
    }
    if (values.smoke) await runSmoke(c.command, kc.run);
  }
  // One writer per output directory, for the whole run (its workers join with the run id); a resume or -t re-run
  // checks the directory before anything runs. A refusal is one line, exit 2.
  const release = await claim(c, kc, settings, outDir, {
    filter: Boolean(values.filter),
    mergeReports: Boolean(values['merge-reports']),
  });
  try {
    return await runClaimed(c, kc, settings, outDir, values, env);
  } finally {
    release();
  }
}

async function claim<S>(
  c: SuiteCommand<S>,
  kc: KitConfig,
  settings: S,
  dir: string,
  o: { filter: boolean; mergeReports: boolean },
): Promise<() => void> {
  try {
    return await claimOutDir(c.suite, kc.run, settings, {
      dir,
      runId: kc.runId,
      mode: o.mergeReports ? 'fresh' : kc.run.resume ? 'resume' : o.filter ? 'merge' : 'fresh',
    });
  } catch (err) {
    if (isDirRefusal((err as Error).name)) throw new UsageError(`toolgauge ${c.command}: ${(err as Error).message}`);
    throw err;
  }
}

async function runClaimed<S>(
  c: SuiteCommand<S>,
  kc: KitConfig,
  settings: S,
  outDir: string,
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  await loadBuiltinSuites(env);
  const code = await runEvalSuites(c.evalFiles?.(settings) ?? [`suites/${c.suite.name}/`], {
    // The global setup's work and the reporter from this process's modules (Vitest's main process then loads them
    // through Vite no more), on the configuration parsed and checked above: the workers receive it as a value.
    inProcess: {
      suites: registeredSuites(),
      reporter: new ToolgaugeReporter({ cli: true, kc }),
      kc,
      endpointChecked: Boolean(kc.run.baseUrl) && kc.run.cache !== 'replay',
    },
    env,
    shard: values.shard as string | undefined,
    filter: values.filter as string | undefined,
    blobDir: values['blob-dir'] as string | undefined,
    mergeReports: values['merge-reports'] as string | undefined,
    reportPath: values['print-report'] ? reportPathOf(outDir) : undefined,
  });
  c.after?.(kc, settings, outDir, values);
  return code;
}

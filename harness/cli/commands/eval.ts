import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { parseKitConfig, type KitConfig } from '../../kit/config.ts';
import { closeRunEngine, engineEnv, prepareRunEngine } from '../../serve/run-engine.ts';
import { parseGate, GateSyntaxError } from '../../kit/gate.ts';
import { assertOutDirWritable } from '../../kit/out-dir-check.ts';
import { checkEndpoint, EndpointUnavailable } from '../../model/preflight.ts';
import { parseFlags } from '../flags.ts';
import { applyConfig, type ConfigOptions } from '../config-file.ts';
import { runSmoke } from '../smoke.ts';
import { flagsToEnv, MODEL_FLAGS } from '../model-flags.ts';
import { runEvalSuites } from '../../vitest/run.ts';

export const USAGE = `toolgauge eval FILE.eval.ts [FILE…] [--model NAME] [--base-url URL] [--concurrency N] [--trials K] [--seed N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n [--blob-dir DIR]] [--merge-reports DIR] [-t PATTERN]
               [--config FILE.yaml] [--smoke]   (every flag as a key, files: [..] for the eval files; docs/config.md)
  Runs your own eval files (describeEval from 'toolgauge') with toolgauge's eval configuration, from the current
  folder: one test per case, summary.json and report.md in results/<eval name>/, the gate decides the exit code.`;

/** A configuration file's `files: [..]` are the eval files when the command line names none. */
export const CONFIG_OPTIONS: ConfigOptions = { positionals: 'files' };

/** `toolgauge eval`: a user's `*.eval.ts` files, run from their folder on the suite kit. */
export async function run(argvIn: string[]): Promise<number> {
  const argv = applyConfig('eval', argvIn, MODEL_FLAGS, CONFIG_OPTIONS);
  const { values, positionals } = parseFlags('eval', argv, MODEL_FLAGS, true);
  if (!positionals.length && !values['merge-reports'])
    throw new UsageError('toolgauge eval: give at least one eval file (e.g. evals/arith.eval.ts)');
  for (const f of positionals) if (!existsSync(f)) throw new UsageError(`toolgauge eval: '${f}' does not exist`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  flagsToEnv(values, {}, env);
  let kc = parseKitConfig(env, []);
  if (kc.run.gate) {
    try {
      parseGate(kc.run.gate);
    } catch (err) {
      if (err instanceof GateSyntaxError) throw new UsageError(`toolgauge eval: --gate: ${err.message}`);
      throw err;
    }
  }
  // Before the first request: a run that cannot write its results must not pay for a single model call.
  assertOutDirWritable('toolgauge eval', kc.run.outDir ?? 'results');
  // A gguf: model: its local engine starts now, for the whole run.
  const engine =
    values['merge-reports'] || kc.run.cache === 'replay' ? null : await prepareRunEngine(kc.run, 'toolgauge eval');
  try {
    if (engine) {
      engineEnv(env, engine);
      kc = parseKitConfig(env, []);
    }
    return await runChecked(kc, values, positionals, env);
  } finally {
    if (engine) await closeRunEngine(engine, process.env);
  }
}

async function runChecked(
  kc: KitConfig,
  values: Record<string, unknown>,
  positionals: string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // Replay answers every request from the cache: the endpoint need not be up.
  if (kc.run.baseUrl && !values['merge-reports'] && kc.run.cache !== 'replay') {
    try {
      await checkEndpoint({ baseUrl: kc.run.baseUrl, apiKey: kc.run.apiKey, model: kc.run.model });
    } catch (err) {
      if (err instanceof EndpointUnavailable) throw new UsageError(`toolgauge eval: ${err.message}`);
      throw err;
    }
    env.TOOLGAUGE_PREFLIGHT_DONE = '1';
    if (values.smoke) await runSmoke('eval', kc.run);
  }
  // A user's eval files run with their own global setup (harness/vitest/eval-global-setup.ts, in this process), which
  // parses the configuration from this process's environment: for them that is the channel.
  Object.assign(process.env, env);
  return runEvalSuites(
    positionals.map((f) => resolve(f)),
    {
      env: process.env,
      userRoot: process.cwd(),
      shard: values.shard as string | undefined,
      filter: values.filter as string | undefined,
      blobDir: values['blob-dir'] as string | undefined,
      mergeReports: values['merge-reports'] as string | undefined,
    },
  );
}

import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import type { FlagSpecs } from './flags/flags.ts';
import { checkGate, GateSyntaxError } from './gate.ts';
import { planRun, settingsOf, type RunPlan } from './plan.ts';
import type { SuiteOf } from './types.ts';

/**
 * A suite's `toolgauge <suite>` command, declared in its folder (`command.ts`) and run by the command line
 * (harness/cli/suite-command.ts), which hands the folder's `run` a `CommandRunner`: a suite declares its flags, the
 * variables they stand for and its checks, and never imports the CLI (docs/adding-a-suite.md).
 */
export interface SuiteCommand<S> {
  /** The command name in messages (`toolhop`). */
  command: string;
  /** The suite: its settings are the command's `S`. */
  suite: SuiteOf<S>;
  /** The suite's own flags and the variable each stands for (the settings its `settings()` reads). */
  flags: FlagSpecs;
  env: Record<string, string>;
  /** Flags naming files that must exist. */
  files?: readonly string[];
  /** Those of `files` that must be a file, not a folder. */
  regularFiles?: readonly string[];
  /** The eval files to run (default: the suite's folder). */
  evalFiles?(settings: S): string[];
  /**
   * Checks beyond the settings' own (a simulator policy this suite has no behaviour for …), run by the launcher once a
   * `gguf:` model's engine is up and before the endpoint check. Throw UsageError. `values`: the command's flags.
   */
  validate?(plan: RunPlan, settings: S, values: Record<string, unknown>): void | Promise<void>;
  /** Run instead of the eval suites (e.g. `--smoke-dataset`); return an exit code, or undefined to go on. */
  instead?(plan: RunPlan, settings: S): Promise<number | undefined>;
  /** The endpoint check before the first request, when the suite's requests are not OpenAI chat completions. */
  preflight?(plan: RunPlan, settings: S): Promise<void>;
  /**
   * Where the CLI runs the instances: `thread`, a thread of its own process (one process fewer; for a suite whose
   * eval code starts no process of its own, never changes directory and needs no signals), or `fork` (the default), a
   * worker process. TOOLGAUGE_EVAL_WORKER overrides it. Plain Vitest always forks (vitest.config.ts).
   */
  worker?: 'thread' | 'fork';
  /** After the run (e.g. the reference `--out` file); `values`: the parsed flags. */
  after?(plan: RunPlan, settings: S, outDir: string, values: Record<string, unknown>): void;
}

/** What the command line gives a suite folder's command: the one way a suite command runs and checks a run. */
export interface CommandRunner {
  /** Everything `toolgauge <suite>` does: flags → plan → checks → the launcher → Vitest. Returns the exit code. */
  runSuite<S>(c: SuiteCommand<S>, argv: string[], baseEnv?: NodeJS.ProcessEnv): Promise<number>;
}

/** A suite folder's `command.ts`. */
export interface SuiteCommandModule {
  USAGE?: string;
  /** Every flag the command accepts: `--help` lists them after USAGE. */
  ACCEPTED_FLAGS?: FlagSpecs;
  run(argv: string[], runner: CommandRunner): Promise<number>;
}

/**
 * The checks every suite command makes before anything runs, on parsed flags and the settings source they were laid
 * into: files named by flags exist, the suite's settings parse, a simulator policy parses, a gate names only metrics
 * the suite reports. Each failure is one UsageError line (exit 2). `toolhop sweep` runs them on every cell.
 */
export function checkSuiteCommand<S>(
  c: Pick<SuiteCommand<S>, 'command' | 'suite' | 'files' | 'regularFiles'>,
  values: Record<string, unknown>,
  source: NodeJS.ProcessEnv,
): { plan: RunPlan; settings: S } {
  for (const f of c.files ?? []) {
    const v = values[f];
    if (typeof v === 'string' && !/^hf(:|$)/.test(v) && !existsSync(v))
      throw new UsageError(`toolgauge ${c.command}: --${f} '${v}' does not exist`);
    // A folder would fail in each test file that loads it, as harness errors, after the run has opened.
    if (typeof v === 'string' && c.regularFiles?.includes(f) && statSync(v, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`toolgauge ${c.command}: --${f} '${v}' is a folder; give a file`);
  }
  const plan = planRun(source, [c.suite], {
    filter: (values.filter as string | undefined) ?? null,
    sharded: Boolean(values.shard),
  });
  let settings: S;
  try {
    settings = settingsOf(plan, c.suite);
  } catch (err) {
    throw new UsageError(`toolgauge ${c.command}: ${(err as Error).message}`);
  }
  if (plan.run.usesSimulator) {
    try {
      parsePolicySpec(plan.run.model);
    } catch (err) {
      throw new UsageError(`toolgauge ${c.command}: --model ${(err as Error).message}`);
    }
  }
  if (plan.run.gate) {
    try {
      checkGate(plan.run.gate, c.suite.metricNames(settings));
    } catch (err) {
      if (err instanceof GateSyntaxError) throw new UsageError(`toolgauge ${c.command}: --gate: ${err.message}`);
      throw err;
    }
  }
  return { plan, settings };
}

import { z } from 'zod';
import { UsageError } from './errors.ts';
import { displayUrl, urlSecrets } from './endpoint-url.ts';
import { registerSecret } from './redact.ts';
import { type EngineFacts, ggufPathOf } from './engine-facts.ts';
import type { ModelProvenance } from './provenance.ts';

/**
 * The run configuration every suite shares, parsed from environment variables at the edge (the CLI turns flags into
 * these variables and then starts Vitest, so `toolgauge toolhop --limit 3` and `TOOLHOP_LIMIT=3 vitest run
 * suites/toolhop` are the same run). The global setup parses it once and hands it to the workers; library code
 * receives it as a value and never reads `process.env`. Each suite parses its own settings the same way.
 */

export const intFrom = (name: string, min = 0) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min, `${name} must be >= ${min}`);

/**
 * The longest delay a Node timer honours: setTimeout with more than 2^31−1 ms fires after 1 ms, so a larger
 * timeout would make every call "time out" at once. Every timeout and deadline is bounded by it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timeout in ms from an environment variable: a whole number from 1 to MAX_TIMER_MS. */
export const msFrom = (name: string) =>
  intFrom(name, 1).refine(
    (n) => n <= MAX_TIMER_MS,
    `${name} must be <= ${MAX_TIMER_MS} (the longest timer Node honours)`,
  );

/** A timeout in ms given as a number (library options, the sandbox socket's requests). */
export const timerMs = z
  .number()
  .int()
  .min(1)
  .max(MAX_TIMER_MS, `must be <= ${MAX_TIMER_MS} ms (the longest timer Node honours)`);

export const bool01 = z.enum(['0', '1', 'true', 'false', '']).transform((v) => v === '1' || v === 'true');

export const CacheMode = z.enum(['off', 'record', 'replay']);

/** Instances in flight at once (the test worker's `maxConcurrency` and the model client's limit) when nothing says. */
export const DEFAULT_CONCURRENCY = 4;
/** One instance's time limit (Vitest's `testTimeout`) when nothing says: a long agent run on a slow local model. */
export const DEFAULT_INSTANCE_TIMEOUT_MS = 1_800_000;
/** `auto` (default): pyodide, and the CPython backend for the rows whose imports pyodide cannot run. */
export const SandboxBackendName = z.enum(['auto', 'pyodide', 'python']);

/** The shared run settings, each with its one parser (a caller that needs a few of them picks them from here). */
export const EnvSchema = z.object({
  TOOLGAUGE_MODEL: z.string().min(1).default('sim:oracle'),
  OPENAI_BASE_URL: z.string().url('OPENAI_BASE_URL must be a URL').optional(),
  OPENAI_API_KEY: z.string().optional(),
  TOOLGAUGE_CONCURRENCY: intFrom('TOOLGAUGE_CONCURRENCY', 1).default(DEFAULT_CONCURRENCY),
  TOOLGAUGE_INSTANCE_TIMEOUT_MS: msFrom('TOOLGAUGE_INSTANCE_TIMEOUT_MS').default(DEFAULT_INSTANCE_TIMEOUT_MS),
  TOOLGAUGE_REQUEST_TIMEOUT_MS: msFrom('TOOLGAUGE_REQUEST_TIMEOUT_MS').optional(),
  TOOLGAUGE_RETRIES: intFrom('TOOLGAUGE_RETRIES').optional(),
  TOOLGAUGE_REQUEST_DEADLINE_MS: msFrom('TOOLGAUGE_REQUEST_DEADLINE_MS').optional(),
  TOOLGAUGE_CACHE: CacheMode.default('off'),
  TOOLGAUGE_CACHE_DIR: z.string().default('.cache/requests'),
  TOOLGAUGE_SEED: intFrom('TOOLGAUGE_SEED').default(0),
  TOOLGAUGE_TRIALS: intFrom('TOOLGAUGE_TRIALS', 1).default(1),
  TOOLGAUGE_TEMPERATURE: z.coerce.number().min(0).max(2).default(0),
  TOOLGAUGE_MAX_TOKENS: intFrom('TOOLGAUGE_MAX_TOKENS', 1).optional(),
  TOOLGAUGE_DATE: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'TOOLGAUGE_DATE must be YYYY-MM-DD')
    .default('2026-01-15'),
  TOOLGAUGE_OUT_DIR: z.string().optional(),
  TOOLGAUGE_RESUME: bool01.default(false),
  TOOLGAUGE_MAX_STORED_CHARS: intFrom('TOOLGAUGE_MAX_STORED_CHARS', 1000).default(100_000),
  TOOLGAUGE_MAX_TOOL_CALLS_PER_TURN: intFrom('TOOLGAUGE_MAX_TOOL_CALLS_PER_TURN', 1).default(32),
  TOOLGAUGE_GATE: z.string().optional(),
  TOOLGAUGE_MCP_CONFIG: z.string().optional(),
  TOOLGAUGE_SANDBOX: SandboxBackendName.default('auto'),
  // Where a suite command's instances run: `thread` (of the CLI's process) or `fork` (a worker process); unset: the
  // suite's own choice (harness/kit/command.ts, SuiteCommand.worker).
  TOOLGAUGE_EVAL_WORKER: z.enum(['thread', 'fork']).optional(),
  TOOLGAUGE_SANDBOX_POOL: intFrom('TOOLGAUGE_SANDBOX_POOL', 1).optional(),
  TOOLGAUGE_TOOL_TIMEOUT_MS: msFrom('TOOLGAUGE_TOOL_TIMEOUT_MS').default(10_000),
  TOOLGAUGE_PYTHON: z.string().default('/usr/bin/python3'),
  // 0 turns the sandbox's OS confinement off (debugging), and the pyodide memory snapshot.
  TOOLGAUGE_SANDBOX_CONFINE: bool01.default(true),
  TOOLGAUGE_SANDBOX_SNAPSHOT: bool01.default(true),
  TOOLGAUGE_SIM_URL: z.string().url().optional(),
  TOOLGAUGE_ENGINE_THREADS: intFrom('TOOLGAUGE_ENGINE_THREADS', 1).optional(),
  TOOLGAUGE_ENGINE_PARALLEL: intFrom('TOOLGAUGE_ENGINE_PARALLEL', 1).optional(),
  TOOLGAUGE_ENGINE_CTX: intFrom('TOOLGAUGE_ENGINE_CTX', 64).optional(),
  HF_HOME: z.string().optional(),
  // The hub cache's default place is under it (as huggingface_hub does) when HF_HOME is unset.
  XDG_CACHE_HOME: z.string().optional(),
  HF_TOKEN: z.string().optional(),
  TOOLGAUGE_MODEL_REVISION: z.string().min(1).optional(),
  HF_ENDPOINT: z.string().url().default('https://huggingface.co'),
  TOOLGAUGE_HF_TIMEOUT_MS: msFrom('TOOLGAUGE_HF_TIMEOUT_MS').default(300_000),
});

export type RunEnv = z.infer<typeof EnvSchema>;

export interface RunConfig {
  model: string;
  /**
   * Who the model is, by source: `--model-revision` and a `registry:` key from the plan (harness/kit/plan.ts), the
   * endpoint's models entry and a GGUF file's metadata from the launcher (harness/launch/provenance.ts).
   */
  provenance?: ModelProvenance;
  /** The endpoint; undefined means the built-in simulator (its URL is TOOLGAUGE_SIM_URL once started). */
  baseUrl: string | undefined;
  usesSimulator: boolean;
  /**
   * The endpoint said it is toolgauge's simulator (its models list is `owned_by: toolgauge-simulator`), whatever the
   * model's name: set by the launcher's endpoint check (harness/launch/open-run.ts).
   */
  endpointSimulated?: boolean;
  apiKey: string;
  concurrency: number;
  /** One instance (one trial) in all: Vitest's `testTimeout`. */
  instanceTimeoutMs: number;
  /** One attempt, headers and body. */
  requestTimeoutMs: number;
  /** All attempts of one request together, backoff included: past it the request fails for good. */
  requestDeadlineMs: number;
  retries: number;
  cache: z.infer<typeof CacheMode>;
  cacheDir: string;
  seed: number;
  trials: number;
  temperature: number;
  maxTokens: number | undefined;
  injectedDate: string;
  outDir: string | undefined;
  /**
   * A folder inside each describeEval eval's output directory that this run writes into: the model's own, set by
   * `toolgauge eval --model a,b` (one run per model, harness/cli/eval-models.ts); unset in every other run.
   */
  modelFolder?: string;
  /**
   * `outDir` is the parent of each describeEval eval's folder (`<outDir>/<eval name>/`) rather than the eval's own:
   * set for a run of several evals (docs/eval.md, "Several evals"), whose folders must not be one.
   */
  outDirHoldsEvals?: boolean;
  resume: boolean;
  gate: string | undefined;
  /** The file whose `mcpServers` a describeEval's `mcp({ server })` reads (a `--config` file that has them). */
  mcpConfig?: string;
  /** Where a suite command's instances run, when TOOLGAUGE_EVAL_WORKER chooses (else the suite's own choice). */
  evalWorker?: 'thread' | 'fork';
  /** Longest string stored in any output file (longer ones are cut with a marker and their length). */
  maxStoredChars: number;
  /** Tool calls run per model turn; further calls in the same turn are answered with an error, not run. */
  maxToolCallsPerTurn: number;
  sandbox: {
    backend: z.infer<typeof SandboxBackendName>;
    poolSize: number | undefined;
    toolTimeoutMs: number;
    pythonPath: string;
    confine: boolean;
    snapshot: boolean;
  };
  simUrl: string | undefined;
  /**
   * A `gguf:PATH` model: the local engine toolgauge starts for the run (its settings), and once it is up (or the
   * `--base-url` server serving the file answered) the facts the report header and the fingerprint name.
   */
  engine:
    | {
        threads: number | undefined;
        parallel: number | undefined;
        contextSize: number | undefined;
        facts: EngineFacts | undefined;
      }
    | undefined;
  hf: { home: string | undefined; token: string | undefined; endpoint: string; timeoutMs: number };
}

/**
 * Read the variables a zod object schema names from the environment (empty means unset); a bad value is a
 * one-line UsageError naming the variable and the value. Every suite's settings are read through this.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const r = schema.safeParse(picked);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const name = String(issue.path[0] ?? '');
    throw new UsageError(`${name}: ${issue.message}${picked[name] !== undefined ? ` (got '${picked[name]}')` : ''}`);
  }
  return r.data;
}

/** Parse the environment into the run configuration. */
export function readConfig(envIn: NodeJS.ProcessEnv): RunConfig {
  // The reference runner's variables are honoured: a user who set only MODEL_ID and VLLM_BASE_URL gets that endpoint.
  const env = {
    ...envIn,
    TOOLGAUGE_MODEL: envIn.TOOLGAUGE_MODEL || envIn.MODEL_ID,
    OPENAI_BASE_URL: envIn.OPENAI_BASE_URL || envIn.VLLM_BASE_URL,
  };
  const e = parseEnv(EnvSchema, env);
  const gguf = ggufPathOf(e.TOOLGAUGE_MODEL);
  if (gguf === '') throw new UsageError("TOOLGAUGE_MODEL 'gguf:' names no file: give gguf:PATH");
  // A gguf: model without an endpoint runs on a local engine the run starts (harness/serve/run-engine.ts).
  const usesSimulator = !e.OPENAI_BASE_URL && gguf === null;
  if (usesSimulator && !e.TOOLGAUGE_MODEL.startsWith('sim:')) {
    throw new UsageError(
      `TOOLGAUGE_MODEL '${e.TOOLGAUGE_MODEL}' needs an endpoint: pass --base-url (or OPENAI_BASE_URL), or use a sim:* or gguf:PATH model`,
    );
  }
  const cfg: RunConfig = {
    model: e.TOOLGAUGE_MODEL,
    ...(e.TOOLGAUGE_MODEL_REVISION ? { provenance: { revision: e.TOOLGAUGE_MODEL_REVISION } } : {}),
    baseUrl: e.OPENAI_BASE_URL,
    usesSimulator,
    apiKey: e.OPENAI_API_KEY ?? 'not-needed',
    concurrency: e.TOOLGAUGE_CONCURRENCY,
    instanceTimeoutMs: e.TOOLGAUGE_INSTANCE_TIMEOUT_MS,
    // A hung simulator response should cost seconds, a real model's long generation should not be cut short.
    // Endpoint limits: a long generation on a slow local model may take minutes, but one request never holds a
    // run for long — 300 s per attempt, 3 retries, 15 minutes in all (the simulator: 5 s, 5 retries, 60 s).
    requestTimeoutMs: e.TOOLGAUGE_REQUEST_TIMEOUT_MS ?? (usesSimulator ? 5_000 : 300_000),
    requestDeadlineMs: e.TOOLGAUGE_REQUEST_DEADLINE_MS ?? (usesSimulator ? 60_000 : 900_000),
    retries: e.TOOLGAUGE_RETRIES ?? (usesSimulator ? 5 : 3),
    cache: e.TOOLGAUGE_CACHE,
    cacheDir: e.TOOLGAUGE_CACHE_DIR,
    seed: e.TOOLGAUGE_SEED,
    trials: e.TOOLGAUGE_TRIALS,
    temperature: e.TOOLGAUGE_TEMPERATURE,
    maxTokens: e.TOOLGAUGE_MAX_TOKENS,
    injectedDate: e.TOOLGAUGE_DATE,
    outDir: e.TOOLGAUGE_OUT_DIR,
    resume: e.TOOLGAUGE_RESUME,
    maxStoredChars: e.TOOLGAUGE_MAX_STORED_CHARS,
    maxToolCallsPerTurn: e.TOOLGAUGE_MAX_TOOL_CALLS_PER_TURN,
    gate: e.TOOLGAUGE_GATE,
    ...(e.TOOLGAUGE_MCP_CONFIG ? { mcpConfig: e.TOOLGAUGE_MCP_CONFIG } : {}),
    ...(e.TOOLGAUGE_EVAL_WORKER ? { evalWorker: e.TOOLGAUGE_EVAL_WORKER } : {}),
    sandbox: {
      backend: e.TOOLGAUGE_SANDBOX,
      poolSize: e.TOOLGAUGE_SANDBOX_POOL,
      toolTimeoutMs: e.TOOLGAUGE_TOOL_TIMEOUT_MS,
      pythonPath: e.TOOLGAUGE_PYTHON,
      confine: e.TOOLGAUGE_SANDBOX_CONFINE,
      snapshot: e.TOOLGAUGE_SANDBOX_SNAPSHOT,
    },
    simUrl: e.TOOLGAUGE_SIM_URL,
    engine:
      gguf === null
        ? undefined
        : {
            threads: e.TOOLGAUGE_ENGINE_THREADS,
            parallel: e.TOOLGAUGE_ENGINE_PARALLEL,
            contextSize: e.TOOLGAUGE_ENGINE_CTX,
            // set by the launcher once the engine is up (harness/launch/open-run.ts)
            facts: undefined,
          },
    hf: {
      home: e.HF_HOME ?? (e.XDG_CACHE_HOME ? `${e.XDG_CACHE_HOME}/huggingface` : undefined),
      token: e.HF_TOKEN,
      endpoint: e.HF_ENDPOINT,
      timeoutMs: e.TOOLGAUGE_HF_TIMEOUT_MS,
    },
  };
  registerRunSecrets(cfg);
  return cfg;
}

/** Register the run's secrets for redaction (each process that handles the config: CLI, setup, workers). */
export function registerRunSecrets(cfg: RunConfig): void {
  if (cfg.apiKey !== 'not-needed') registerSecret(cfg.apiKey);
  registerSecret(cfg.hf.token);
  for (const s of urlSecrets(cfg.baseUrl)) registerSecret(s);
}

/** The endpoint URL as stored in reports: no credentials, no query values (core/endpoint-url.ts). */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  try {
    return displayUrl(url);
  } catch {
    return '<unparseable url>';
  }
}

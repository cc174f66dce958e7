import { z } from 'zod';
import { UsageError } from './errors.ts';

/**
 * The run configuration, read from the environment. The CLI turns flags into these variables and then starts
 * Vitest, so `toolgauge toolhop --limit 3` and `TOOLHOP_LIMIT=3 vitest run suites/toolhop` are the same run;
 * test files, the global setup and the reporters all read the same values through `readConfig()`.
 */

const intFrom = (name: string, min = 0) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min, `${name} must be >= ${min}`);

const bool01 = z.enum(['0', '1', 'true', 'false', '']).transform((v) => v === '1' || v === 'true');

export const Topology = z.enum(['single', 'independent', 'decentralized', 'centralized', 'sequential']);
export const CacheMode = z.enum(['off', 'record', 'replay']);
export const SandboxBackendName = z.enum(['pyodide', 'python']);

const EnvSchema = z.object({
  TOOLGAUGE_MODEL: z.string().min(1).default('sim:oracle'),
  OPENAI_BASE_URL: z.string().url('OPENAI_BASE_URL must be a URL').optional(),
  OPENAI_API_KEY: z.string().optional(),
  TOOLGAUGE_CONCURRENCY: intFrom('TOOLGAUGE_CONCURRENCY', 1).optional(),
  TOOLGAUGE_REQUEST_TIMEOUT_MS: intFrom('TOOLGAUGE_REQUEST_TIMEOUT_MS', 1).optional(),
  TOOLGAUGE_RETRIES: intFrom('TOOLGAUGE_RETRIES').default(5),
  TOOLGAUGE_CACHE: CacheMode.default('off'),
  TOOLGAUGE_CACHE_DIR: z.string().default('.cache/requests'),
  TOOLGAUGE_SEED: intFrom('TOOLGAUGE_SEED').default(0),
  TOOLGAUGE_TRIALS: intFrom('TOOLGAUGE_TRIALS', 1).default(1),
  TOOLGAUGE_TEMPERATURE: z.coerce.number().min(0).max(2).default(0),
  TOOLGAUGE_MAX_TOKENS: intFrom('TOOLGAUGE_MAX_TOKENS', 1).optional(),
  TOOLGAUGE_DATE: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'TOOLGAUGE_DATE must be YYYY-MM-DD').default('2026-01-15'),
  TOOLGAUGE_OUT_DIR: z.string().optional(),
  TOOLGAUGE_RESUME: bool01.default(false),
  TOOLGAUGE_GATE: z.string().optional(),
  TOOLGAUGE_SANDBOX: SandboxBackendName.default('pyodide'),
  TOOLGAUGE_SANDBOX_POOL: intFrom('TOOLGAUGE_SANDBOX_POOL', 1).optional(),
  TOOLGAUGE_TOOL_TIMEOUT_MS: intFrom('TOOLGAUGE_TOOL_TIMEOUT_MS', 1).default(10_000),
  TOOLGAUGE_PYTHON: z.string().default('/usr/bin/python3'),
  TOOLGAUGE_SIM_URL: z.string().url().optional(),
  TOOLHOP_DATA: z.string().optional(),
  TOOLHOP_REVISION: z.string().default('main'),
  TOOLHOP_LIMIT: intFrom('TOOLHOP_LIMIT').default(5),
  TOOLHOP_OFFSET: intFrom('TOOLHOP_OFFSET').default(0),
  TOOLHOP_ONLY: z.string().optional(),
  TOOLHOP_MAX_TURNS: intFrom('TOOLHOP_MAX_TURNS', 1).default(9),
  TOOLHOP_TOOL_RESULT_CHAR_BUDGET: intFrom('TOOLHOP_TOOL_RESULT_CHAR_BUDGET', 1).default(6000),
  TOOLHOP_ALLOW_DATASET_EXEC: z.string().optional(),
  TOOLHOP_TOPOLOGY: Topology.default('single'),
  TOOLHOP_TEAM_SIZE: intFrom('TOOLHOP_TEAM_SIZE', 1).optional(),
  TOOLHOP_ROUNDS: intFrom('TOOLHOP_ROUNDS', 1).default(2),
  TOOLHOP_SMOKE_DATASET: bool01.default(false),
  HF_HOME: z.string().optional(),
  HF_TOKEN: z.string().optional(),
  HF_ENDPOINT: z.string().url().default('https://huggingface.co'),
});

export type RunEnv = z.infer<typeof EnvSchema>;

export interface RunConfig {
  model: string;
  /** The endpoint; undefined means the built-in simulator (its URL is TOOLGAUGE_SIM_URL once started). */
  baseUrl: string | undefined;
  usesSimulator: boolean;
  apiKey: string;
  concurrency: number;
  requestTimeoutMs: number;
  retries: number;
  cache: z.infer<typeof CacheMode>;
  cacheDir: string;
  seed: number;
  trials: number;
  temperature: number;
  maxTokens: number | undefined;
  injectedDate: string;
  outDir: string | undefined;
  resume: boolean;
  gate: string | undefined;
  sandbox: { backend: z.infer<typeof SandboxBackendName>; poolSize: number | undefined; toolTimeoutMs: number; pythonPath: string };
  simUrl: string | undefined;
  toolhop: {
    data: string | undefined;
    revision: string;
    limit: number;
    offset: number;
    only: string[] | undefined;
    maxTurns: number;
    toolResultCharBudget: number;
    allowDatasetExec: boolean;
    topology: z.infer<typeof Topology>;
    teamSize: number | undefined;
    rounds: number;
    smokeDataset: boolean;
  };
  hf: { home: string | undefined; token: string | undefined; endpoint: string };
}

/**
 * Read the variables a zod object schema names from the environment (empty means unset); a bad value is a
 * one-line UsageError naming the variable and the value. Every suite's settings are read through this.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
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
export function readConfig(env: NodeJS.ProcessEnv = process.env): RunConfig {
  const e = parseEnv(EnvSchema, env);
  const usesSimulator = !e.OPENAI_BASE_URL;
  if (usesSimulator && !e.TOOLGAUGE_MODEL.startsWith('sim:')) {
    throw new UsageError(
      `TOOLGAUGE_MODEL '${e.TOOLGAUGE_MODEL}' needs an endpoint: pass --base-url (or OPENAI_BASE_URL), or use a sim:* model`,
    );
  }
  return {
    model: e.TOOLGAUGE_MODEL,
    baseUrl: e.OPENAI_BASE_URL,
    usesSimulator,
    apiKey: e.OPENAI_API_KEY ?? 'not-needed',
    concurrency: e.TOOLGAUGE_CONCURRENCY ?? 4,
    // A hung simulator response should cost seconds, a real model's long generation should not be cut short.
    requestTimeoutMs: e.TOOLGAUGE_REQUEST_TIMEOUT_MS ?? (usesSimulator ? 5_000 : 600_000),
    retries: e.TOOLGAUGE_RETRIES,
    cache: e.TOOLGAUGE_CACHE,
    cacheDir: e.TOOLGAUGE_CACHE_DIR,
    seed: e.TOOLGAUGE_SEED,
    trials: e.TOOLGAUGE_TRIALS,
    temperature: e.TOOLGAUGE_TEMPERATURE,
    maxTokens: e.TOOLGAUGE_MAX_TOKENS,
    injectedDate: e.TOOLGAUGE_DATE,
    outDir: e.TOOLGAUGE_OUT_DIR,
    resume: e.TOOLGAUGE_RESUME,
    gate: e.TOOLGAUGE_GATE,
    sandbox: {
      backend: e.TOOLGAUGE_SANDBOX,
      poolSize: e.TOOLGAUGE_SANDBOX_POOL,
      toolTimeoutMs: e.TOOLGAUGE_TOOL_TIMEOUT_MS,
      pythonPath: e.TOOLGAUGE_PYTHON,
    },
    simUrl: e.TOOLGAUGE_SIM_URL,
    toolhop: {
      data: e.TOOLHOP_DATA,
      revision: e.TOOLHOP_REVISION,
      limit: e.TOOLHOP_LIMIT,
      offset: e.TOOLHOP_OFFSET,
      only: e.TOOLHOP_ONLY?.split(',').map((s) => s.trim()).filter(Boolean),
      maxTurns: e.TOOLHOP_MAX_TURNS,
      toolResultCharBudget: e.TOOLHOP_TOOL_RESULT_CHAR_BUDGET,
      allowDatasetExec: e.TOOLHOP_ALLOW_DATASET_EXEC === '1',
      topology: e.TOOLHOP_TOPOLOGY,
      teamSize: e.TOOLHOP_TEAM_SIZE,
      rounds: e.TOOLHOP_ROUNDS,
      smokeDataset: e.TOOLHOP_SMOKE_DATASET,
    },
    hf: { home: e.HF_HOME, token: e.HF_TOKEN, endpoint: e.HF_ENDPOINT },
  };
}

/** The endpoint URL with credentials stripped, for reports. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const k of [...u.searchParams.keys()]) if (/key|token|secret|auth/i.test(k)) u.searchParams.set(k, 'REDACTED');
    return u.toString();
  } catch {
    return '<unparseable url>';
  }
}

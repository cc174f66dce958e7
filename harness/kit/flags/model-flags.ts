import { z } from 'zod';
import { flagSchemas, type FlagSpecs } from './flags.ts';

/** `--shard i/n` as its flag parses it: shard `index` (from 1) of `count`, and `text`, the `i/n` Vitest takes. */
export interface Shard {
  index: number;
  count: number;
  text: string;
}

/** Flags every suite command shares; each maps onto one environment variable of harness/core/config.ts. */
export const MODEL_FLAGS: FlagSpecs = {
  model: {
    type: 'string',
    // An empty value (an unset variable in `--model "$MODEL"`) would run the simulator's default, and pass a gate.
    schema: z.string().refine((s) => s.trim() !== '', 'must not be empty (leave the flag out for the simulator)'),
    description:
      'model id, sim:<policy>[?opts] for the built-in simulator, gguf:PATH, or registry:KEY (docs/models.md)',
  },
  'model-revision': {
    type: 'string',
    schema: z.string().min(1),
    description: "the model's revision as you know it (recorded in the header's model_provenance, not checked)",
  },
  'base-url': {
    type: 'string',
    schema: z.string().url('must be a URL'),
    description: 'OpenAI-compatible endpoint (omit for the simulator)',
  },
  concurrency: { type: 'string', schema: flagSchemas.positiveInt, description: 'requests in flight at once' },
  'request-timeout': {
    type: 'string',
    schema: flagSchemas.timeoutMs,
    description: 'ms per request attempt (default 300000; simulator 5000)',
  },
  'request-deadline': {
    type: 'string',
    schema: flagSchemas.timeoutMs,
    description: 'ms for all attempts of one request (default 900000)',
  },
  retries: { type: 'string', schema: flagSchemas.nonNegativeInt, description: 'retries on 429/5xx/timeouts' },
  cache: { type: 'string', values: ['off', 'record', 'replay'], description: 'request cache mode' },
  'cache-dir': { type: 'string', description: 'where the request cache lives' },
  seed: { type: 'string', schema: flagSchemas.nonNegativeInt, description: 'the run seed (trial t sends seed + t)' },
  trials: { type: 'string', schema: flagSchemas.positiveInt, description: 'runs per instance (averaged per instance)' },
  temperature: { type: 'string', schema: z.coerce.number().min(0).max(2), description: 'sampling temperature, 0 to 2' },
  'max-tokens': { type: 'string', schema: flagSchemas.positiveInt, description: 'max_tokens of each request' },
  'out-dir': { type: 'string', description: 'the output directory (default results/<suite>/…)' },
  resume: { type: 'boolean', description: 'skip instances already in the output files' },
  gate: { type: 'string', schema: flagSchemas.gate, description: 'e.g. "accuracy.lo>=0.4,accuracy>=0.5"' },
  shard: {
    type: 'string',
    // Vitest's own refusal of 0/2 or 3/2 is a stack trace: the flag's is one line. Parsed here, once: its value is a Shard.
    schema: z
      .string()
      .regex(/^\d+\/\d+$/, 'must be i/n')
      .transform((s): Shard => {
        const [index, count] = s.split('/').map(Number) as [number, number];
        return { index, count, text: `${index}/${count}` };
      })
      .refine((s) => s.index >= 1 && s.index <= s.count, 'must be i/n with 1 <= i <= n'),
    description: 'run shard i of n (Vitest --shard)',
  },
  'blob-dir': { type: 'string', description: "with --shard: also write the shard's Vitest blob report here" },
  'merge-reports': { type: 'string', description: 'aggregate the blob reports in DIR instead of running' },
  filter: { type: 'string', short: 't', description: 'only tests whose name matches (Vitest -t)' },
  'print-report': { type: 'boolean', description: 'print report.md at the end' },
  date: { type: 'string', description: 'injected date YYYY-MM-DD' },
  smoke: {
    type: 'boolean',
    description: 'before the run, ask the endpoint for one tool call; stop (exit 2) if it cannot make one',
  },
};

const ENV_OF: Record<string, string> = {
  model: 'TOOLGAUGE_MODEL',
  'model-revision': 'TOOLGAUGE_MODEL_REVISION',
  'base-url': 'OPENAI_BASE_URL',
  concurrency: 'TOOLGAUGE_CONCURRENCY',
  'request-timeout': 'TOOLGAUGE_REQUEST_TIMEOUT_MS',
  'request-deadline': 'TOOLGAUGE_REQUEST_DEADLINE_MS',
  retries: 'TOOLGAUGE_RETRIES',
  cache: 'TOOLGAUGE_CACHE',
  'cache-dir': 'TOOLGAUGE_CACHE_DIR',
  seed: 'TOOLGAUGE_SEED',
  trials: 'TOOLGAUGE_TRIALS',
  temperature: 'TOOLGAUGE_TEMPERATURE',
  'max-tokens': 'TOOLGAUGE_MAX_TOKENS',
  'out-dir': 'TOOLGAUGE_OUT_DIR',
  resume: 'TOOLGAUGE_RESUME',
  gate: 'TOOLGAUGE_GATE',
  date: 'TOOLGAUGE_DATE',
};

/**
 * The run's settings source: the environment with the parsed flags laid over it as the variables they stand for
 * (the shared ones above, and a suite's own mapping). A new value, never the environment itself: the run's plan is
 * built from it once (harness/kit/plan.ts), so `toolgauge toolhop --limit 3` and `TOOLHOP_LIMIT=3 vitest run` plan
 * the same run.
 */
export function settingsSource(
  env: NodeJS.ProcessEnv,
  values: Record<string, unknown>,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const map = { ...ENV_OF, ...extra };
  for (const [flag, v] of Object.entries(values)) {
    const name = map[flag];
    if (!name || v === undefined) continue;
    // A repeated flag (`--only 1 --only 2`) and a comma list (`--only 1,2`) mean the same.
    out[name] = typeof v === 'boolean' ? (v ? '1' : '0') : Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

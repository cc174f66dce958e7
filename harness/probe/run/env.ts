import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BUILTIN_METHODS } from '../../methods/registry.ts';
import { sha256File } from '../../core/hash.ts';
import { z } from 'zod';
import { intFrom, parseEnv } from '../../core/config.ts';
import { DataError, UsageError } from '../../core/errors.ts';
import { checkGgufQuant, ensureTestModel, ggufPathOf, withGgufQuantization } from './gguf-lineup.ts';
import { testModelDirOf } from '../../calls/registry/registry.ts';
import { fromRoot } from '../../core/paths.ts';
import { registerSecret } from '../../core/redact.ts';
import { SERVERS, type Server } from '../../constrain/requests.ts';
import { FAMILIES, type Family } from '../../parse/index.ts';
import type { ProbeCase } from '../cases/types.ts';
import { lineupFromModels, parseLineup, type LineupEntry } from '../../calls/lineup/lineup.ts';
import { checkKeyEnv, templateInLineupFolder } from '../../calls/lineup/lineup-limits.ts';

/**
 * The probe suite's own settings, from the environment (the CLI turns flags into these; plain `vitest run
 * suites/probe` reads the same). Kept apart from harness/core/config.ts, which holds what every suite shares.
 *
 * The axes (decode, method, model) are instance dimensions of one run: every case runs once per arm, so paired
 * comparisons between arms share their cases.
 */

export const TRANSPORTS = ['chat', 'completions'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export const SPLITS = ['dev', 'test', 'all'] as const;
/**
 * `constrained`: a trigger-gated call grammar (the model may still answer in prose); `required`: the call grammar binds
 * the output from its first token (llama.cpp's grammar without `grammar_lazy`, what `tool_choice: required` does), so
 * every output is a call — abstention cases included.
 */
export const DECODES = ['free', 'constrained', 'required'] as const;
export type Decode = (typeof DECODES)[number];
/** The built-in methods; `--method-module FILE` adds one (harness/methods/registry.ts). */
export const METHODS = BUILTIN_METHODS;
/** A built-in method's name, or a user method's (registered from `--method-module`). */
export type MethodName = string;

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);
const enumList = <T extends string>(name: string, values: readonly T[]) =>
  list.pipe(
    z
      .array(
        z.enum(values as unknown as [T, ...T[]], { message: `${name} takes ${values.join(', ')} (comma-separated)` }),
      )
      .min(1)
      .refine((xs) => new Set(xs).size === xs.length, `${name} names a value twice`),
  );

/** What the CLI learnt from an endpoint (server kind and version, model revision, template, tokenizer). */
export const EndpointIdentitySchema = z.object({
  server: z.enum(SERVERS).nullable(),
  server_version: z.string().nullable(),
  model_revision: z.string().nullable(),
  template_sha256: z.string().nullable(),
  tokenizer: z.string().nullable(),
  /** Where each field came from (`GET /version`, `GET /props`, `GET /v1/models` …). */
  sources: z.array(z.string()),
});
export type EndpointIdentity = z.infer<typeof EndpointIdentitySchema>;

const ProbeEnvSchema = z.object({
  TOOLGAUGE_PROBE_CASES: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_TOOLS: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_TRANSPORT: z.enum(TRANSPORTS).default('chat'),
  TOOLGAUGE_PROBE_TEMPLATE: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_FAMILY: z.enum(['auto', ...FAMILIES]).default('auto'),
  TOOLGAUGE_PROBE_SPLIT: z.enum(SPLITS).default('all'),
  TOOLGAUGE_PROBE_ONLY: list.optional(),
  TOOLGAUGE_PROBE_CATEGORIES: list.optional(),
  TOOLGAUGE_PROBE_DECODE: enumList('TOOLGAUGE_PROBE_DECODE', DECODES).default(['free']),
  TOOLGAUGE_PROBE_METHOD: list
    .pipe(
      z
        .array(
          z.string().regex(/^[A-Za-z0-9_-]+$/, 'TOOLGAUGE_PROBE_METHOD: method names use letters, digits, - and _'),
        )
        .min(1)
        .refine((xs) => new Set(xs).size === xs.length, 'TOOLGAUGE_PROBE_METHOD names a value twice'),
    )
    .default(['baseline']),
  /** `--method-module FILE`: a module registering a method `--method` names (harness/methods/registry.ts). */
  TOOLGAUGE_PROBE_METHOD_MODULE: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_SERVER: z.enum(['auto', ...SERVERS]).default('auto'),
  TOOLGAUGE_PROBE_MAX_STRING_LENGTH: intFrom('TOOLGAUGE_PROBE_MAX_STRING_LENGTH', 1).optional(),
  TOOLGAUGE_PROBE_TOP_P: z.coerce
    .number()
    .gt(0, 'TOOLGAUGE_PROBE_TOP_P must be in (0, 1]')
    .max(1, 'TOOLGAUGE_PROBE_TOP_P must be in (0, 1]')
    .optional(),
  TOOLGAUGE_PROBE_MODELS: list.optional(),
  TOOLGAUGE_PROBE_LINEUP: z.string().min(1).optional(),
  /** Variables a lineup's `api_key_env` may name besides `*_API_KEY` (harness/calls/lineup/lineup-limits.ts). */
  TOOLGAUGE_PROBE_ALLOW_ENV: list.optional(),
  TOOLGAUGE_PROBE_LABEL: z
    .string()
    .regex(/^[\w.:+-]+$/, 'labels use letters, digits and . : + - _')
    .optional(),
  TOOLGAUGE_PROBE_QUANTIZATION: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_QUANTIZATION_OF: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_TOKENIZER: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_PA_TOOL_SAMPLES: intFrom('TOOLGAUGE_PROBE_PA_TOOL_SAMPLES', 2).optional(),
  /** Internal: endpoint identities the CLI read before the run (JSON, label → identity). */
  TOOLGAUGE_PROBE_ENDPOINTS: z.string().optional(),
  // Set by the CLI for the extra gguf: entries of a lineup (label → the URL of the server it started for each).
  TOOLGAUGE_PROBE_GGUF_URLS: z.string().optional(),
});

/** One model of the run: the run's own (`--model`), each of `--model a,b,c`, or each entry of `--lineup FILE`. */
export interface ModelEntry {
  label: string;
  model: string;
  /** Undefined: the run's endpoint (or the simulator). */
  baseUrl: string | undefined;
  /** The name of the variable holding this endpoint's key (read at the edge, into `apiKeys`). */
  apiKeyEnv: string | undefined;
  template: string | undefined;
  family: Family | undefined;
  server: Server | undefined;
  quantization: string | undefined;
  quantizationOf: string | undefined;
  /** The registry key the entry came from, the type the local engine must run, the repository and its revision. */
  registry?: string;
  quant?: string;
  repo?: string;
  revision?: string;
}

export interface ProbeSettings {
  casesFile: string;
  /** Explicit palette; undefined = tools.yaml / tools.json beside the cases file. */
  toolsFile: string | undefined;
  transport: Transport;
  /** The chat template: rendered by toolgauge (completions) or naming the server's template (chat). */
  templateFile: string | undefined;
  /** Parser family override; 'auto' = from the template, else auto-detection. */
  family: Family | 'auto';
  split: (typeof SPLITS)[number];
  only: string[] | undefined;
  categories: string[] | undefined;
  /** The axes: each value is an arm; the first value of each is the reference arm. */
  decode: Decode[];
  methods: MethodName[];
  /** `--method-module FILE`, absolute: the module registering the methods `methods` names beyond the built-in ones. */
  methodModule: string | undefined;
  /** How to constrain (`auto`: the server the CLI detected, on the simulator the transport's default). */
  server: Server | 'auto';
  maxStringLength: number | undefined;
  topP: number | undefined;
  /** The models of the run, in order (one entry for a plain run: the run's `--model`). */
  models: ModelEntry[];
  /** `--lineup FILE`, when the models came from one. */
  lineupFile: string | undefined;
  /** A plain run's own label and quantization (what `report --compare` checks). */
  label: string | undefined;
  quantization: string | undefined;
  quantizationOf: string | undefined;
  /** The tokenizer's identity: a file's sha256 or the string given. */
  tokenizer: string | undefined;
  paToolSamples: number | undefined;
  endpoints: Record<string, EndpointIdentity>;
  /** API keys of lineup entries (label → key), read at the edge; never written anywhere. */
  apiKeys: Record<string, string>;
}

export const DEFAULT_CASES = 'cases/probe/cases.jsonl';

const labelOf = (model: string) => model.replace(/[^\w.:+-]+/g, '_');

function modelsOf(
  e: z.infer<typeof ProbeEnvSchema>,
  runModel: string,
  env: NodeJS.ProcessEnv,
): { models: ModelEntry[]; lineupFile: string | undefined } {
  const fromEntry = (m: LineupEntry): ModelEntry => ({
    label: m.label,
    model: m.model,
    baseUrl: m.base_url,
    apiKeyEnv: m.api_key_env,
    template: m.template,
    family: m.family,
    server: m.server,
    quantization: m.quantization,
    quantizationOf: m.quantization_of,
    ...(m.registry !== undefined ? { registry: m.registry } : {}),
    ...(m.quant !== undefined ? { quant: m.quant } : {}),
    ...(m.repo !== undefined ? { repo: m.repo } : {}),
    ...(m.revision !== undefined ? { revision: m.revision } : {}),
  });
  if (e.TOOLGAUGE_PROBE_LINEUP && e.TOOLGAUGE_PROBE_MODELS)
    throw new UsageError('give --lineup FILE or --model a,b,c, not both');
  if (e.TOOLGAUGE_PROBE_LINEUP) {
    const file = e.TOOLGAUGE_PROBE_LINEUP;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(
        `--lineup '${file}': cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    let entries: LineupEntry[];
    try {
      entries = parseLineup(text, file, { testModelDir: testModelDirOf(env) }).models;
      // Registry test models: written once (the same seed and type is the same file), before any header is read.
      for (const m of entries) if (m.test_model) ensureTestModel(m.test_model);
    } catch (err) {
      if (err instanceof DataError) throw new UsageError(`--lineup: ${err.message}`);
      throw err;
    }
    // A lineup is trusted input, but the variables it may send and the files it may read are limited.
    const allowed = e.TOOLGAUGE_PROBE_ALLOW_ENV ?? [];
    const models = entries.map((m, i) => {
      const where = `${file}: models[${i}]`;
      if (m.api_key_env) checkKeyEnv(m.api_key_env, where, allowed);
      return fromEntry(m.template ? { ...m, template: templateInLineupFolder(m.template, file, where) } : m);
    });
    return { models, lineupFile: file };
  }
  if (e.TOOLGAUGE_PROBE_MODELS && e.TOOLGAUGE_PROBE_MODELS.length > 1) {
    const labels = e.TOOLGAUGE_PROBE_MODELS.map(labelOf);
    const dup = labels.find((x, i) => labels.indexOf(x) !== i);
    if (dup) throw new UsageError(`--model names '${dup}' twice`);
    const l = lineupFromModels(e.TOOLGAUGE_PROBE_MODELS);
    return { models: l.models.map(fromEntry), lineupFile: undefined };
  }
  const model = e.TOOLGAUGE_PROBE_MODELS?.[0] ?? runModel;
  return {
    models: [
      {
        label: e.TOOLGAUGE_PROBE_LABEL ?? labelOf(model),
        model,
        baseUrl: undefined,
        apiKeyEnv: undefined,
        template: undefined,
        family: undefined,
        server: undefined,
        quantization: e.TOOLGAUGE_PROBE_QUANTIZATION,
        quantizationOf: e.TOOLGAUGE_PROBE_QUANTIZATION_OF,
      },
    ],
    lineupFile: undefined,
  };
}

function endpointsOf(raw: string | undefined): Record<string, EndpointIdentity> {
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new UsageError('TOOLGAUGE_PROBE_ENDPOINTS: not valid JSON (it is set by the CLI; unset it)');
  }
  const r = z.record(z.string(), EndpointIdentitySchema).safeParse(json);
  if (!r.success)
    throw new UsageError(
      `TOOLGAUGE_PROBE_ENDPOINTS: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message} (it is set by the CLI; unset it)`,
    );
  return r.data;
}

/** `--tokenizer`: a file (tokenizer.json, tokenizer.model) is identified by its sha256, anything else as given. */
function tokenizerId(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  return existsSync(v) && statSync(v).isFile() ? `sha256:${sha256File(v)}` : v;
}

/** The servers the CLI started for a lineup's gguf: entries, by label. */
function ggufUrlsOf(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const r = z.record(z.string(), z.string().url()).safeParse(
    (() => {
      try {
        return JSON.parse(raw);
      } catch {
        return null;
      }
    })(),
  );
  if (!r.success)
    throw new UsageError('TOOLGAUGE_PROBE_GGUF_URLS: not a JSON object of URLs (it is set by the CLI; unset it)');
  return r.data;
}

/** gguf: entries: their weight type and quantization pairing from the files, the server the CLI started for each extra one. */
function withGguf(models: ModelEntry[], urls: Record<string, string>): ModelEntry[] {
  if (!models.some((m) => ggufPathOf(m.model) !== null)) return models;
  let out: ModelEntry[];
  try {
    for (const m of models) checkGgufQuant(m);
    out = models.length > 1 ? withGgufQuantization(models) : models;
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`--model gguf: ${err.message}`);
    throw err;
  }
  return out.map((m) => (urls[m.label] && m.baseUrl === undefined ? { ...m, baseUrl: urls[m.label] } : m));
}

/** `--method`: built-in names, or others when `--method-module` may register them (checked once it is loaded). */
function checkedMethods(names: string[], module: string | undefined): MethodName[] {
  const own = names.filter((n) => !(METHODS as readonly string[]).includes(n));
  if (own.length && module === undefined)
    throw new UsageError(
      `--method: '${own[0]}' is not one of ${METHODS.join(', ')} (another method comes with --method-module FILE)`,
    );
  if (module !== undefined && own.length === 0)
    throw new UsageError('--method-module: name the method it registers in --method (e.g. --method baseline,NAME)');
  return names;
}

export function readProbeEnv(env: NodeJS.ProcessEnv, runModel = 'sim:oracle'): ProbeSettings {
  const e = parseEnv(ProbeEnvSchema, env);
  const read = modelsOf(e, runModel, env);
  const lineupFile = read.lineupFile;
  const models = withGguf(read.models, ggufUrlsOf(e.TOOLGAUGE_PROBE_GGUF_URLS));
  const apiKeys: Record<string, string> = {};
  for (const m of models) {
    if (!m.apiKeyEnv) continue;
    const key = env[m.apiKeyEnv];
    if (!key) throw new UsageError(`--lineup: entry '${m.label}' names api_key_env ${m.apiKeyEnv}, which is not set`);
    registerSecret(key);
    apiKeys[m.label] = key;
  }
  return {
    casesFile: e.TOOLGAUGE_PROBE_CASES ?? fromRoot(DEFAULT_CASES),
    toolsFile: e.TOOLGAUGE_PROBE_TOOLS,
    transport: e.TOOLGAUGE_PROBE_TRANSPORT,
    templateFile: e.TOOLGAUGE_PROBE_TEMPLATE,
    family: e.TOOLGAUGE_PROBE_FAMILY,
    split: e.TOOLGAUGE_PROBE_SPLIT,
    only: e.TOOLGAUGE_PROBE_ONLY,
    categories: e.TOOLGAUGE_PROBE_CATEGORIES,
    decode: e.TOOLGAUGE_PROBE_DECODE,
    methods: checkedMethods(e.TOOLGAUGE_PROBE_METHOD, e.TOOLGAUGE_PROBE_METHOD_MODULE),
    methodModule: e.TOOLGAUGE_PROBE_METHOD_MODULE === undefined ? undefined : resolve(e.TOOLGAUGE_PROBE_METHOD_MODULE),
    server: e.TOOLGAUGE_PROBE_SERVER,
    maxStringLength: e.TOOLGAUGE_PROBE_MAX_STRING_LENGTH,
    topP: e.TOOLGAUGE_PROBE_TOP_P,
    models,
    lineupFile,
    label: e.TOOLGAUGE_PROBE_LABEL,
    quantization: e.TOOLGAUGE_PROBE_QUANTIZATION,
    quantizationOf: e.TOOLGAUGE_PROBE_QUANTIZATION_OF,
    tokenizer: tokenizerId(e.TOOLGAUGE_PROBE_TOKENIZER),
    paToolSamples: e.TOOLGAUGE_PROBE_PA_TOOL_SAMPLES,
    endpoints: endpointsOf(e.TOOLGAUGE_PROBE_ENDPOINTS),
    apiKeys,
  };
}

/** The cases a run covers: split, then `--categories`, then `--only`. */
export function selectCases(
  cases: readonly ProbeCase[],
  s: Pick<ProbeSettings, 'split' | 'only' | 'categories'>,
): ProbeCase[] {
  const cats = s.categories ? new Set(s.categories.map((c) => c.toUpperCase())) : null;
  const only = s.only ? new Set(s.only) : null;
  return cases.filter(
    (c) =>
      (s.split === 'all' || c.split === s.split) &&
      (!cats || cats.has(c.cat.toUpperCase())) &&
      (!only || only.has(c.id)),
  );
}

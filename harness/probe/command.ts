import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { DataError, UsageError } from '../core/errors.ts';
import { phrasingInventory } from './cases/generate.ts';
import { lintCases } from './cases/lint.ts';
import { loadCases } from './cases/load.ts';
import { FAMILIES } from '../parse/index.ts';
import { SERVERS } from '../constrain/requests.ts';
import { parseLineup } from '../calls/lineup/lineup.ts';
import { testModelDirOf } from '../calls/registry/registry.ts';
import { checkAxes, onSimulator } from './run/arms.ts';
import { fetchEndpointIdentity } from './run/endpoint.ts';
import { API_KEY_ENV } from '../calls/lineup/lineup-limits.ts';
import {
  DECODES,
  METHODS,
  readProbeEnv,
  selectCases,
  SPLITS,
  TRANSPORTS,
  type EndpointIdentity,
  type ProbeSettings,
} from './run/env.ts';
import { templateOf } from './suite.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../kit/flags/flags.ts';
import { MODEL_FLAGS, settingsSource } from '../kit/flags/model-flags.ts';
import type { CommandRunner } from '../kit/command.ts';
import { applyConfig, type ConfigOptions } from '../kit/flags/config-file.ts';
import { startLineupEngines, type LineupEngines } from './run/lineup-engines.ts';
import { userMethod } from './run/user-method.ts';
import { ggufPathOf } from './run/gguf-lineup.ts';
import { probeSuite } from './suite.ts';

// toolgauge probe [--cases FILE] [--tools FILE] [--transport chat|completions] [--template FILE] [--split dev|test|all]
//                 [--family NAME] [--only ID,ID] [--categories C1,C2] [model flags]
// toolgauge probe lint [--cases FILE] [--tools FILE] [--json]

const CASE_FLAGS: FlagSpecs = {
  cases: {
    type: 'string',
    schema: z.string().min(1),
    description: 'probe cases (JSONL; toolgauge or Toolhound format)',
  },
  tools: {
    type: 'string',
    schema: z.string().min(1),
    description: 'tool palette (tools.yaml / tools.json); default: beside the cases file',
  },
};

export const FLAGS: FlagSpecs = {
  ...CASE_FLAGS,
  transport: {
    type: 'string',
    values: TRANSPORTS,
    description: 'chat (server template + parser) or completions (toolgauge renders and parses)',
  },
  template: {
    type: 'string',
    schema: z.string().min(1),
    description: "the model's chat template (.jinja); with chat: the server's template",
  },
  split: { type: 'string', values: SPLITS },
  family: {
    type: 'string',
    values: ['auto', ...FAMILIES],
    description: 'tool-call format for the parsers (default: from the template)',
  },
  only: { type: 'string', schema: flagSchemas.idList },
  categories: { type: 'string', schema: flagSchemas.idList },
  decode: {
    type: 'string',
    description: `decoding arms, comma-separated: ${DECODES.join(',')} (paired on the same cases)`,
  },
  method: {
    type: 'string',
    description: `method arms, comma-separated: ${METHODS.join(',')}, or a method of --method-module`,
  },
  'method-module': {
    type: 'string',
    description: 'a module whose default export is a method (name, prepare): --method may then name it',
  },
  server: {
    type: 'string',
    values: ['auto', ...SERVERS],
    description: 'how --decode constrained constrains (auto: detected from the endpoint)',
  },
  'max-string-length': {
    type: 'string',
    schema: flagSchemas.positiveInt,
    description: 'bound every free string of a constrained call',
  },
  'top-p': {
    type: 'string',
    schema: z.coerce.number().gt(0).max(1),
    description: 'top_p sent with every request (recorded in the header)',
  },
  models: { type: 'string', description: '(internal: --model a,b,c becomes this)' },
  lineup: {
    type: 'string',
    schema: z.string().min(1),
    description: 'a lineup file (YAML/JSON): models with base URL, template, label, quantization',
  },
  'allow-env': {
    type: 'string',
    schema: flagSchemas.idList,
    description: "variables a lineup's api_key_env may name besides *_API_KEY (comma-separated)",
  },
  label: { type: 'string', description: "this run's label (what --quantization-of of another run names)" },
  quantization: { type: 'string', description: 'this run is a quantization (e.g. Q4_K_M)…' },
  'quantization-of': {
    type: 'string',
    description: '…of the run labelled so: report --compare checks template and tokenizer first',
  },
  tokenizer: {
    type: 'string',
    description: "the tokenizer's identity (a tokenizer.json, hashed, or any id) when the server does not expose it",
  },
  'pa-tool-samples': {
    type: 'string',
    schema: z.coerce.number().int().min(2),
    description: `PA-Tool samples per component (default ${32})`,
  },
};

const ENV = {
  cases: 'TOOLGAUGE_PROBE_CASES',
  tools: 'TOOLGAUGE_PROBE_TOOLS',
  transport: 'TOOLGAUGE_PROBE_TRANSPORT',
  template: 'TOOLGAUGE_PROBE_TEMPLATE',
  split: 'TOOLGAUGE_PROBE_SPLIT',
  family: 'TOOLGAUGE_PROBE_FAMILY',
  only: 'TOOLGAUGE_PROBE_ONLY',
  categories: 'TOOLGAUGE_PROBE_CATEGORIES',
  decode: 'TOOLGAUGE_PROBE_DECODE',
  method: 'TOOLGAUGE_PROBE_METHOD',
  'method-module': 'TOOLGAUGE_PROBE_METHOD_MODULE',
  server: 'TOOLGAUGE_PROBE_SERVER',
  'max-string-length': 'TOOLGAUGE_PROBE_MAX_STRING_LENGTH',
  'top-p': 'TOOLGAUGE_PROBE_TOP_P',
  models: 'TOOLGAUGE_PROBE_MODELS',
  lineup: 'TOOLGAUGE_PROBE_LINEUP',
  'allow-env': 'TOOLGAUGE_PROBE_ALLOW_ENV',
  label: 'TOOLGAUGE_PROBE_LABEL',
  quantization: 'TOOLGAUGE_PROBE_QUANTIZATION',
  'quantization-of': 'TOOLGAUGE_PROBE_QUANTIZATION_OF',
  tokenizer: 'TOOLGAUGE_PROBE_TOKENIZER',
  'pa-tool-samples': 'TOOLGAUGE_PROBE_PA_TOOL_SAMPLES',
};

/** A configuration file's `models: [a, b]` is `--model a,b` (a lineup on one endpoint); `--models` is internal. */
export const CONFIG_OPTIONS: ConfigOptions = { aliases: { models: 'model' }, hidden: ['models'] };

export const USAGE = `toolgauge probe [--cases FILE] [--tools FILE] [--transport chat|completions] [--template FILE]
                [--split dev|test|all] [--family NAME] [--only ID,ID] [--categories C1,C2]
                [--decode free,constrained,required] [--method baseline,pa_tool,NAME [--method-module FILE]] [--server auto|vllm|sglang|llamacpp|openai]
                [--max-string-length N] [--top-p P] [--pa-tool-samples N]
                [--model NAME | --model A,B,C | --lineup FILE [--allow-env VAR,…]] [--label L] [--quantization Q --quantization-of L]
                [--tokenizer FILE|ID] [--base-url URL] [--concurrency N] [--out-dir DIR] [--resume] [--gate EXPR] [--trials K]
                [--seed N] [--date YYYY-MM-DD] [--shard i/n [--blob-dir DIR]] [--merge-reports DIR] [-t PATTERN]
                [--print-report] [--config FILE.yaml] [--smoke]   (every flag as a key, models: [a, b] for --model a,b; docs/config.md)
toolgauge probe lint [--cases FILE] [--tools FILE] [--json]`;

function mustExist(flag: string, path: unknown): void {
  if (typeof path === 'string' && !existsSync(path))
    throw new UsageError(`toolgauge probe: --${flag} '${path}' does not exist`);
}

function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge probe: ${err.message}`);
    throw err;
  }
}

/**
 * `--model a,b,c` is a lineup on one endpoint: the list goes to --models and the run's own model (the header's,
 * the endpoint check's) is the first. `--lineup FILE` without --model / --base-url takes both from its first entry.
 */
export function expandModels(argv: readonly string[]): string[] {
  const out = [...argv];
  for (let i = 0; i < out.length; i++) {
    const a = out[i]!;
    const inline = a.startsWith('--model=') ? a.slice('--model='.length) : null;
    const value = inline ?? (a === '--model' ? out[i + 1] : undefined);
    if (value === undefined || !value.includes(',')) continue;
    const first = value.split(',')[0]!.trim();
    if (inline !== null) out[i] = `--model=${first}`;
    else out[i + 1] = first;
    out.push('--models', value);
  }
  const first = lineupFirstEntry(out);
  if (first) out.push('--model', first.model, ...(first.base_url ? ['--base-url', first.base_url] : []));
  return out;
}

/** A flag's value as given before parsing (`--flag V` or `--flag=V`); undefined when the flag is absent. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  const at = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (at < 0) return undefined;
  return argv[at]!.startsWith(`${flag}=`) ? argv[at]!.slice(flag.length + 1) : argv[at + 1];
}

/** The first entry of `--lineup FILE` when the run takes its model and endpoint from it (no --model, no --base-url). */
function lineupFirstEntry(argv: readonly string[]): ReturnType<typeof parseLineup>['models'][number] | undefined {
  const has = (flag: string) => argv.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (has('--model') || has('--base-url')) return undefined;
  const file = flagValue(argv, '--lineup');
  if (!file || !existsSync(file)) return undefined;
  try {
    return parseLineup(readFileSync(file, 'utf8'), file, { testModelDir: testModelDirOf(process.env) }).models[0];
  } catch {
    // the settings report the file's error with its entry and field
    return undefined;
  }
}

/**
 * The run's key when its endpoint comes from a lineup's first entry: that entry's own key (its `api_key_env`, when
 * the name is allowed — harness/calls/lineup/lineup-limits.ts), else none. `OPENAI_API_KEY` belongs to the endpoint the user names;
 * a lineup file must not have it sent to the URL the file names. `undefined`: the run's endpoint is the user's.
 */
export function lineupRunKey(argv: readonly string[], env: NodeJS.ProcessEnv): { key: string | undefined } | undefined {
  const first = lineupFirstEntry(argv);
  if (!first?.base_url) return undefined;
  const name = first.api_key_env;
  const allowed = (flagValue(argv, '--allow-env') ?? env.TOOLGAUGE_PROBE_ALLOW_ENV ?? '')
    .split(',')
    .map((x) => x.trim());
  return { key: name && (API_KEY_ENV.test(name) || allowed.includes(name)) ? env[name] : undefined };
}

/** Every flag `toolgauge probe` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS: FlagSpecs = { ...MODEL_FLAGS, ...FLAGS };

export async function run(argvIn: string[], runner: CommandRunner): Promise<number> {
  if (argvIn[0] === 'lint') return lint(argvIn.slice(1));
  const argv = applyConfig('probe', argvIn, ACCEPTED_FLAGS, CONFIG_OPTIONS, process.env);
  // The run's environment, a copy. The endpoint identities and the lineup's own engines reach the workers inside the
  // settings (below): an inherited value of their variables is never read.
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TOOLGAUGE_PROBE_ENDPOINTS;
  delete env.TOOLGAUGE_PROBE_GGUF_URLS;
  let engines: LineupEngines | null = null;
  const fromLineup = lineupRunKey(argv, env);
  if (fromLineup) {
    if (fromLineup.key) env.OPENAI_API_KEY = fromLineup.key;
    else delete env.OPENAI_API_KEY;
  }
  return runner
    .runSuite<ProbeSettings>(
      {
        command: 'probe',
        suite: probeSuite,
        flags: FLAGS,
        env: ENV,
        files: ['cases', 'tools', 'template', 'lineup', 'method-module'],
        async validate(kc, settings) {
          // A user's method module is loaded once before the run: a bad module is one line, not N failed cases.
          await checkMethodModule(settings);
          if (
            settings.transport === 'completions' &&
            !settings.templateFile &&
            !kc.run.usesSimulator &&
            !settings.models.every((m) => ggufPathOf(m.model) !== null)
          ) {
            // toolgauge's reference template is a stand-in for the simulator; a real model needs its own template.
            throw new UsageError(
              "toolgauge probe: --transport completions renders the model's own chat template: pass --template FILE",
            );
          }
          // Validate the inputs before starting Vitest: a bad case file is one line naming the file, line and field.
          const loaded = asUsage(() =>
            loadCases(settings.casesFile, {
              ...(settings.toolsFile ? { toolsFile: settings.toolsFile } : {}),
              dateContext: kc.run.injectedDate,
            }),
          );
          if (selectCases(loaded.cases, settings).length === 0) {
            throw new UsageError(
              `toolgauge probe: no case of ${settings.casesFile} matches --split ${settings.split}${settings.categories ? ` --categories ${settings.categories.join(',')}` : ''}${settings.only ? ' --only …' : ''}`,
            );
          }
          const families = new Map(
            settings.models.map((m) => [
              m.label,
              asUsage(() => templateOf(m, settings, kc.run.injectedDate))?.family ?? null,
            ]),
          );
          engines = await startLineupEngines(settings, kc.run);
          // What each real endpoint says about itself (server kind and version, model revision, template, tokenizer):
          // the header records it, --server auto uses it, the quantization guard reads it.
          const endpoints: Record<string, EndpointIdentity> = {};
          await Promise.all(
            settings.models
              .filter((m) => !onSimulator(m, kc.run))
              .map(async (m) => {
                const url = m.baseUrl ?? kc.run.baseUrl;
                if (url)
                  endpoints[m.label] = await fetchEndpointIdentity(
                    url,
                    settings.apiKeys[m.label] ?? (m.baseUrl ? undefined : kc.run.apiKey),
                    m.model,
                  );
              }),
          );
          // The settings object is the run configuration's own: the workers receive it with the identities in it.
          if (Object.keys(endpoints).length) settings.endpoints = endpoints;
          try {
            checkAxes(settings, kc.run, (m) => families.get(m.label) ?? null);
          } catch (err) {
            if (err instanceof UsageError) throw new UsageError(`toolgauge probe: ${err.message}`);
            throw err;
          }
        },
      },
      expandModels(argv),
      env,
    )
    .finally(() => (engines as LineupEngines | null)?.close());
}

/** `--method-module FILE` registers a method that `--method` names; every other name `--method` gives is built in. */
async function checkMethodModule(s: ProbeSettings): Promise<void> {
  if (!s.methodModule) return;
  const own = s.methods.filter((m) => !(METHODS as readonly string[]).includes(m));
  try {
    await userMethod(own[0]!, s.methodModule);
    for (const name of own.slice(1)) await userMethod(name, s.methodModule);
  } catch (err) {
    throw new UsageError(`toolgauge probe: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function lint(argv: string[]): Promise<number> {
  const { values } = parseFlags('probe lint', argv, { ...CASE_FLAGS, json: { type: 'boolean' } });
  mustExist('cases', values.cases);
  mustExist('tools', values.tools);
  const settings = readProbeEnv(settingsSource(process.env, values, ENV));
  const loaded = asUsage(() =>
    loadCases(settings.casesFile, settings.toolsFile ? { toolsFile: settings.toolsFile } : {}),
  );
  const own = loaded.cases.some((c) => c.phrasing);
  const r = lintCases(loaded, own ? { phrasings: phrasingInventory() } : {});
  if (values.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  else {
    const lines = [
      `${settings.casesFile}: ${r.stats.cases} cases; ${r.errors.length} error(s), ${r.warnings.length} warning(s)`,
    ];
    for (const [split, cats] of Object.entries(r.stats.bySplit))
      lines.push(
        `  ${split}: ${Object.entries(cats)
          .map(([c, n]) => `${c} ${n}`)
          .join(', ')}`,
      );
    for (const e of r.errors) lines.push(`  error [${e.rule}]${e.id ? ` ${e.id}` : ''}: ${e.message}`);
    for (const w of r.warnings) lines.push(`  warning [${w.rule}]${w.id ? ` ${w.id}` : ''}: ${w.message}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
  return r.errors.length ? 1 : 0;
}

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../core/errors.ts';
import { readJsonOrYaml } from '../../core/data-file.ts';
import { suiteFolders } from '../suite-folders.ts';
import { didYouMean } from './did-you-mean.ts';
import { checkFlagValue, type FlagSpecs } from './flags.ts';
import { joinListWords } from './list-words.ts';
import { pushTo } from '../../core/push-to.ts';

/**
 * `--config FILE` (YAML or JSON) for the suite commands: the file becomes the same `--flag value` tokens the flag
 * parser takes, placed before the command line's, so every value goes through the flags' own checks and the
 * command line wins. Keys are the flag names (kebab-case; camelCase and snake_case are read as the same key), a
 * section named after the command (`probe:`, `maze:` …) applies over the file's top level, and string values may
 * name environment variables (`${VAR}`, `${VAR:-default}`). Documented in docs/config.md.
 */

/**
 * The commands a file may hold a section for: every suite folder's command (the registry, harness/kit/suite-folders.ts:
 * a new suite's section needs no list edited) and `eval`. A section for another command is skipped, not an unknown
 * key; the running command's own section is always one.
 */
export function configSections(command: string): ReadonlySet<string> {
  return new Set([...suiteFolders().map((f) => f.name), 'eval', command]);
}

export interface ConfigOptions {
  /** Keys the file may use for another flag (`models:` → `--model a,b,c` for the probe). */
  aliases?: Record<string, string>;
  /** A key whose list becomes the command's positional arguments when the command line has none (eval's `files`). */
  positionals?: string;
  /** Flags a file may not set (internal ones). */
  hidden?: readonly string[];
  /**
   * Top-level keys that are data, not flags: a file holding one is passed, by its absolute path, as the named flag
   * (eval's `mcpServers` → `--mcp-config FILE`, read by `mcp({ server })`).
   */
  fileKeys?: Record<string, string>;
}

const PLACEHOLDER = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$\{[^}]*\}?/g;

/**
 * `${VAR}` is the variable's value; `${VAR:-default}` the default when VAR is unset or empty, `${VAR-default}` only
 * when unset; `$${` is a literal `${`. A variable that is unset with no default, or a malformed placeholder, is an
 * error naming the file and key. Values are interpolated after YAML parsing, so a variable can never add keys.
 */
export function interpolate(value: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return value.replace(
    PLACEHOLDER,
    (whole, name: string | undefined, op: string | undefined, fallback: string | undefined) => {
      if (whole === '$${') return '${';
      if (name === undefined)
        throw new UsageError(
          `${where}: malformed placeholder '${whole}' (use \${VAR} or \${VAR:-default}; $\${ for a literal \${)`,
        );
      const v = env[name];
      if (op === ':-') return v === undefined || v === '' ? fallback! : v;
      if (op === '-') return v === undefined ? fallback! : v;
      if (v === undefined)
        throw new UsageError(`${where}: environment variable ${name} is not set (give a default with \${${name}:-…})`);
      return v;
    },
  );
}

/** The variables a value's placeholders read (`${VAR}`, `${VAR:-…}`), with their values as set. */
export function placeholderVariables(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const m of value.matchAll(PLACEHOLDER)) {
    const name = m[1];
    if (name !== undefined && !out.some((v) => v.name === name)) out.push({ name, value: env[name] ?? '' });
  }
  return out;
}

/**
 * A flag check's refusal of a value that came (in part) from the environment: the variables are named and their
 * values never shown — a secret expanded into a key is refused without being printed.
 */
function refusalWithoutSecrets(why: string, vars: ReadonlyArray<{ name: string; value: string }>): string {
  let out = why;
  // longest first, so a value that contains another is replaced whole
  for (const v of [...vars].sort((a, b) => b.value.length - a.value.length))
    if (v.value) out = out.split(v.value).join(`\${${v.name}}`);
  return `${out} (the value came from ${vars.map((v) => `\${${v.name}}`).join(', ')}; not shown)`;
}

/** `baseUrl` and `base_url` are `base-url`. */
export function kebabKey(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}

type Scalar = string | number | boolean;

/**
 * A parsed configuration document → flag tokens for `command`, and the positional arguments it names. Pure: the
 * environment is passed in. Every problem is one UsageError naming the file and the key.
 */
export function configTokens(
  command: string,
  file: string,
  doc: unknown,
  specs: FlagSpecs,
  env: Readonly<Record<string, string | undefined>>,
  o: ConfigOptions = {},
): { tokens: string[]; positionals: string[] } {
  const head = `toolgauge ${command}: ${file}`;
  if (doc === null || doc === undefined) return { tokens: [], positionals: [] };
  if (!isMapping(doc)) throw new UsageError(`${head}: the file must be a mapping of flag names to values`);
  const sectionName = command.split(' ')[0]!;
  const sections = configSections(sectionName);
  const entries: Array<[string, string, unknown]> = [];
  const fileTokens: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    const fileFlag = o.fileKeys?.[key];
    if (fileFlag) {
      fileTokens.push(`--${fileFlag}=${resolve(file)}`);
      continue;
    }
    if (sections.has(key)) {
      if (!isMapping(value))
        throw new UsageError(`${head}: section '${key}' must be a mapping of flag names to values`);
      if (key === sectionName) for (const [k, v] of Object.entries(value)) entries.push([`${key}.${k}`, k, v]);
      continue;
    }
    entries.push([key, key, value]);
  }
  const known = Object.keys(specs).filter((k) => !o.hidden?.includes(k));
  const knownKeys = [...known, ...Object.keys(o.aliases ?? {}), ...(o.positionals ? [o.positionals] : [])];
  // Later entries (the command's section) win over earlier ones (the top level); within one level, two spellings
  // of one flag (`base-url` and `baseUrl`, `model` and `models`) are a mistake.
  const chosen = new Map<string, { where: string; value: unknown }>();
  const spelled = new Map<string, string>();
  for (const [where, rawKey, value] of entries) {
    const key = kebabKey(rawKey);
    if (!knownKeys.includes(key)) {
      const hint = didYouMean(key, knownKeys);
      throw new UsageError(`${head}: unknown key '${where}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
    const flag = o.aliases?.[key] ?? key;
    const scope = `${where.includes('.') ? 'section' : 'top'}:${flag}`;
    const seen = spelled.get(scope);
    if (seen !== undefined) throw new UsageError(`${head}: keys '${seen}' and '${rawKey}' both set '${flag}'`);
    spelled.set(scope, rawKey);
    chosen.set(flag, { where, value });
  }
  const tokens: string[] = [...fileTokens];
  let positionals: string[] = [];
  for (const [flag, { where, value }] of chosen) {
    const at = `${head}: key '${where}'`;
    const values = scalars(value, at).map((v) => (typeof v === 'string' ? interpolate(v, env, at) : v));
    if (flag === o.positionals) {
      positionals = values.map(String);
      continue;
    }
    const spec = specs[flag]!;
    if (spec.type === 'boolean') {
      if (values.length !== 1 || typeof values[0] !== 'boolean')
        throw new UsageError(`${at} must be true or false (got ${JSON.stringify(value)})`);
      if (values[0]) tokens.push(`--${flag}`);
      continue;
    }
    const raws = spec.multiple ? values.map(String) : [values.map(String).join(',')];
    const vars = scalars(value, at).flatMap((v) => (typeof v === 'string' ? placeholderVariables(v, env) : []));
    for (const raw of raws) {
      const r = checkFlagValue(spec, raw);
      if (!r.ok) throw new UsageError(`${at} ${vars.length ? refusalWithoutSecrets(r.why, vars) : r.why}`);
      tokens.push(`--${flag}=${raw}`);
    }
  }
  return { tokens, positionals };
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A key's value as a list of scalars: a scalar, or a list of scalars (joined with commas for a one-value flag). */
function scalars(value: unknown, at: string): Scalar[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw new UsageError(`${at} is an empty list (remove the key to leave it unset)`);
  for (const v of list) {
    if (v === null || v === undefined) throw new UsageError(`${at} has no value (remove the key to leave it unset)`);
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw new UsageError(`${at} must be a string, number, boolean or a list of them`);
  }
  return list as Scalar[];
}

/** Read a configuration file (YAML; JSON is read as JSON) with its syntax error's line. */
export function readConfigFile(
  command: string,
  file: string,
  read: (f: string) => string = (f) => readFileSync(f, 'utf8'),
): unknown {
  let text: string;
  try {
    text = read(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `toolgauge ${command}: --config '${file}' ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`}`,
    );
  }
  try {
    return readJsonOrYaml(text, file);
  } catch (err) {
    throw new UsageError(`toolgauge ${command}: ${(err as Error).message}`);
  }
}

/** What the command line gives itself: its flags (long names; `-t` is read as its long name) and positionals. */
function commandLine(argv: readonly string[], specs: FlagSpecs): { flags: Set<string>; positionals: number } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, s] of Object.entries(specs))
    options[name] = { type: s.type, ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}) };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  return {
    flags: new Set(tokens.flatMap((t) => (t.kind === 'option' ? [t.name] : []))),
    positionals: tokens.filter((t) => t.kind === 'positional').length,
  };
}

/**
 * The command line with every `--config FILE` replaced by the file's flags. Several files apply in order (a later
 * one wins); flags the command line gives itself are taken from the command line only (a repeatable flag is not
 * added to the file's values). A command line without `--config` is returned unchanged.
 */
export function applyConfig(
  command: string,
  argvIn: readonly string[],
  specs: FlagSpecs,
  o: ConfigOptions,
  env: Readonly<Record<string, string | undefined>>,
  read?: (f: string) => string,
): string[] {
  // `--modes P0 P1` as the sources write it: one value before the file's flags are merged in.
  const argv = joinListWords(argvIn, specs);
  const files: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--config') {
      const f = argv[i + 1];
      if (f === undefined || f.startsWith('-'))
        throw new UsageError(`toolgauge ${command}: --config needs a file (YAML or JSON)`);
      files.push(f);
      i++;
    } else if (a.startsWith('--config=')) files.push(a.slice('--config='.length));
    else rest.push(a);
  }
  if (!files.length) return [...argv];
  const cli = commandLine(rest, specs);
  const fromFiles = new Map<string, string[]>();
  let positionals: string[] = [];
  for (const file of files) {
    const got = configTokens(command, file, readConfigFile(command, file, read), specs, env, o);
    const byFlag = new Map<string, string[]>();
    for (const t of got.tokens) {
      const flag = t.slice(2).split('=')[0]!;
      pushTo(byFlag, flag, t);
    }
    for (const [flag, ts] of byFlag) fromFiles.set(flag, ts);
    if (got.positionals.length) positionals = got.positionals;
  }
  const tokens = [...fromFiles].filter(([flag]) => !cli.flags.has(flag)).flatMap(([, ts]) => ts);
  return [...tokens, ...rest, ...(cli.positionals ? [] : positionals)];
}

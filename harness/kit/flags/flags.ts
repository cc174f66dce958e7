import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { MAX_TIMER_MS } from '../../core/config.ts';
import { didYouMean } from './did-you-mean.ts';
import { joinListWords } from './list-words.ts';

/**
 * One flag of a subcommand. `schema` validates (and coerces) the raw string; `values` lists accepted values for
 * the error message. Every bad flag becomes a one-line UsageError naming the flag (exit code 2).
 */
export interface FlagSpec {
  type: 'string' | 'boolean';
  schema?: z.ZodType;
  values?: readonly string[];
  multiple?: boolean;
  /**
   * A list flag takes the words after it, up to the next flag, as the source benchmarks write lists
   * (`--modes P0 P1`); they are joined with commas (list-words.ts). Not for a command that takes positionals.
   */
  list?: boolean;
  short?: string;
  description?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface ParsedFlags {
  values: Record<string, unknown>;
  positionals: string[];
}

export function parseFlags(command: string, argvIn: string[], specs: FlagSpecs, allowPositionals = false): ParsedFlags {
  // A command with positionals keeps every word after a flag's value its own: a list there is a comma list.
  const argv = attachNegativeNumbers(allowPositionals ? argvIn : joinListWords(argvIn, specs), specs);
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  // Node 20's parseArgs rejects keys that are present but undefined, so only set what a flag has.
  for (const [name, s] of Object.entries(specs)) {
    options[name] = { type: s.type, ...(s.multiple ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownFlag(command, err, specs);
    const msg = (err as Error).message.split('\n')[0] ?? String(err);
    throw new UsageError(`toolgauge ${command}: ${msg}`);
  }
  if (!allowPositionals && parsed.positionals.length > 0) {
    throw new UsageError(`toolgauge ${command}: unexpected argument '${parsed.positionals[0]}'`);
  }
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(parsed.values)) {
    const spec = specs[name];
    if (!spec) continue;
    const r = checkFlagValue(spec, raw);
    if (!r.ok) throw new UsageError(`toolgauge ${command}: --${name} ${r.why}`);
    values[name] = r.value;
  }
  return { values, positionals: parsed.positionals };
}

/**
 * An unknown flag, with the closest known one or where the flags are listed. parseArgs's own advice (put a positional
 * that starts with '-' after '--') is not what a mistyped flag needs.
 */
function unknownFlag(command: string, err: unknown, specs: FlagSpecs): UsageError {
  const flag = /'([^']+)'/.exec((err as Error).message)?.[1] ?? '';
  const hint = flag.startsWith('--') ? didYouMean(flag.slice(2).split('=')[0]!, Object.keys(specs)) : undefined;
  return new UsageError(
    `toolgauge ${command}: unknown flag '${flag}' ${hint ? `(did you mean '--${hint}'?)` : `(toolgauge ${command} --help lists them)`}`,
  );
}

/** A word that is a negative number (`-1`, `-0.5`, `-.5`): never a flag, since no flag's name starts with a digit. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/**
 * `--limit -1` as `--limit=-1`: parseArgs refuses a value that starts with `-` after a flag as "ambiguous", which
 * says nothing of what is wrong with it; attached, the value reaches the flag's own check (`--limit must be >= 0
 * (got '-1')`), and a flag that takes negative numbers takes them. Only after a flag that takes a value, before `--`.
 */
function attachNegativeNumbers(argv: readonly string[], specs: FlagSpecs): string[] {
  const shortNames = new Map(Object.entries(specs).flatMap(([name, s]) => (s.short ? [[`-${s.short}`, name]] : [])));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : shortNames.get(a);
    const next = argv[i + 1];
    if (name && specs[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * One flag's raw value checked against its spec: the accepted values, then the schema (which may coerce). The
 * command line and a configuration file (harness/cli/config-file.ts) check values with this one function.
 */
export function checkFlagValue(
  spec: FlagSpec,
  raw: unknown,
): { ok: true; value: unknown } | { ok: false; why: string } {
  if (spec.values && typeof raw === 'string' && !spec.values.includes(raw)) {
    return { ok: false, why: `must be one of ${spec.values.join('|')} (got '${raw}')` };
  }
  if (!spec.schema) return { ok: true, value: raw };
  const r = spec.schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, why: `${r.error.issues[0]?.message ?? 'invalid value'} (got '${String(raw)}')` };
}

/** Common zod coercions for flags. */
export const flagSchemas = {
  nonNegativeInt: z.coerce.number({ message: 'must be a number' }).int('must be an integer').min(0, 'must be >= 0'),
  positiveInt: z.coerce.number({ message: 'must be a number' }).int('must be an integer').min(1, 'must be >= 1'),
  /** Milliseconds for a timer: Node fires a longer one after 1 ms. */
  timeoutMs: z.coerce
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(MAX_TIMER_MS, `must be <= ${MAX_TIMER_MS} (the longest timer Node honours)`),
  idList: z.string().transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ),
  /** A gate expression: `--gate ''` is a mistake (an unset CI variable), never a silent "no gate". */
  gate: z.string().refine((s) => s.trim() !== '', 'must not be empty (leave the flag out for no gate)'),
};

/**
 * Turning a parsed JSON value into calls.
 *
 * Strict: exactly the family's shape — `{name: string, <argsKey>: object}` plus only the keys the format
 * documents (Mistral's 9-character `id`). Lenient: alias keys, the OpenAI shape, wrappers, stringified
 * arguments, lists of calls — each repair is noted.
 */
import { isPlainObject, parseJsonish } from './jsonish.ts';
import { readPyValue } from './pycall.ts';
import type { ParseCtx, ParsedCall, ToolSchema } from './types.ts';
import { isToolName } from './util.ts';

export interface StrictShape {
  /** the key (or keys, any one of them) that holds the arguments */
  argsKey: string | readonly string[];
  /** the key that holds the name (default `name`) */
  nameKey?: string;
  /** extra keys the format allows, with a validator */
  extra?: Record<string, (v: unknown) => boolean>;
  /** the framework also accepts the arguments as a JSON string (parsed exactly) */
  stringArgs?: boolean;
  /** the arguments may be absent (read as {}) */
  argsOptional?: boolean;
}

export function strictCall(v: unknown, shape: StrictShape): ParsedCall | null {
  if (!isPlainObject(v)) return null;
  const nameKey = shape.nameKey ?? 'name';
  const name = v[nameKey];
  // the arguments key present (no array per call: this runs for every block the strict tier reads)
  let argKey: string | undefined;
  if (typeof shape.argsKey === 'string') {
    if (Object.hasOwn(v, shape.argsKey)) argKey = shape.argsKey;
  } else
    for (const k of shape.argsKey) {
      if (!Object.hasOwn(v, k)) continue;
      if (argKey !== undefined) return null;
      argKey = k;
    }
  if (typeof name !== 'string' || name === '') return null;
  let args: unknown = argKey !== undefined ? v[argKey] : shape.argsOptional ? {} : undefined;
  if (typeof args === 'string' && shape.stringArgs) {
    const r = parseJsonish(args, 'json');
    args = r.ok ? r.value : undefined;
  }
  if (!isPlainObject(args)) return null;
  for (const k in v) {
    if (!Object.hasOwn(v, k) || k === nameKey || k === argKey) continue;
    const ok = shape.extra?.[k];
    if (!ok || !ok(v[k])) return null;
  }
  return { name, arguments: args };
}

const NAME_KEYS = ['name', 'function', 'tool', 'tool_name', 'function_name', 'toolName', 'functionName', 'action'];
const ARG_KEYS = [
  'arguments',
  'parameters',
  'args',
  'params',
  'input',
  'kwargs',
  'tool_input',
  'action_input',
  'argument',
];
const WRAPPER_LIST_KEYS = ['tool_calls', 'calls', 'function_calls', 'toolCalls'];
const WRAPPER_ONE_KEYS = ['tool_call', 'function_call', 'functionCall', 'toolCall'];
const META_KEYS = new Set(['id', 'type', 'index', 'call_id']);

export function findTool(tools: ToolSchema[] | undefined, name: string): ToolSchema | undefined {
  return tools?.find((t) => t.name === name);
}

/** Arguments given as a string: JSON, loose JSON or a Python dict literal. */
function argsFromString(s: string, ctx: ParseCtx): Record<string, unknown> | null {
  const trimmed = s.trim();
  if (trimmed === '') {
    ctx.notes.add('stringified arguments');
    return {};
  }
  const repairs = new Set<string>();
  let r = parseJsonish(trimmed, 'loose', repairs);
  if (!r.ok) {
    const p = readPyValue(trimmed, 0, 'loose', repairs);
    if (p.ok && p.end === trimmed.length) r = { ok: true, value: p.value, end: p.end };
  }
  if (r.ok && isPlainObject(r.value)) {
    ctx.notes.add('stringified arguments');
    for (const x of repairs) ctx.notes.add(x);
    return r.value;
  }
  return null;
}

export interface LooseOpts {
  /** the value sat inside a family's call marker, so a bare `{"name": "f"}` is clearly a call */
  inMarker: boolean;
  /** the family's own argument key (not an alias there) */
  argsKey?: 'arguments' | 'parameters';
}

/**
 * The calls of a marker that names its tool and then gives the arguments as a value (DeepSeek, gpt-oss, Kimi-K2):
 * an object is the arguments; the lenient tier also reads a string holding call-shaped JSON. Null otherwise.
 */
export function namedArgumentCalls(name: string, value: unknown, ctx: ParseCtx): ParsedCall[] | null {
  if (isPlainObject(value)) return [{ name, arguments: value }];
  if (ctx.loose && typeof value === 'string') return looseCalls({ name, arguments: value }, ctx, { inMarker: true });
  return null;
}

/** All calls a value holds, or null when it is not call-shaped. Never invents a call from data. */
export function looseCalls(v: unknown, ctx: ParseCtx, opts: LooseOpts, depth = 0): ParsedCall[] | null {
  if (depth > 4) return null;
  if (Array.isArray(v)) {
    if (v.length === 0) return null;
    const out: ParsedCall[] = [];
    for (const el of v) {
      const c = looseCalls(el, ctx, opts, depth + 1);
      if (!c) return null;
      out.push(...c);
    }
    if (depth === 0 && !opts.inMarker) ctx.notes.add('list of calls');
    return out;
  }
  if (!isPlainObject(v)) return null;

  for (const k of WRAPPER_LIST_KEYS) {
    if (Array.isArray(v[k]) && Object.keys(v).length <= 2) {
      const c = looseCalls(v[k], ctx, opts, depth + 1);
      if (c) {
        ctx.notes.add('wrapper object');
        return c;
      }
    }
  }
  for (const k of WRAPPER_ONE_KEYS) {
    if (isPlainObject(v[k]) && Object.keys(v).length <= 2) {
      const c = looseCalls(v[k], ctx, opts, depth + 1);
      if (c) {
        ctx.notes.add('wrapper object');
        return c;
      }
    }
  }
  // OpenAI shape: {"type": "function", "function": {"name": …, "arguments": …}}
  if (isPlainObject(v.function)) {
    const inner = looseCalls(v.function, ctx, opts, depth + 1);
    if (inner && inner.length === 1) {
      ctx.notes.add('openai shape');
      return inner;
    }
    return null;
  }

  const nameKey = NAME_KEYS.find((k) => typeof v[k] === 'string');
  if (!nameKey) return null;
  const name = (v[nameKey] as string).trim();
  if (!isToolName(name)) return null;
  const known = findTool(ctx.tools, name) !== undefined;

  const argsKey = ARG_KEYS.find((k) => k in v && v[k] !== undefined);
  let args: Record<string, unknown> | null = null;
  if (argsKey) {
    const raw = v[argsKey];
    if (isPlainObject(raw)) args = raw;
    else if (typeof raw === 'string') args = argsFromString(raw, ctx);
    else if (raw === null) {
      args = {};
      ctx.notes.add('null arguments');
    }
    if (!args) return null;
  } else {
    const rest = Object.keys(v).filter((k) => k !== nameKey && !META_KEYS.has(k));
    if (rest.length === 0 && (opts.inMarker || known)) {
      args = {};
      ctx.notes.add('missing arguments');
    } else if (rest.length > 0 && known) {
      // {"name": "get_weather", "city": "Paris"}: only for a listed tool, else any data object would pass.
      args = {};
      for (const k of rest) args[k] = v[k];
      ctx.notes.add('flat arguments');
    } else return null;
  }

  if (argsKey && Object.keys(v).some((k) => k !== nameKey && k !== argsKey)) ctx.notes.add('extra keys');
  if (nameKey !== 'name') ctx.notes.add('alias keys');
  if (argsKey && argsKey !== (opts.argsKey ?? 'arguments')) ctx.notes.add('alias keys');
  return [{ name, arguments: args }];
}

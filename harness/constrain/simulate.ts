/**
 * What a trigger-gated constrained decoder does to a simulated model's output. Pure: the simulator calls it with
 * the text its policy produced, the constraint in force and what the model meant to call.
 *
 * - No trigger (and no call attempt): the grammar never switches on; the text is unchanged. Abstentions, and
 *   "no call" decision failures, stay.
 * - A trigger (or a call attempt in another shape): the text before it is free and kept; from there on the
 *   decoder only allows conforming tokens. A tail that already conforms is unchanged (a clean wrong call — a
 *   decision failure — stays). A tail that does not is forced into a conforming call: the intended calls (or
 *   what the lenient parser reads in the tail), projected onto the offered tools' schemas — a name not offered
 *   becomes the offered name closest to it, undeclared arguments go, missing required ones get a typed
 *   placeholder, values take the declared type — and rendered in the family's format.
 * - Never outside the grammar: when that projected call is not one the constraint admits (a grammar that only
 *   admits another tool, or other arguments), the output is the grammar's own shortest call (derive.ts), else no
 *   call. A grammar sent without trigger words binds the whole output, prose included.
 * - The honest cost: a model pushed off its path inside a free string can loop. For a forced call, each
 *   unbounded string argument degenerates with probability `degeneration` (seeded by `key`): it repeats until
 *   the output budget runs out, so the call is cut off (truncated). With `--max-string-length` the repetition
 *   stops at the bound and the call closes — well-formed, with a wrong value. Either way it is reported in
 *   `repetition`.
 */
import { deriveSeed, Rng } from '../core/rng.ts';
import { parseToolCalls, renderToolCalls, type Family, type ParsedCall, type ToolSchema } from '../parse/index.ts';
import { callFormat, lazyGbnf } from './families.ts';
import { shortestDerivation } from './derive.ts';
import { accepts, acceptsLazy, acceptsTriggeredTags, firstTrigger } from './recognize.ts';
import type { ConstraintSpec } from './requests.ts';

export interface SimulateOptions {
  /** What the model meant to call (the simulator knows); null: read it from the text. */
  intent?: ParsedCall[] | null;
  /** Seed label (case id, trial) for the degeneration draw. */
  key: string;
  seed?: number;
  /** Probability that an unbounded string of a forced call degenerates; default 0.15. */
  degeneration?: number;
  /** Output budget in characters (max_tokens × ~4); default 4096. */
  maxChars?: number;
}

export interface Repetition {
  tool: string;
  argument: string;
  /** The repeated unit and how often it was written. */
  unit: string;
  times: number;
  /** Stopped by the string bound (true) or by the output budget (false: the call is cut off). */
  bounded: boolean;
}

export interface SimulatedDecode {
  text: string;
  /** The constraint changed the output. */
  forced: boolean;
  /** The output ran into the budget (the endpoint would say finish_reason "length"). */
  truncated: boolean;
  repetition: Repetition | null;
}

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const ATTEMPT = /<\|?\s*tool_call|\[TOOL_CALLS\]|<\|python_tag\|>|<function=|>>>|```(?:json|tool_call)?\s*\{|^\s*[[{]/;

/** A grammar sent without trigger words binds the whole output from the first token (llama.cpp's non-lazy grammar). */
function bindsWhole(spec: ConstraintSpec): boolean {
  return (
    spec.mode === 'lazy_grammar' &&
    spec.grammar !== undefined &&
    spec.triggers !== undefined &&
    spec.triggers.length === 0
  );
}

function grammarOf(spec: ConstraintSpec, family: Family): string {
  return (
    spec.grammar ??
    lazyGbnf(callFormat(family, spec.tools, spec.maxStringLength ? { maxStringLength: spec.maxStringLength } : {}))
  );
}

/** Whether the constraint lets a decoder write this whole output. */
function admits(text: string, spec: ConstraintSpec, family: Family): boolean {
  if (spec.mode === 'triggered_tags' && spec.tags)
    return acceptsTriggeredTags(spec.tags, spec.triggers ?? spec.tags.map((t) => t.begin), text);
  if (bindsWhole(spec)) return accepts(grammarOf(spec, family), text);
  return acceptsLazy(grammarOf(spec, family), spec.triggers ?? callFormat(family, spec.tools).triggers, text).accepted;
}

/** A call the constraint's own grammar admits (its shortest derivation), for when the intended call is not one. */
function derivedCall(spec: ConstraintSpec, family: Family): string | null {
  try {
    if (spec.mode === 'triggered_tags' && spec.tags) {
      const t = spec.tags[0];
      const body = t ? shortestDerivation(t.content) : null;
      return t && body !== null ? t.begin + body + t.end : null;
    }
    return shortestDerivation(grammarOf(spec, family));
  } catch {
    return null;
  }
}

/** Where the decoder would have switched on: the first trigger, else the start of a call attempt. */
function triggerAt(text: string, spec: ConstraintSpec, family: Family): number | null {
  if (bindsWhole(spec)) return 0;
  const triggers = spec.triggers ?? callFormat(family, spec.tools).triggers;
  const at = firstTrigger(text, triggers);
  if (at !== null) return at;
  const m = ATTEMPT.exec(text);
  return m && parseToolCalls(text, { tier: 'lenient', tools: spec.tools }).attempted
    ? m.index + (m[0].length - m[0].trimStart().length)
    : null;
}

function conforms(tail: string, spec: ConstraintSpec, family: Family): boolean {
  if (spec.mode === 'triggered_tags' && spec.tags)
    return acceptsTriggeredTags(spec.tags, spec.triggers ?? spec.tags.map((t) => t.begin), tail);
  if (bindsWhole(spec)) return accepts(grammarOf(spec, family), tail);
  const triggers = spec.triggers ?? callFormat(family, spec.tools).triggers;
  const r = acceptsLazy(grammarOf(spec, family), triggers, tail);
  // an attempt that holds no trigger word cannot conform: the grammar would have forced the trigger
  return r.accepted && r.triggeredAt !== null;
}

export function constrainedOutput(raw: string, spec: ConstraintSpec, opts: SimulateOptions): SimulatedDecode {
  const family: Family = spec.family ?? 'hermes';
  const unchanged: SimulatedDecode = { text: raw, forced: false, truncated: false, repetition: null };
  const at = triggerAt(raw, spec, family);
  if (at === null) return unchanged;
  const prefix = raw.slice(0, at);
  const tail = raw.slice(at);
  if (conforms(tail, spec, family)) return unchanged;

  const read = parseToolCalls(tail, { tier: 'lenient', tools: spec.tools }).calls;
  const meant =
    opts.intent && opts.intent.length > 0
      ? opts.intent
      : read.length > 0
        ? read
        : [{ name: spec.tools[0]!.name, arguments: {} }];
  let calls = meant.map((c) => projectCall(c, spec.tools));
  // The decoder cannot write what its grammar forbids: a projected call outside it (a grammar admitting only
  // another tool, say) gives way to a call the grammar does admit, or to no call at all.
  if (!admits(prefix + renderToolCalls(calls, family), spec, family)) return insideGrammar(prefix, spec, family);

  // The honest cost: an unbounded free string in a forced call may loop.
  const rng = new Rng(deriveSeed(opts.seed ?? 0, 'constrained-degeneration', opts.key));
  const p = opts.degeneration ?? 0.15;
  let repetition: Repetition | null = null;
  const budget = opts.maxChars ?? 4096;
  for (const [ci, c] of calls.entries()) {
    const props = propertiesOf(spec.tools.find((t) => t.name === c.name));
    for (const [k, v] of Object.entries(c.arguments)) {
      const s = props[k];
      if (
        repetition ||
        typeof v !== 'string' ||
        !isObj(s) ||
        s.type !== 'string' ||
        Array.isArray(s.enum) ||
        typeof s.maxLength === 'number'
      )
        continue;
      if (!rng.chance(p)) continue;
      const unit = v.length > 0 ? `${v} ` : 'ha ';
      const bound = spec.maxStringLength;
      if (bound !== null) {
        const looped = unit.repeat(Math.ceil(bound / unit.length) + 1).slice(0, bound);
        calls = calls.map((x, i) => (i === ci ? { ...x, arguments: { ...x.arguments, [k]: looped } } : x));
        repetition = { tool: c.name, argument: k, unit, times: Math.ceil(bound / unit.length), bounded: true };
      } else {
        // the string never closes: the output is cut at the budget inside it
        const looped = unit.repeat(Math.ceil(budget / unit.length) + 1);
        const withLoop = renderToolCalls(
          calls.map((x, i) => (i === ci ? { ...x, arguments: { ...x.arguments, [k]: looped } } : x)),
          family,
        );
        const text = (prefix + withLoop).slice(0, budget);
        return {
          text,
          forced: true,
          truncated: true,
          repetition: { tool: c.name, argument: k, unit, times: Math.floor(budget / unit.length), bounded: false },
        };
      }
    }
  }
  return { text: prefix + renderToolCalls(calls, family), forced: true, truncated: false, repetition };
}

function insideGrammar(prefix: string, spec: ConstraintSpec, family: Family): SimulatedDecode {
  const derived = derivedCall(spec, family);
  const candidates = derived === null ? [prefix] : [prefix + derived, derived, prefix];
  const text = candidates.find((t) => admits(t, spec, family)) ?? '';
  return { text, forced: true, truncated: false, repetition: null };
}

// --- projection onto the schema ----------------------------------------------------------------------------

function propertiesOf(t: ToolSchema | undefined): Record<string, unknown> {
  const p = t?.parameters as { properties?: unknown } | undefined;
  return isObj(p?.properties) ? p.properties : {};
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The offered tool a decoder forced to pick a listed name would reach: the longest shared prefix. */
export function closestTool(name: string, tools: readonly ToolSchema[]): ToolSchema {
  let best = tools[0]!;
  let bestLen = -1;
  for (const t of tools) {
    if (t.name === name) return t;
    const l = commonPrefix(t.name, name);
    if (l > bestLen) {
      best = t;
      bestLen = l;
    }
  }
  return best;
}

export function projectCall(call: ParsedCall, tools: readonly ToolSchema[]): ParsedCall {
  const tool = closestTool(call.name, tools);
  return {
    name: tool.name,
    arguments: projectObject(call.arguments, tool.parameters ?? { type: 'object', properties: {} }),
  };
}

function projectObject(v: unknown, schema: Schema): Record<string, unknown> {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const src = isObj(v) ? v : {};
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(props)) {
    if (k in src) out[k] = projectValue(src[k], s);
    else if (required.includes(k)) out[k] = placeholder(s);
  }
  return out;
}

function placeholder(s: unknown): unknown {
  if (!isObj(s)) return '';
  // a nullable parameter (OpenAI strict mode's optional one): left out is null
  if (Array.isArray(s.type) && s.type.includes('null')) return null;
  if (Array.isArray(s.anyOf) && s.anyOf.some((x) => isObj(x) && x.type === 'null')) return null;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return projectObject({}, s);
    default:
      return typeof s.minLength === 'number' ? 'x'.repeat(s.minLength) : '';
  }
}

function projectValue(v: unknown, s: unknown): unknown {
  if (!isObj(s)) return v;
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    if (s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return v;
    const text = String(v).toLowerCase();
    return (
      s.enum.find((e) => String(e).toLowerCase() === text) ??
      s.enum.reduce((a, b) =>
        commonPrefix(String(b).toLowerCase(), text) > commonPrefix(String(a).toLowerCase(), text) ? b : a,
      )
    );
  }
  switch (s.type) {
    case 'string':
      return typeof v === 'string'
        ? v
        : v === null || v === undefined
          ? ''
          : typeof v === 'object'
            ? JSON.stringify(v)
            : String(v);
    case 'integer': {
      const n = typeof v === 'number' ? v : Number.parseFloat(String(v));
      return Number.isFinite(n) ? Math.round(n) : placeholder(s);
    }
    case 'number': {
      const n = typeof v === 'number' ? v : Number.parseFloat(String(v));
      return Number.isFinite(n) ? n : placeholder(s);
    }
    case 'boolean':
      return typeof v === 'boolean' ? v : String(v).toLowerCase() === 'true';
    case 'array': {
      const xs = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
      return xs.map((x) => projectValue(x, s.items));
    }
    case 'object':
      return projectObject(v, s);
    default:
      return v;
  }
}

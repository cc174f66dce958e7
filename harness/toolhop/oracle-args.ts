import { pyToJson, tryLiteralEval } from '../core/pyliteral/index.ts';
import type { ToolEntry } from './tools.ts';

/**
 * Plausible arguments for one hop, for the simulator's oracle. Most dataset functions end with an example call
 * (`# Example usage: f('Salisbury Woodland Gardens', 'linked_with', 'park')`) that the dataset authors wrote to
 * produce the hop's answer; when one parses as Python literals it is used, mapped onto parameter names through the
 * `def` signature. Otherwise every required parameter gets a type-appropriate value built from the previous hop's
 * gold answer. Pure: source text in, JSON arguments out.
 */
export function plausibleArguments(
  entry: ToolEntry,
  source: string,
  previousAnswer: string | undefined,
): Record<string, unknown> {
  const props = (entry.schema.parameters.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const required = (entry.schema.parameters as { required?: string[] }).required ?? [];
  const signature = defParameters(source, entry.name);
  for (const call of exampleCalls(source, entry.name)) {
    const args = bindCall(call, signature);
    if (args && required.every((k) => k in args)) return args;
  }
  // No usable example: fill the required parameters from the hop's sub-question (the dataset writes each
  // sub-question with the previous hop's answer substituted in), falling back to the previous answer.
  const entity = entityOf(entry.subQuestion) ?? previousAnswer ?? entry.subQuestion;
  const numbers = numbersOf(entry.subQuestion);
  const out: Record<string, unknown> = {};
  for (const key of required) out[key] = valueForType(props[key], entity, numbers, previousAnswer);
  return out;
}

function valueForType(
  prop: { type?: string; enum?: unknown[]; items?: unknown } | undefined,
  entity: string,
  numbers: number[],
  previousAnswer: string | undefined,
): unknown {
  if (prop?.enum && prop.enum.length) return prop.enum[0];
  switch (prop?.type) {
    case 'integer':
    case 'number': {
      const fromQuestion = numbers.shift();
      if (fromQuestion !== undefined) return fromQuestion;
      const n = Number((previousAnswer ?? '').replace(/,/g, ''));
      return previousAnswer && Number.isFinite(n) ? n : 1;
    }
    case 'boolean':
      return false;
    case 'array':
      return [entity];
    case 'object':
      return {};
    default:
      return entity;
  }
}

const LEADING = new Set(['What', 'Who', 'Which', 'When', 'Where', 'How', 'In', 'On', 'At', 'Is', 'Was', 'Does', 'Did']);

/** The entity a sub-question is about: a quoted title, else the longest run of capitalised words. */
export function entityOf(question: string): string | undefined {
  const quoted = /['"‘“]([^'"’”]{2,})['"’”]/.exec(question);
  if (quoted) return quoted[1];
  let best: string | undefined;
  for (const m of question.matchAll(/[A-Z][\w./'-]*(?:\s+(?:of|and|de|van|von|the|la|le|du|da|di|[A-Z][\w./'-]*))*/g)) {
    const words = m[0].trim().replace(/\?$/, '').split(/\s+/);
    while (words.length && LEADING.has(words[0]!)) words.shift();
    while (words.length && /^(of|and|the|de|van|von|la|le|du|da|di)$/.test(words.at(-1)!)) words.pop();
    const phrase = words.join(' ');
    if (phrase && (!best || phrase.length > best.length)) best = phrase;
  }
  return best;
}

function numbersOf(question: string): number[] {
  return [...question.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}

/** Parameter names of `def name(...)`, in order, without `self`, `*args`, `**kwargs`. */
export function defParameters(source: string, name: string): string[] {
  const m = new RegExp(`def\\s+${escapeRe(name)}\\s*\\(`).exec(source);
  if (!m) return [];
  const inner = balancedArgs(source, m.index + m[0].length);
  if (inner === undefined) return [];
  return splitTopLevel(inner)
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith('*') && p !== '/')
    .map((p) => p.split(/[:=]/)[0]!.trim())
    .filter((p) => p && p !== 'self');
}

/** Argument texts of every `name(...)` that is not the definition itself. */
export function exampleCalls(source: string, name: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`(^|[^\\w.])${escapeRe(name)}\\s*\\(`, 'g');
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const before = source.slice(Math.max(0, m.index - 8), m.index + m[1]!.length);
    if (/def\s*$/.test(before)) continue;
    const inner = balancedArgs(source, m.index + m[0].length);
    if (inner !== undefined) out.push(inner);
  }
  return out;
}

function bindCall(argsText: string, signature: string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const parts = splitTopLevel(argsText)
    .map((p) => p.trim())
    .filter(Boolean);
  let position = 0;
  for (const part of parts) {
    const kw = /^([A-Za-z_]\w*)\s*=(?!=)([\s\S]*)$/.exec(part);
    const valueText = kw ? kw[2]! : part;
    const value = tryLiteralEval(valueText.trim());
    if (value === undefined) return undefined;
    const key = kw ? kw[1]! : signature[position++];
    if (!key) return undefined;
    out[key] = pyToJson(value);
  }
  return parts.length ? out : undefined;
}

/** The text between `(` (already consumed, `start` is just after it) and its matching `)`, skipping strings. */
function balancedArgs(s: string, start: number): string | undefined {
  let depth = 1;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      const end = skipString(s, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return s.slice(start, i);
    } else if (c === '\n' && depth === 1 && /^\s*#/.test(s.slice(s.lastIndexOf('\n', i - 1) + 1, i))) {
      return undefined;
    }
  }
  return undefined;
}

/** Index of the closing quote of the string literal opening at `i` (single, double or triple quoted). */
function skipString(s: string, i: number): number {
  const q = s[i]!;
  const triple = s.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  for (let j = i + close.length; j < s.length; j++) {
    if (s[j] === '\\') {
      j++;
      continue;
    }
    if (!triple && s[j] === '\n') return -1;
    if (s.startsWith(close, j)) return j + close.length - 1;
  }
  return -1;
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      const end = skipString(s, i);
      if (end < 0) break;
      i = end;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(last, i));
      last = i + 1;
    }
  }
  parts.push(s.slice(last));
  return parts;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Writing calls the way a model answers BFCL: the gold calls of a case from its possible answers (or a multi-turn
// ground-truth call string), rendered as BFCL's prompt-mode text `[f(a=1)]`, as FC tool calls `{name: arguments}`,
// or in the Hermes `<tool_call>` format. Java and JavaScript arguments are written as the source strings BFCL's
// type converters read back (`new int[]{1, 2}`, `5L`, `[1, 2]`).
import { floatRepr, pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import { languageOf } from './categories.ts';
import type { FunctionDoc, ParamDoc } from './checker/ast.ts';
import type { BfclCase } from './data.ts';
import type { Keyword } from '../core/pyliteral/index.ts';
import { parseEval } from '../core/pyliteral/index.ts';
import { resolveAstByType } from './decode.ts';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { typeName } from '../core/pyliteral/builtins.ts';
import { isStr } from './py.ts';

export interface GoldCall {
  name: string;
  args: Array<[string, PyValue]>;
}

export class RenderError extends Error {
  override name = 'RenderError';
}

/** The first allowed value of each parameter (skipping "" = may be omitted); a parameter with only "" is left out. */
export function goldCallsOf(c: BfclCase): GoldCall[] {
  const pa = c.possibleAnswer;
  if (!pa || (pa.t !== 'list' && pa.t !== 'tuple')) return [];
  const language = languageOf(c.category);
  return pa.items.map((item) => {
    if (item.t !== 'dict' || item.entries.length === 0)
      throw new RenderError(`${c.id}: a possible answer is not {name: {...}}`);
    const [nameV, params] = item.entries[0]!;
    if (!isStr(nameV) || params.t !== 'dict') throw new RenderError(`${c.id}: a possible answer is not {name: {...}}`);
    const doc = c.entry.functions.find((f) => f.name === nameV.v);
    const required = new Set(doc?.parameters.required ?? []);
    const args: Array<[string, PyValue]> = [];
    for (const [k, allowed] of params.entries) {
      if (!isStr(k)) continue;
      const pdoc = doc?.parameters.properties[k.v];
      const items = allowedItems(allowed);
      // "" marks a parameter that may be left out: leave it out unless the schema requires it.
      if (items.some(isEmptyStr) && !required.has(k.v)) continue;
      const value = items.find((v) => !isEmptyStr(v));
      if (value === undefined) continue;
      const shaped = shapeValue(value, pdoc);
      args.push([k.v, language === 'python' ? shaped : { t: 'str', v: sourceFor(language, shaped, pdoc) }]);
    }
    return { name: nameV.v, args };
  });
}

const isEmptyStr = (v: PyValue) => v.t === 'str' && v.v === '';

/** The allowed values BFCL iterates: a list's items, a str's characters (an answer-key slip BFCL tolerates). */
function allowedItems(v: PyValue): PyValue[] {
  if (v.t === 'list' || v.t === 'tuple') return v.items;
  if (v.t === 'str') return Array.from(v.v, (ch): PyValue => ({ t: 'str', v: ch }));
  return [];
}

const DICT_TYPES = new Set(['dict', 'HashMap', 'object']);

/**
 * A dict parameter's possible answer is `{key: [allowed…]}` (and a list of dicts is a list of those): the value
 * a model should send takes the first allowed value of each key, leaving out keys that may be omitted.
 */
export function shapeValue(v: PyValue, doc: ParamDoc | undefined): PyValue {
  const type = doc?.type ?? '';
  const itemType = doc?.items?.type ?? '';
  if (DICT_TYPES.has(type) && v.t === 'dict') return firstOfEachKey(v);
  if (itemType === 'dict' && v.t === 'list')
    return { t: 'list', items: v.items.map((x) => (x.t === 'dict' ? firstOfEachKey(x) : x)) };
  return v;
}

function firstOfEachKey(d: PyValue & { t: 'dict' }): PyValue {
  const entries: Array<[PyValue, PyValue]> = [];
  for (const [k, allowed] of d.entries) {
    const items = allowedItems(allowed);
    if (items.some(isEmptyStr)) continue;
    const first = items[0];
    if (first !== undefined) entries.push([k, first]);
  }
  return { t: 'dict', entries };
}

// ---------------------------------------------------------------------------------------------------------
// Java and JavaScript source strings

function sourceFor(language: 'java' | 'javascript', v: PyValue, doc: ParamDoc | undefined): string {
  const type = doc?.type ?? 'any';
  const nested = doc?.items?.type;
  return language === 'java' ? javaSource(v, type, nested) : jsSource(v, type, nested);
}

const plain = (v: PyValue): string =>
  v.t === 'str'
    ? v.v
    : v.t === 'bool'
      ? v.v
        ? 'true'
        : 'false'
      : v.t === 'float'
        ? floatRepr(v.v)
        : v.t === 'int'
          ? v.v.toString()
          : pyRepr(v);

/** A double/float without an exponent BFCL's patterns refuse ("1e-05" → "0.00001"). */
function decimal(x: number): string {
  const r = floatRepr(x);
  if (!/[eE]/.test(r)) return r;
  const s = x.toFixed(20).replace(/0+$/, '');
  return s.endsWith('.') ? `${s}0` : s;
}

function javaLiteral(v: PyValue): string {
  if (v.t === 'str') return JSON.stringify(v.v);
  return plain(v);
}

export function javaSource(v: PyValue, type: string, nested?: string): string {
  switch (type) {
    case 'long':
      return `${plain(v)}L`;
    case 'float':
      return `${v.t === 'float' ? decimal(v.v) : plain(v)}f`;
    case 'double':
      return v.t === 'float' ? decimal(v.v) : plain(v);
    case 'Array': {
      if (v.t !== 'list' && v.t !== 'tuple') return plain(v);
      const items = v.items;
      const elementType = nested === 'String' ? 'String' : nested === 'integer' ? 'int' : (nested ?? 'Object');
      // With a declared element type BFCL converts each element without stripping quotes.
      return `new ${elementType}[]{${items.map((x) => (nested ? javaSource(x, nested) : javaLiteral(x))).join(', ')}}`;
    }
    case 'ArrayList': {
      if (v.t !== 'list' && v.t !== 'tuple') return plain(v);
      const items = v.items;
      // Element strings lose their first and last character for String and char: write them quoted.
      const el = (x: PyValue) =>
        nested === 'String' || nested === 'char' ? `"${plain(x)}"` : nested ? javaSource(x, nested) : javaLiteral(x);
      return items.length ? `new ArrayList<>(Arrays.asList(${items.map(el).join(', ')}))` : 'new ArrayList<>()';
    }
    case 'HashMap': {
      if (v.t !== 'dict') return plain(v);
      return `new HashMap<String, Object>() {{ ${v.entries.map(([k, x]) => `put(${JSON.stringify(plain(k))}, ${javaLiteral(x)});`).join(' ')} }}`;
    }
    default:
      return plain(v);
  }
}

function jsLiteral(v: PyValue): string {
  if (v.t === 'str') return JSON.stringify(v.v);
  if (v.t === 'float') return decimal(v.v);
  if (v.t === 'list' || v.t === 'tuple') return `[${v.items.map(jsLiteral).join(', ')}]`;
  if (v.t === 'dict')
    return `{${v.entries.map(([k, x]) => `${JSON.stringify(plain(k))}: ${jsLiteral(x)}`).join(', ')}}`;
  return plain(v);
}

export function jsSource(v: PyValue, type: string, nested?: string): string {
  switch (type) {
    case 'Bigint':
      return `${plain(v)}n`;
    case 'float':
      return v.t === 'float' ? decimal(v.v) : plain(v);
    case 'array': {
      if (v.t !== 'list' && v.t !== 'tuple') return plain(v);
      const items = v.items;
      return `[${items.map((x) => (nested && nested !== 'String' ? jsSource(x, nested) : jsLiteral(x))).join(', ')}]`;
    }
    case 'dict':
      return v.t === 'dict' ? jsLiteral(v) : plain(v);
    default:
      return plain(v);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Multi-turn ground truth: `cd(folder='x')` or `sort('f.pdf')` → a named call

/** One ground-truth call string as a named call; positional arguments take the doc's parameter names in order. */
export function parseCallString(s: string, docs: readonly FunctionDoc[]): GoldCall {
  const node = parseEval(s);
  if (node.k !== 'Call' || node.func.k !== 'Name') throw new RenderError(`not a plain call: ${s}`);
  const name = node.func.id;
  const doc = docs.find((d) => d.name === name);
  const names = doc ? Object.keys(doc.parameters.properties) : [];
  const args: Array<[string, PyValue]> = [];
  node.args.forEach((a, i) => {
    const p = names[i];
    if (!p) throw new RenderError(`positional argument ${i} of ${s} has no parameter name in the function doc`);
    args.push([p, literalOf(a)]);
  });
  for (const kw of node.keywords as Keyword[]) {
    if (kw.arg === null) throw new RenderError(`**kwargs in ${s}`);
    args.push([kw.arg, literalOf(kw.value)]);
  }
  return { name, args };
}

function literalOf(n: Parameters<typeof resolveAstByType>[0]): PyValue {
  const v = resolveAstByType(n);
  if (n.k === 'Name') throw new RenderError(`a name (${typeName(v)}) is not a literal`);
  return v;
}

// ---------------------------------------------------------------------------------------------------------
// Output formats

/** BFCL's prompt-mode output `[f(a=1, b='x'), g()]`. */
export function renderPythonic(calls: readonly GoldCall[]): string {
  return `[${calls.map((c) => `${c.name}(${c.args.map(([k, v]) => `${k}=${pyRepr(v)}`).join(', ')})`).join(', ')}]`;
}

/** Arguments as JSON text that keeps 5 and 5.0 apart. */
export function argumentsJson(args: ReadonlyArray<[string, PyValue]>): string {
  return pyJsonDumps({ t: 'dict', entries: args.map(([k, v]) => [{ t: 'str', v: k }, v]) });
}

/** An OpenAI-compatible tool name: BFCL's FC handlers send dotted names with dots replaced by underscores. */
export function fcName(name: string, underscores: boolean): string {
  return underscores ? name.replace(/\./g, '_') : name;
}

/** A BFCL FC result: `[{name: arguments-json}]`. */
export function renderFc(calls: readonly GoldCall[], underscores = false): PyValue {
  return {
    t: 'list',
    items: calls.map(
      (c): PyValue => ({
        t: 'dict',
        entries: [
          [
            { t: 'str', v: fcName(c.name, underscores) },
            { t: 'str', v: argumentsJson(c.args) },
          ],
        ],
      }),
    ),
  };
}

/** Hermes / Qwen: one `<tool_call>\n{json}\n</tool_call>` block per call. */
export function renderHermes(calls: readonly GoldCall[]): string {
  return calls
    .map((c) => `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${argumentsJson(c.args)}}\n</tool_call>`)
    .join('\n');
}

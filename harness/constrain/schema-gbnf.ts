/**
 * JSON Schema → GBNF, in the value syntax a family writes arguments in: JSON (most families), Python literals
 * (Llama pythonic), Gemma-4's `<|"|>`-quoted literals, or Qwen3-XML's raw parameter text (top level only; nested
 * values are JSON there).
 *
 * Supported: type (one or a list), enum, const, properties/required, items, minItems/maxItems,
 * minLength/maxLength, anyOf/oneOf, nullable through `type: [..., "null"]`. Numeric ranges and `format` are not
 * expressed (a grammar can, but the cases do not need it); `$ref` and unknown keywords give "any value".
 *
 * Objects with declared properties take only those properties (like OpenAI strict mode), each at most once, in
 * any order, with the required ones present: up to MAX_ORDER_FREE properties the grammar tracks the set used
 * so far (2^n small rules); above that, any declared property in any order without the required/once checks.
 *
 * Number literals are syntax only: `1e999` is a grammar number though it overflows a double.
 *
 * Strings are unbounded unless `maxStringLength` (or the schema's maxLength) bounds them: an unbounded string is
 * where a constrained decoder lets a model loop forever, so the bound is what `--max-string-length` sets.
 */
import { alt, classChar, lit, repeat, type RuleSet, seq } from './gbnf.ts';

export type ValueSyntax = 'json' | 'python' | 'gemma' | 'xml';

export interface SchemaGrammarOptions {
  /** Upper bound on every string's length (characters; an escape counts as one). */
  maxStringLength?: number;
  /** One call only (no parallel calls): llama-server's grammar for `parallel_tool_calls: false`. */
  singleCall?: boolean;
}

export const MAX_ORDER_FREE = 6;
/** Integer ranges up to this many values are enumerated in the grammar. */
export const MAX_ENUMERATED_INTS = 256;
/** How deep a schema is turned into structure; deeper values are any value (`toolgauge serve` refuses them). */
export const MAX_SCHEMA_DEPTH = 12;

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys a Gemma-4 call writes bare (an identifier), as vLLM's gemma4 parser reads them. */
export const GEMMA_BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const GEMMA_Q = '<|"|>';

export class SchemaGrammar {
  constructor(
    readonly rules: RuleSet,
    readonly opts: SchemaGrammarOptions = {},
  ) {}

  /** Further calls after the first: any number, or none with `singleCall`. */
  more(inner: string): string {
    return this.opts.singleCall ? '' : `(${inner})*`;
  }

  ws(): string {
    return this.rules.define('ws', '[ \\t\\n]{0,20}');
  }

  /** The rule for a value of `schema` written in `syntax`. */
  value(schema: unknown, syntax: ValueSyntax, depth = 0): string {
    if (depth > MAX_SCHEMA_DEPTH || !isObj(schema)) return this.any(syntax === 'xml' ? 'json' : syntax);
    if ('const' in schema) return this.literalAlt([schema.const], syntax, 'const');
    if (Array.isArray(schema.enum)) return this.literalAlt(schema.enum, syntax, 'enum');
    const union = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null) as
      | unknown[]
      | null;
    if (union && union.length > 0) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return this.rules.define(
        'union',
        alt(union.map((s) => this.value(isObj(s) ? { ...rest, ...s } : s, syntax, depth + 1))),
      );
    }
    const t = schema.type;
    if (Array.isArray(t))
      return this.rules.define('multi', alt(t.map((x) => this.value({ ...schema, type: x }, syntax, depth + 1))));
    switch (t) {
      case 'string':
        return this.string(syntax, schema);
      case 'integer':
        return this.integerIn(schema);
      case 'number':
        return this.number();
      case 'boolean':
        return this.boolean(syntax);
      case 'null':
        return this.null(syntax);
      case 'array':
        return this.array(schema, syntax === 'xml' ? 'json' : syntax, depth);
      case 'object':
        return this.object(schema, syntax === 'xml' ? 'json' : syntax, depth);
      default:
        if (isObj(schema.properties)) return this.object(schema, syntax === 'xml' ? 'json' : syntax, depth);
        if (isObj(schema.items)) return this.array(schema, syntax === 'xml' ? 'json' : syntax, depth);
        return this.any(syntax === 'xml' ? 'json' : syntax);
    }
  }

  // --- scalars -------------------------------------------------------------------------------------------

  private bounds(schema: Schema): { min: number; max: number | undefined } {
    const min = typeof schema.minLength === 'number' ? Math.max(0, Math.floor(schema.minLength)) : 0;
    const own = typeof schema.maxLength === 'number' ? Math.floor(schema.maxLength) : undefined;
    const cap = this.opts.maxStringLength;
    const max = own === undefined ? cap : cap === undefined ? own : Math.min(own, cap);
    return { min, max: max === undefined ? undefined : Math.max(min, max) };
  }

  string(syntax: ValueSyntax, schema: Schema = {}): string {
    const { min, max } = this.bounds(schema);
    switch (syntax) {
      case 'json': {
        const ch = this.rules.define('json-char', '[^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})');
        return this.rules.define('json-string', seq(lit('"'), repeat(ch, min, max), lit('"')));
      }
      case 'python': {
        const sq = this.rules.define('py-char-sq', `[^'\\\\\\n] | "\\\\" [^\\n]`);
        const dq = this.rules.define('py-char-dq', `[^"\\\\\\n] | "\\\\" [^\\n]`);
        return this.rules.define(
          'py-string',
          alt([seq(lit("'"), repeat(sq, min, max), lit("'")), seq(lit('"'), repeat(dq, min, max), lit('"'))]),
        );
      }
      case 'gemma': {
        // anything but the delimiter `<|"|>` (the format has no escape)
        const ch = this.rules.define('gemma-char', '[^<] | "<" ([^|] | "|" ([^"] | "\\"" [^|]))');
        return this.rules.define('gemma-string', seq(lit(GEMMA_Q), repeat(ch, min, max), lit(GEMMA_Q)));
      }
      case 'xml': {
        // raw parameter text: anything up to `</` (the closing `</parameter>`)
        const ch = this.rules.define('xml-char', '[^<] | "<" [^/]');
        return this.rules.define('xml-text', repeat(ch, min, max));
      }
    }
  }

  /**
   * An integer within the schema's bounds: a range of at most MAX_ENUMERATED_INTS values is written out value by
   * value; a wider or open range is any integer (the bound is then checked after decoding, by the schema check).
   */
  integerIn(schema: Schema): string {
    const lo =
      typeof schema.minimum === 'number'
        ? Math.ceil(schema.minimum) + (schema.exclusiveMinimum === true ? 1 : 0)
        : typeof schema.exclusiveMinimum === 'number'
          ? Math.floor(schema.exclusiveMinimum) + 1
          : null;
    const hi =
      typeof schema.maximum === 'number'
        ? Math.floor(schema.maximum) - (schema.exclusiveMaximum === true ? 1 : 0)
        : typeof schema.exclusiveMaximum === 'number'
          ? Math.ceil(schema.exclusiveMaximum) - 1
          : null;
    if (lo === null || hi === null || hi < lo || hi - lo + 1 > MAX_ENUMERATED_INTS) return this.integer();
    const values = Array.from({ length: hi - lo + 1 }, (_, i) => String(lo + i));
    return this.rules.define('int-range', alt(values.map((v) => JSON.stringify(v))));
  }

  integer(): string {
    return this.rules.define('integer', '"-"? ("0" | [1-9] [0-9]{0,18})');
  }

  number(): string {
    const int = this.integer();
    return this.rules.define('number', `${int} ("." [0-9]{1,20})? ([eE] [-+]? [0-9]{1,3})?`);
  }

  boolean(syntax: ValueSyntax): string {
    return syntax === 'python'
      ? this.rules.define('py-bool', '"True" | "False"')
      : this.rules.define('boolean', '"true" | "false"');
  }

  null(syntax: ValueSyntax): string {
    return syntax === 'python' ? this.rules.define('py-none', '"None"') : this.rules.define('null', '"null"');
  }

  /** One of fixed values, each written as the syntax writes it. */
  private literalAlt(values: readonly unknown[], syntax: ValueSyntax, hint: string): string {
    const forms = values.map((v) => this.literalOf(v, syntax));
    return this.rules.define(hint, alt(forms));
  }

  literalOf(v: unknown, syntax: ValueSyntax): string {
    switch (syntax) {
      case 'json':
        return lit(JSON.stringify(v) ?? 'null');
      case 'xml':
        return typeof v === 'string' ? lit(v) : lit(JSON.stringify(v) ?? 'null');
      case 'gemma':
        return lit(gemmaLiteral(v));
      case 'python':
        return typeof v === 'string' ? alt([lit(pyQuoted(v, "'")), lit(pyQuoted(v, '"'))]) : lit(pyLiteral(v));
    }
  }

  // --- containers ----------------------------------------------------------------------------------------

  private delims(_syntax: ValueSyntax): {
    open: string;
    close: string;
    colon: string;
    sep: string;
    aopen: string;
    aclose: string;
  } {
    const ws = this.ws();
    const sep = seq(ws, lit(','), ws);
    return {
      open: seq(lit('{'), ws),
      close: seq(ws, lit('}')),
      colon: seq(ws, lit(':'), ws),
      sep,
      aopen: seq(lit('['), ws),
      aclose: seq(ws, lit(']')),
    };
  }

  keyOf(k: string, syntax: ValueSyntax): string {
    switch (syntax) {
      case 'json':
      case 'xml':
        return lit(JSON.stringify(k));
      case 'python':
        return alt([lit(pyQuoted(k, "'")), lit(pyQuoted(k, '"'))]);
      case 'gemma':
        return GEMMA_BARE_KEY.test(k)
          ? alt([lit(k), lit(`${GEMMA_Q}${k}${GEMMA_Q}`)])
          : lit(`${GEMMA_Q}${k}${GEMMA_Q}`);
    }
  }

  array(schema: Schema, syntax: ValueSyntax, depth: number): string {
    const d = this.delims(syntax);
    const item = this.value(schema.items, syntax, depth + 1);
    const min = typeof schema.minItems === 'number' ? Math.max(0, Math.floor(schema.minItems)) : 0;
    const max = typeof schema.maxItems === 'number' ? Math.floor(schema.maxItems) : undefined;
    let body: string;
    if (max === 0) body = seq(d.aopen, d.aclose);
    else {
      const rest = repeat(seq(d.sep, item), Math.max(0, min - 1), max === undefined ? undefined : max - 1);
      const some = seq(item, rest);
      body = min === 0 ? seq(d.aopen, `(${some})?`, d.aclose) : seq(d.aopen, some, d.aclose);
    }
    return this.rules.define('array', body);
  }

  object(schema: Schema, syntax: ValueSyntax, depth: number): string {
    const d = this.delims(syntax);
    const props = isObj(schema.properties) ? schema.properties : null;
    if (!props || Object.keys(props).length === 0) {
      if (props && schema.additionalProperties === false)
        return this.rules.define('empty-object', seq(d.open, d.close));
      return this.any(syntax, 'object');
    }
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === 'string') : [],
    );
    const pairs = Object.entries(props).map(([k, s]) => ({
      k,
      pair: seq(this.keyOf(k, syntax), d.colon, this.value(s, syntax, depth + 1)),
      required: required.has(k),
    }));
    return this.rules.define('object', seq(d.open, this.members(pairs, d.sep, 'obj'), d.close));
  }

  /**
   * The members of an object (or a call's parameters): each pair at most once, any order, the required ones
   * present. Returns an expression; `sep` goes between members.
   */
  members(pairs: ReadonlyArray<{ k: string; pair: string; required: boolean }>, sep: string, hint: string): string {
    const n = pairs.length;
    if (n === 0) return '';
    if (n > MAX_ORDER_FREE) {
      const any = this.rules.define(`${hint}-member`, alt(pairs.map((p) => p.pair)));
      return `(${any} (${sep} ${any})*)?`;
    }
    const full = (1 << n) - 1;
    const reqMask = pairs.reduce((m, p, i) => (p.required ? m | (1 << i) : m), 0);
    // Build from the full set down, so each state's body names the states after it. State S = members used.
    const names = new Map<number, string>();
    const order = [...Array(full + 1).keys()].sort((a, b) => popcount(b) - popcount(a));
    for (const S of order) {
      const alts: string[] = [];
      for (let i = 0; i < n; i++) {
        if (S & (1 << i)) continue;
        const next = names.get(S | (1 << i))!;
        alts.push(seq(S === 0 ? '' : sep, pairs[i]!.pair, next === '' ? '' : next));
      }
      const done = (S & reqMask) === reqMask;
      if (alts.length === 0) {
        names.set(S, '');
        continue;
      }
      const body = done ? `(${alts.join(' | ')})?` : alts.length === 1 ? alts[0]! : `(${alts.join(' | ')})`;
      names.set(S, this.rules.define(`${hint}-${S.toString(2).padStart(n, '0')}`, body));
    }
    return names.get(0)!;
  }

  /** Any value of the syntax (also: any object). */
  any(syntax: ValueSyntax, only?: 'object'): string {
    const s = syntax === 'xml' ? 'json' : syntax;
    const d = this.delims(s);
    const name = this.rules.reserve(`any-${s}-value`);
    const key =
      s === 'json'
        ? this.string('json')
        : s === 'python'
          ? this.string('python')
          : this.rules.define('gemma-key', `[A-Za-z_] [A-Za-z0-9_]* | ${this.string('gemma')}`);
    const obj = this.rules.define(
      `any-${s}-object`,
      seq(d.open, `(${key} ${d.colon} ${name} (${d.sep} ${key} ${d.colon} ${name})*)?`, d.close),
    );
    const arr = this.rules.define(`any-${s}-array`, seq(d.aopen, `(${name} (${d.sep} ${name})*)?`, d.aclose));
    this.rules.fill(name, alt([obj, arr, this.string(s), this.number(), this.boolean(s), this.null(s)]));
    return only === 'object' ? obj : name;
  }
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/** A value written the way Gemma-4 writes it (strings `<|"|>`-quoted, bare keys when they are identifiers). */
export function gemmaLiteral(v: unknown): string {
  if (typeof v === 'string') return `${GEMMA_Q}${v}${GEMMA_Q}`;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(gemmaLiteral).join(',')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${GEMMA_BARE_KEY.test(k) ? k : `${GEMMA_Q}${k}${GEMMA_Q}`}:${gemmaLiteral(x)}`)
    .join(',')}}`;
}

function pyQuoted(s: string, q: "'" | '"'): string {
  let out = q;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else out += ch;
  }
  return out + q;
}

function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return pyQuoted(v, "'");
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyQuoted(k, "'")}: ${pyLiteral(x)}`)
    .join(', ')}}`;
}

export { classChar };

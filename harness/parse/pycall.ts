/**
 * Python-call syntax for the pythonic family (`[f(a=1, b='x'), g()]`) and the lenient rescue of `f(a=1)`.
 *
 * Argument values are Python literals mapped to JSON: str → string, int/float → number, True/False/None →
 * boolean/null, list → array, dict with string keys → object. This is a local reader (the shared exact
 * `harness/core/pyliteral` did not exist when this was written); it covers every literal form a model emits
 * in a call: all string quote styles and prefixes r/u, escapes (\n \xhh \uXXXX \UXXXXXXXX octal, line
 * continuation), implicit concatenation of adjacent strings, ints with underscores / hex / octal / binary,
 * floats, unary minus and plus.
 *
 * Mode `strict` is the format as specified: only those forms. Mode `loose` also accepts tuples and sets (→ arrays),
 * JSON literals true/false/null, non-string dict keys (→ their JSON text), and positional arguments.
 * Never throws.
 */
import { PY_KEYWORDS } from '../core/pyliteral/keywords.ts';
import { MAX_DEPTH, setOwn, type Budget } from './jsonish.ts';

export type PyMode = 'strict' | 'loose';

export interface PyCall {
  name: string;
  kwargs: Record<string, unknown>;
  /** positional arguments, only in loose mode */
  positional: unknown[];
  start: number;
  end: number;
}

export type PyCallResult = { ok: true; call: PyCall } | { ok: false; truncated: boolean; pos: number };
export type PyListResult =
  | {
      ok: true;
      calls: PyCall[];
      end: number /** loose mode: calls that could not be read (their text) */;
      rejected: string[];
    }
  | { ok: false; truncated: boolean; pos: number };

class Fail {
  constructor(
    readonly truncated: boolean,
    readonly pos: number,
    readonly budget = false,
  ) {}
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const DOTTED = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const PY_NUMBER =
  /(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d(?:_?\d)*)?)([jJ])?/y;

export function isPyIdentifier(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !PY_KEYWORDS.has(s);
}

/** Python whitespace inside brackets: spaces, tabs, newlines (and `\`-newline continuations). */
function isWs(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
}

/** How deep skipCall follows brackets when stepping over a bad call in a list (bounds hostile inputs). */
const SKIP_DEPTH = 32;

class PyReader {
  i: number;
  readonly rejected: string[] = [];
  constructor(
    readonly s: string,
    start: number,
    readonly loose: boolean,
    readonly repairs: Set<string>,
    readonly budget?: Budget,
  ) {
    this.i = start;
  }

  charge(n: number): void {
    const b = this.budget;
    if (!b) return;
    b.work += n;
    if (b.work > b.limit) {
      b.exhausted = true;
      throw new Fail(false, this.i, true);
    }
  }

  fail(): never {
    throw new Fail(this.i >= this.s.length, this.i);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      if (isWs(s[this.i])) this.i++;
      else if (s[this.i] === '\\' && s[this.i + 1] === '\n') this.i += 2;
      else return;
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new Fail(false, this.i);
    this.ws();
    this.charge(1);
    const s = this.s;
    if (this.i >= s.length) this.fail();
    const c = s[this.i]!;
    if (c === '[') return this.seq(']', depth);
    if (c === '(') {
      const v = this.seq(')', depth);
      return v;
    }
    if (c === '{') return this.dictOrSet(depth);
    if (c === '-' || c === '+') {
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      if (typeof v !== 'number') this.fail();
      return c === '-' ? (v === 0 ? 0 : -v) : v;
    }
    if (this.stringStart()) return this.strings();
    IDENT.lastIndex = this.i;
    const m = IDENT.exec(s);
    if (m) {
      const w = m[0];
      const lit: Record<string, unknown> = { True: true, False: false, None: null };
      if (w in lit) {
        this.i += w.length;
        return lit[w];
      }
      if (this.loose && (w === 'true' || w === 'false' || w === 'null')) {
        this.repairs.add('json literals in python call');
        this.i += w.length;
        return w === 'null' ? null : w === 'true';
      }
      if (w === 'set' && s.startsWith('set()', this.i) && this.loose) {
        this.repairs.add('python tuple/set');
        this.i += 5;
        return [];
      }
      this.fail();
    }
    return this.number();
  }

  number(): number {
    PY_NUMBER.lastIndex = this.i;
    const m = PY_NUMBER.exec(this.s);
    if (!m) this.fail();
    if (m[1]) this.fail(); // complex numbers have no JSON form
    const raw = m[0].replace(/_/g, '');
    const next = this.s[this.i + m[0].length];
    if (next !== undefined && /[A-Za-z0-9_]/.test(next)) {
      this.i += m[0].length;
      this.fail();
    }
    // Python forbids leading zeros in non-zero decimal ints (`012`).
    if (/^0\d/.test(raw) && !/[.eE]/.test(raw) && !/^0+$/.test(raw)) this.fail();
    this.i += m[0].length;
    let n: number;
    if (/^0[xX]/.test(raw)) n = Number.parseInt(raw.slice(2), 16);
    else if (/^0[oO]/.test(raw)) n = Number.parseInt(raw.slice(2), 8);
    else if (/^0[bB]/.test(raw)) n = Number.parseInt(raw.slice(2), 2);
    else n = Number(raw);
    if (!Number.isFinite(n)) this.fail();
    return n;
  }

  stringStart(): boolean {
    const m = /^([rRuUbBfF]{0,2})['"]/.exec(this.s.slice(this.i, this.i + 3));
    return m !== null;
  }

  /** Adjacent string literals concatenate (`'a' 'b'` == `'ab'`). */
  strings(): string {
    let out = this.stringLit();
    for (;;) {
      const save = this.i;
      this.ws();
      if (this.i < this.s.length && this.stringStart()) out += this.stringLit();
      else {
        this.i = save;
        return out;
      }
    }
  }

  stringLit(): string {
    const s = this.s;
    const pm = /^[rRuUbBfF]{0,2}/.exec(s.slice(this.i, this.i + 2))!;
    const prefix = pm[0].toLowerCase();
    if (
      prefix.includes('b') ||
      prefix.includes('f') ||
      prefix === 'ur' ||
      prefix === 'ru' ||
      prefix === 'uu' ||
      prefix === 'rr'
    )
      this.fail(); // bytes and f-strings are not literals of a JSON value
    const raw = prefix.includes('r');
    this.i += pm[0].length;
    const q = s[this.i]!;
    const triple = s.startsWith(q.repeat(3), this.i);
    const close = triple ? q.repeat(3) : q;
    this.i += close.length;
    let out = '';
    const from = this.i;
    for (;;) {
      if (this.i >= s.length) {
        this.charge(this.i - from);
        throw new Fail(true, this.i);
      }
      const c = s[this.i]!;
      if (s.startsWith(close, this.i)) {
        this.i += close.length;
        this.charge(this.i - from);
        return out;
      }
      if (!triple && (c === '\n' || c === '\r')) this.fail();
      if (c === '\0') this.fail(); // CPython refuses source containing a NUL byte
      if (c === '\\') {
        if (this.i + 1 >= s.length) throw new Fail(true, s.length);
        if (raw) {
          out += c + s[this.i + 1];
          this.i += 2;
          continue;
        }
        out += this.escape();
        continue;
      }
      out += c;
      this.i++;
    }
  }

  escape(): string {
    const s = this.s;
    const e = s[this.i + 1]!;
    this.i += 2;
    const simple: Record<string, string> = {
      '\n': '',
      '\\': '\\',
      "'": "'",
      '"': '"',
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
    };
    if (e in simple) return simple[e]!;
    const hex = (len: number): string => {
      const h = s.slice(this.i, this.i + len);
      if (h.length < len && /^[0-9a-fA-F]*$/.test(h) && this.i + len > s.length) throw new Fail(true, s.length);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(h)) this.fail();
      this.i += len;
      const cp = Number.parseInt(h, 16);
      if (cp > 0x10ffff) this.fail();
      return String.fromCodePoint(cp);
    };
    if (e === 'x') return hex(2);
    if (e === 'u') return hex(4);
    if (e === 'U') return hex(8);
    if (/[0-7]/.test(e)) {
      let oct = e;
      while (oct.length < 3 && /[0-7]/.test(s[this.i] ?? '')) oct += s[this.i++];
      return String.fromCodePoint(Number.parseInt(oct, 8));
    }
    if (e === 'N') this.fail(); // \N{NAME} needs the Unicode name table
    return '\\' + e; // Python keeps unknown escapes verbatim
  }

  seq(closer: ']' | ')', depth: number): unknown[] {
    const s = this.s;
    this.i++;
    const out: unknown[] = [];
    let sawComma = false;
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === closer) {
        this.i++;
        if (closer === ')') {
          // `(x)` is a parenthesised value, `(x,)` / `()` a tuple
          if (out.length === 1 && !sawComma) return out[0] as unknown[];
          if (!this.loose) this.fail();
          this.repairs.add('python tuple/set');
        }
        return out;
      }
      out.push(this.value(depth + 1));
      this.ws();
      if (s[this.i] === ',') {
        sawComma = true;
        this.i++;
        continue;
      }
      if (s[this.i] !== closer) this.fail();
    }
  }

  dictOrSet(depth: number): unknown {
    const s = this.s;
    this.i++;
    const obj: Record<string, unknown> = {};
    const set: unknown[] = [];
    let kind: 'dict' | 'set' | null = null;
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === '}') {
        this.i++;
        if (kind === 'set') return set;
        return obj;
      }
      const k = this.value(depth + 1);
      this.ws();
      if (s[this.i] === ':' && kind !== 'set') {
        kind = 'dict';
        this.i++;
        const v = this.value(depth + 1);
        let key: string;
        if (typeof k === 'string') key = k;
        else {
          if (!this.loose || (typeof k !== 'number' && typeof k !== 'boolean' && k !== null)) this.fail();
          this.repairs.add('non-string dict keys');
          key = JSON.stringify(k);
        }
        setOwn(obj, key, v);
      } else {
        if (kind === 'dict' || !this.loose) this.fail();
        kind = 'set';
        this.repairs.add('python tuple/set');
        set.push(k);
      }
      this.ws();
      if (s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (s[this.i] !== '}') this.fail();
    }
  }

  /** name(kw=value, ...) */
  call(depth: number): PyCall {
    const s = this.s;
    const start = this.i;
    const re = this.loose ? DOTTED : IDENT;
    re.lastIndex = this.i;
    const m = re.exec(s);
    if (!m) this.fail();
    const name = m[0];
    if (PY_KEYWORDS.has(name)) this.fail();
    this.i += name.length;
    if (this.loose) this.ws();
    if (s[this.i] !== '(') this.fail();
    this.i++;
    const kwargs: Record<string, unknown> = {};
    const positional: unknown[] = [];
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === ')') {
        this.i++;
        return { name, kwargs, positional, start, end: this.i };
      }
      IDENT.lastIndex = this.i;
      const km = IDENT.exec(s);
      let isKw = false;
      if (km && !PY_KEYWORDS.has(km[0])) {
        let j = this.i + km[0].length;
        while (isWs(s[j])) j++;
        if (s[j] === '=' && s[j + 1] !== '=') {
          isKw = true;
          this.i = j + 1;
          if (Object.hasOwn(kwargs, km[0])) this.fail(); // duplicate keyword is a SyntaxError
          setOwn(kwargs, km[0], this.value(depth + 1));
        }
      }
      if (!isKw) {
        if (!this.loose || Object.keys(kwargs).length > 0) this.fail(); // positional after keyword is a SyntaxError
        positional.push(this.value(depth + 1));
      }
      this.ws();
      if (s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (s[this.i] !== ')') this.fail();
    }
  }

  /**
   * After a call that cannot be read: the end of its text (the next `,` or `]` outside brackets and strings),
   * or -1 when the list never closes.
   */
  skipCall(from: number): number {
    const s = this.s;
    let depth = 0;
    let quote: string | null = null;
    let n = 0;
    for (let j = from; j < s.length; j++) {
      if (++n === 256) {
        this.charge(n);
        n = 0;
      }
      const c = s[j]!;
      if (quote) {
        if (c === '\\') j++;
        else if (c === quote) quote = null;
        else if (c === '\n') return -1;
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === '(' || c === '[' || c === '{') {
        if (++depth > SKIP_DEPTH) return -1; // a call nested this deep in a call list is not a call worth keeping
      } else if (c === ')' || c === '}') depth--;
      else if (c === ']') {
        if (depth === 0) return j;
        depth--;
      } else if (c === ',' && depth === 0) return j;
      if (depth < 0) return -1;
    }
    return -1;
  }

  /** [call, call, ...]; in loose mode a call that cannot be read is skipped and reported when the list goes on */
  callList(): PyCall[] {
    const s = this.s;
    if (s[this.i] !== '[') this.fail();
    this.i++;
    const calls: PyCall[] = [];
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === ']' && (calls.length > 0 || this.loose)) {
        this.i++;
        return calls;
      }
      const at = this.i;
      try {
        calls.push(this.call(0));
      } catch (e) {
        if (!this.loose || !(e instanceof Fail) || e.truncated || e.budget) throw e;
        const end = this.skipCall(at);
        // only a bad call among others is skipped: a list that is nothing but one bad "call" is not a call list
        if (end < 0 || (calls.length === 0 && s[end] === ']')) throw e;
        this.rejected.push(s.slice(at, end).trim());
        this.i = end;
      }
      this.ws();
      if (s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (s[this.i] !== ']') this.fail();
    }
  }
}

function wrap<T>(fn: () => T): T | { ok: false; truncated: boolean; pos: number; budget?: boolean } {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Fail)
      return { ok: false, truncated: err.truncated, pos: err.pos, ...(err.budget ? { budget: true } : {}) };
    return { ok: false, truncated: false, pos: 0 };
  }
}

/** Read one Python literal value (for tests and for argument values). */
export function readPyValue(src: string, pos: number, mode: PyMode, repairs = new Set<string>()) {
  return wrap(() => {
    const r = new PyReader(src, pos, mode === 'loose', repairs);
    const value = r.value(0);
    return { ok: true as const, value, end: r.i };
  });
}

export function readPyCall(
  src: string,
  pos: number,
  mode: PyMode,
  repairs = new Set<string>(),
  budget?: Budget,
): PyCallResult {
  return wrap(() => {
    const r = new PyReader(src, pos, mode === 'loose', repairs, budget);
    return { ok: true as const, call: r.call(0) };
  });
}

export function readPyCallList(
  src: string,
  pos: number,
  mode: PyMode,
  repairs = new Set<string>(),
  budget?: Budget,
): PyListResult {
  return wrap(() => {
    const r = new PyReader(src, pos, mode === 'loose', repairs, budget);
    const calls = r.callList();
    return { ok: true as const, calls, end: r.i, rejected: r.rejected };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Rendering JSON values as Python literals (for renderToolCalls('llama_pythonic')).

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  if (typeof v === 'string') return pyStr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return pyStr(String(v));
}

/** Single-quoted, with every character that could break the literal escaped. */
export function pyStr(s: string): string {
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    if (c === '\\') out += '\\\\';
    else if (c === "'") out += "\\'";
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
    else if (code >= 0xd800 && code <= 0xdfff) {
      // keep valid pairs as they are, escape lone surrogates
      const next = s.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += c + s[i + 1];
        i++;
      } else out += '\\u' + code.toString(16).padStart(4, '0');
    } else out += c;
  }
  return out + "'";
}

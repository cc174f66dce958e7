// Python's json.loads, losslessly: `5` is an int and `5.0` a float (JSON.parse cannot tell them apart, and BFCL's
// checker does), ints keep every digit (bigint), NaN/Infinity/-Infinity are accepted, duplicate keys keep the
// first key's position with the last value, and the errors fall where CPython's scanner raises.
import type { PyValue } from './value.ts';
import { floatRepr } from './repr.ts';
import { setOwn } from '../set-own.ts';

export class PyJsonError extends Error {
  override name = 'PyJsonError';
}

// sys.get_int_max_str_digits() default in CPython 3.11: int() of a longer decimal string raises ValueError.
const INT_MAX_STR_DIGITS = 4300;
const NUMBER = /(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * json.loads(text) as a PyValue; throws PyJsonError where Python raises. Read by JSON.parse when it reads the text
 * as Python does (plainAsPython) with object keys in file order (JS puts integer-like keys first), else by Reader.
 */
export function pyJsonLoads(text: string): PyValue {
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    return readPyJson(text);
  }
  return plainAsPython(text, true) ? fromParsed(plain) : readPyJson(text);
}

/** pyJsonLoads by the lossless reader alone (tests hold the JSON.parse path to it). */
export function readPyJson(text: string): PyValue {
  const r = new Reader(text);
  r.ws();
  const v = r.value(0);
  r.ws();
  if (r.i !== text.length) r.fail('Extra data');
  return v;
}

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  fail(msg: string): never {
    throw new PyJsonError(`${msg}: char ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.i = i;
  }

  value(depth: number): PyValue {
    // CPython's C scanner recurses; past about a thousand levels it raises RecursionError.
    if (depth > 900) this.fail('RecursionError');
    const s = this.s;
    const c = s[this.i];
    switch (c) {
      case '"':
        this.i++;
        return { t: 'str', v: this.string() };
      case '{':
        this.i++;
        return this.object(depth);
      case '[':
        this.i++;
        return this.array(depth);
      case 'n':
        if (s.startsWith('null', this.i)) return ((this.i += 4), { t: 'none' });
        break;
      case 't':
        if (s.startsWith('true', this.i)) return ((this.i += 4), { t: 'bool', v: true });
        break;
      case 'f':
        if (s.startsWith('false', this.i)) return ((this.i += 5), { t: 'bool', v: false });
        break;
      case 'N':
        if (s.startsWith('NaN', this.i)) return ((this.i += 3), { t: 'float', v: NaN });
        break;
      case 'I':
        if (s.startsWith('Infinity', this.i)) return ((this.i += 8), { t: 'float', v: Infinity });
        break;
      case '-':
        if (s.startsWith('-Infinity', this.i)) return ((this.i += 9), { t: 'float', v: -Infinity });
        break;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(s);
    if (m && m.index === this.i) {
      this.i = NUMBER.lastIndex;
      const [, int, frac, exp] = m;
      if (frac === undefined && exp === undefined) {
        if (int!.replace('-', '').length > INT_MAX_STR_DIGITS)
          this.fail('Exceeds the limit for integer string conversion');
        return { t: 'int', v: BigInt(int!) };
      }
      return { t: 'float', v: Number(int! + (frac ?? '') + (exp ?? '')) };
    }
    this.fail('Expecting value');
  }

  string(): string {
    const s = this.s;
    let out = '';
    for (;;) {
      const start = this.i;
      while (this.i < s.length) {
        const u = s.charCodeAt(this.i);
        if (u === 0x22 || u === 0x5c || u < 0x20) break;
        this.i++;
      }
      out += s.slice(start, this.i);
      if (this.i >= s.length) this.fail('Unterminated string starting at');
      const c = s[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c !== '\\') this.fail('Invalid control character at');
      const e = s[this.i + 1];
      if (e === undefined) this.fail('Unterminated string starting at');
      this.i += 2;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          let u = this.hex4();
          // A high surrogate followed by an escaped low one is one code point, as in Python.
          if (u >= 0xd800 && u <= 0xdbff && s[this.i] === '\\' && s[this.i + 1] === 'u') {
            const save = this.i;
            this.i += 2;
            const lo = this.hex4();
            if (lo >= 0xdc00 && lo <= 0xdfff) u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            else this.i = save;
          }
          out += String.fromCodePoint(u);
          break;
        }
        default:
          this.i -= 1;
          this.fail('Invalid \\escape');
      }
    }
  }

  hex4(): number {
    const h = this.s.slice(this.i, this.i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('Invalid \\uXXXX escape');
    this.i += 4;
    return parseInt(h, 16);
  }

  object(depth: number): PyValue {
    const entries: Array<[PyValue, PyValue]> = [];
    // Keys are strings here, so the key text itself tells repeated keys apart.
    const index = new Map<string, number>();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return { t: 'dict', entries };
    }
    for (;;) {
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes');
      this.i++;
      const name = this.string();
      const key: PyValue = { t: 'str', v: name };
      this.ws();
      if (this.s[this.i] !== ':') this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      const at = index.get(name);
      if (at === undefined) {
        index.set(name, entries.length);
        entries.push([key, v]);
      } else entries[at]![1] = v;
      this.ws();
      const c = this.s[this.i];
      if (c === '}') {
        this.i++;
        return { t: 'dict', entries };
      }
      if (c !== ',') this.fail("Expecting ',' delimiter");
      this.i++;
      this.ws();
    }
  }

  array(depth: number): PyValue {
    const items: PyValue[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return { t: 'list', items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i];
      if (c === ']') {
        this.i++;
        return { t: 'list', items };
      }
      if (c !== ',') this.fail("Expecting ',' delimiter");
      this.i++;
      this.ws();
    }
  }
}

/**
 * JSON text that pyJsonLoads (and Python's json.loads) reads back as the same value: ints without a point, floats
 * in repr form (`5.0`), NaN/Infinity as Python writes them. Tuples and sets become arrays; other values (bytes,
 * complex, Ellipsis) have no JSON form and throw.
 */
export function pyJsonDumps(v: PyValue): string {
  switch (v.t) {
    case 'none':
      return 'null';
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'int':
      return v.v.toString();
    case 'float':
      return Number.isNaN(v.v)
        ? 'NaN'
        : v.v === Infinity
          ? 'Infinity'
          : v.v === -Infinity
            ? '-Infinity'
            : floatRepr(v.v);
    case 'str':
      return JSON.stringify(v.v);
    case 'list':
    case 'tuple':
    case 'set':
      return `[${v.items.map(pyJsonDumps).join(', ')}]`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${pyJsonDumps(k.t === 'str' ? k : { t: 'str', v: k.t === 'int' ? k.v.toString() : String((k as { v?: unknown }).v) })}: ${pyJsonDumps(x)}`).join(', ')}}`;
    default:
      throw new PyJsonError(`${v.t} has no JSON form`);
  }
}

/** A float read from JSON text, kept apart from ints so it prints as Python prints it (`5.0`, `1e-07`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/**
 * A PyValue as plain JS data for documents (function docs): dicts → objects, lists → arrays, ints → numbers
 * (beyond 2**53 → their decimal string), floats → PyFloat, so a doc printed back with pythonJsonDumps matches
 * Python's json.dumps.
 */
export function pyToPlain(v: PyValue): unknown {
  switch (v.t) {
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of v.entries) setOwn(out, k.t === 'str' ? k.v : pyJsonDumps(k), pyToPlain(x));
      return out;
    }
    case 'list':
    case 'tuple':
    case 'set':
      return v.items.map(pyToPlain);
    case 'int':
      return v.v <= BigInt(Number.MAX_SAFE_INTEGER) && v.v >= -BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v.v)
        : v.v.toString();
    case 'float':
      return new PyFloat(v.v);
    case 'bool':
      return v.v;
    case 'none':
      return null;
    case 'str':
      return v.v;
    default:
      return pyJsonDumps(v);
  }
}

/** Deep copy of plain document data that keeps PyFloat values (structuredClone would drop their class). */
export function clonePlain<T>(x: T): T {
  if (typeof x !== 'object' || x === null || x instanceof PyFloat) return x;
  if (Array.isArray(x)) return x.map(clonePlain) as T;
  // Keys, not entries: no [key, value] pair is built per key (BFCL's docs are copied per case).
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) setOwn(out, k, clonePlain((x as Record<string, unknown>)[k]));
  return out as T;
}

// A JSON string or number token, found from where the previous one ended (in valid JSON text nothing else holds a
// digit or a quote).
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;
// The numbers JSON.parse reads as pyToPlain gives them: safe integers, -0 apart (an int 0 in Python).
const SAFE_INT = /^-?(?:0|[1-9]\d{0,14})$/;
// The reader's nesting limit (Python's RecursionError): text with fewer brackets than this cannot reach it.
const MAX_DEPTH = 900;

// A string that is an integer-like key once read (digits, written as such or as \u0030–\u0039): JS objects hold
// such keys first, whatever their place in the text.
const DIGITS_STRING = /^"(?:\d|\\u003\d)+"$/i;

/**
 * Whether JSON.parse reads valid JSON text exactly as pyToPlain(pyJsonLoads(text)) does; with `keyOrder`, also
 * with object keys in file order (no string that could be an integer-like key).
 */
function plainAsPython(text: string, keyOrder = false): boolean {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const t = m[0];
    if (t.charCodeAt(0) !== 34) {
      if (t === '-0' || !SAFE_INT.test(t)) return false;
    } else if (keyOrder && DIGITS_STRING.test(t)) return false;
  }
  if (text.length > 2 * MAX_DEPTH) {
    let opens = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if ((c === 91 || c === 123) && ++opens > MAX_DEPTH) return false;
    }
  }
  return true;
}

/**
 * pyToPlain(pyJsonLoads(text)), errors included, read by JSON.parse when the text holds no number it would read
 * differently (a float, an int beyond 2^53, -0, NaN, Infinity) and cannot nest past the reader's limit.
 */
export function pyJsonToPlain(text: string): unknown {
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    return pyToPlain(pyJsonLoads(text));
  }
  return plainAsPython(text) ? plain : pyToPlain(pyJsonLoads(text));
}

/** JSON.parse's value of text plainAsPython accepted with keyOrder, as the PyValue the reader gives. */
function fromParsed(x: unknown): PyValue {
  switch (typeof x) {
    case 'string':
      return { t: 'str', v: x };
    case 'number':
      return { t: 'int', v: BigInt(x) };
    case 'boolean':
      return { t: 'bool', v: x };
    default: {
      if (x === null) return { t: 'none' };
      if (Array.isArray(x)) {
        const items = new Array<PyValue>(x.length);
        for (let i = 0; i < x.length; i++) items[i] = fromParsed(x[i]);
        return { t: 'list', items };
      }
      const o = x as Record<string, unknown>;
      const keys = Object.keys(o);
      const entries = new Array<[PyValue, PyValue]>(keys.length);
      for (let i = 0; i < keys.length; i++) entries[i] = [{ t: 'str', v: keys[i]! }, fromParsed(o[keys[i]!])];
      return { t: 'dict', entries };
    }
  }
}

/**
 * A JSON reader that reports where a value ends inside a larger text, so parsers can read
 * `<tool_call>{…}</tool_call>` or `{…}; {…}` sequentially instead of cutting the text with regexes
 * (a regex cut breaks as soon as an argument string contains the closing marker).
 *
 * Mode `json` accepts exactly RFC 8259 (same values as `JSON.parse`). Mode `loose` also accepts what
 * models commonly emit by mistake, and records each repair in `repairs`: single-quoted strings, Python
 * literals (True/False/None), trailing commas, unquoted keys, raw control characters and invalid escapes
 * in strings, `+1` / `.5` / `5.` numbers.
 *
 * Never throws: failures come back as `{ ok: false, truncated }`, `truncated` meaning the text ended
 * inside the value (an unclosed object, array or string).
 */

export type ReadMode = 'json' | 'loose';

export interface ReadOk {
  ok: true;
  value: unknown;
  /** index just after the value */
  end: number;
}
export interface ReadErr {
  ok: false;
  /** the input ended before the value was complete */
  truncated: boolean;
  pos: number;
  /** refused for nesting deeper than MAX_DEPTH */
  deep?: boolean;
}
export type ReadResult = ReadOk | ReadErr;

/** Deeper nesting than this is refused (not a stack overflow). */
export const MAX_DEPTH = 200;

class Fail {
  constructor(
    readonly truncated: boolean,
    readonly pos: number,
    readonly deep = false,
  ) {}
}

/** Assign without letting a `__proto__` key change the prototype (JSON.parse makes it an own property). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LOOSE_NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const FULL_JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const IDENT_KEY = /[A-Za-z_$][\w$-]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

class Reader {
  private i: number;
  constructor(
    private readonly s: string,
    start: number,
    private readonly loose: boolean,
    private readonly repairs: Set<string> | undefined,
  ) {
    this.i = start;
  }

  get pos(): number {
    return this.i;
  }

  private repair(what: string): void {
    this.repairs?.add(what);
  }

  private fail(): never {
    throw new Fail(this.i >= this.s.length, this.i);
  }

  skipWs(): void {
    const s = this.s;
    while (this.i < s.length && isWs(s.charCodeAt(this.i))) this.i++;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new Fail(false, this.i, true);
    this.skipWs();
    const s = this.s;
    if (this.i >= s.length) this.fail();
    const c = s[this.i]!;
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string('"');
    if (c === "'" && this.loose) {
      this.repair('single quotes');
      return this.string("'");
    }
    if (c === 't' && s.startsWith('true', this.i)) return this.word(4, true);
    if (c === 'f' && s.startsWith('false', this.i)) return this.word(5, false);
    if (c === 'n' && s.startsWith('null', this.i)) return this.word(4, null);
    if (this.loose) {
      if (s.startsWith('True', this.i)) return this.python(4, true);
      if (s.startsWith('False', this.i)) return this.python(5, false);
      if (s.startsWith('None', this.i)) return this.python(4, null);
    }
    return this.number();
  }

  /** A literal must not run into an identifier character (`nullx` is not `null`). */
  private word(len: number, v: unknown): unknown {
    const next = this.s[this.i + len];
    if (next !== undefined && /[\w$]/.test(next)) this.fail();
    this.i += len;
    return v;
  }

  private python(len: number, v: unknown): unknown {
    const r = this.word(len, v);
    this.repair('python literals');
    return r;
  }

  private number(): number {
    const s = this.s;
    const re = this.loose ? LOOSE_NUMBER : JSON_NUMBER;
    re.lastIndex = this.i;
    const m = re.exec(s);
    if (!m) {
      // A partial literal at the end of input ("tr", "-") is a truncation, not garbage.
      const rest = s.slice(this.i);
      if (rest.length < 5 && ['true', 'false', 'null', '-'].some((w) => w.startsWith(rest))) throw new Fail(true, this.i);
      this.fail();
    }
    let text = m[0];
    if (this.loose && !FULL_JSON_NUMBER.test(text)) this.repair('non-JSON number');
    if (text.startsWith('+')) text = text.slice(1);
    this.i += m[0].length;
    // Like JSON.parse, a literal beyond the double range reads as ±Infinity (1e400) or ±0 (1e-400).
    return Number(text);
  }

  string(q: '"' | "'"): string {
    const s = this.s;
    this.i++; // opening quote
    let out = '';
    let runStart = this.i;
    for (;;) {
      if (this.i >= s.length) throw new Fail(true, this.i);
      const code = s.charCodeAt(this.i);
      if (code === (q === '"' ? 0x22 : 0x27)) {
        out += s.slice(runStart, this.i);
        this.i++;
        return out;
      }
      if (code === 0x5c) {
        out += s.slice(runStart, this.i);
        out += this.escape(q);
        runStart = this.i;
        continue;
      }
      if (code < 0x20) {
        if (!this.loose) this.fail();
        this.repair('raw control characters in strings');
      }
      this.i++;
    }
  }

  private escape(q: '"' | "'"): string {
    const s = this.s;
    this.i++; // backslash
    if (this.i >= s.length) throw new Fail(true, this.i);
    const e = s[this.i]!;
    this.i++;
    switch (e) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = s.slice(this.i, this.i + 4);
        if (!HEX4.test(hex)) {
          if (this.i + 4 > s.length && /^[0-9a-fA-F]*$/.test(hex)) throw new Fail(true, s.length);
          this.i -= 2;
          this.fail();
        }
        this.i += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        if (!this.loose) {
          this.i -= 2;
          this.fail();
        }
        if (e === "'") {
          if (q === '"') this.repair('invalid escapes');
          return "'";
        }
        if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(this.i, this.i + 2))) {
          this.repair('invalid escapes');
          const ch = String.fromCharCode(parseInt(s.slice(this.i, this.i + 2), 16));
          this.i += 2;
          return ch;
        }
        if (e === '\n') {
          this.repair('invalid escapes');
          return '';
        }
        // Python keeps unknown escapes verbatim (`\d` stays backslash-d).
        this.repair('invalid escapes');
        return '\\' + e;
    }
  }

  private key(): string {
    const s = this.s;
    const c = s[this.i];
    if (c === '"') return this.string('"');
    if (this.loose && c === "'") {
      this.repair('single quotes');
      return this.string("'");
    }
    if (this.loose) {
      IDENT_KEY.lastIndex = this.i;
      const m = IDENT_KEY.exec(s);
      if (m) {
        this.repair('unquoted keys');
        this.i += m[0].length;
        return m[0];
      }
    }
    return this.fail();
  }

  private object(depth: number): Record<string, unknown> {
    const s = this.s;
    this.i++; // {
    const out: Record<string, unknown> = {};
    this.skipWs();
    if (s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.skipWs();
      if (this.i >= s.length) this.fail();
      if (this.loose && s[this.i] === '}') {
        // reached only after a comma: `{"a": 1,}`
        this.repair('trailing commas');
        this.i++;
        return out;
      }
      const k = this.key();
      this.skipWs();
      if (s[this.i] !== ':') this.fail();
      this.i++;
      const v = this.value(depth + 1);
      setOwn(out, k, v);
      this.skipWs();
      const c = s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return out;
      }
      this.fail();
    }
  }

  private array(depth: number): unknown[] {
    const s = this.s;
    this.i++; // [
    const out: unknown[] = [];
    this.skipWs();
    if (s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.skipWs();
      if (this.loose && s[this.i] === ']') {
        this.repair('trailing commas');
        this.i++;
        return out;
      }
      out.push(this.value(depth + 1));
      this.skipWs();
      const c = s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return out;
      }
      this.fail();
    }
  }
}

/** Read one JSON value starting at `pos` (leading whitespace skipped). */
export function readJsonValue(src: string, pos: number, mode: ReadMode, repairs?: Set<string>): ReadResult {
  const local = new Set<string>();
  const r = new Reader(src, pos, mode === 'loose', local);
  try {
    const value = r.value(0);
    if (repairs) for (const x of local) repairs.add(x);
    return { ok: true, value, end: r.pos };
  } catch (err) {
    if (err instanceof Fail) return { ok: false, truncated: err.truncated, pos: err.pos, deep: err.deep };
    return { ok: false, truncated: false, pos };
  }
}

/** Parse a whole string as one value (surrounding whitespace allowed). */
export function parseJsonish(src: string, mode: ReadMode, repairs?: Set<string>): ReadResult {
  const r = readJsonValue(src, 0, mode, repairs);
  if (!r.ok) return r;
  let i = r.end;
  while (i < src.length && isWs(src.charCodeAt(i))) i++;
  if (i !== src.length) return { ok: false, truncated: false, pos: i };
  return r;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

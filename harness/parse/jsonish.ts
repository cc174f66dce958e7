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
  /** stopped because the parse's work budget ran out */
  budget?: boolean;
}
export type ReadResult = ReadOk | ReadErr;

/** Deeper nesting than this is refused (not a stack overflow). */
export const MAX_DEPTH = 200;

/** Characters readers may examine, shared by every read of one parse (keeps hostile inputs linear). */
export interface Budget {
  work: number;
  limit: number;
  exhausted: boolean;
}

/** A remembered read of the container starting at a position (a JSON value reads the same whoever asks). */
export type MemoEntry =
  | { ok: true; value: unknown; end: number; repairs: string[] }
  | { ok: false; truncated: boolean; pos: number };

export interface ReadOptions {
  /** container reads by start position, for this text and mode only */
  memo?: Map<number, MemoEntry>;
  budget?: Budget;
  /** read `{{`/`}}` as `{`/`}` (Python format strings), loose mode only */
  undouble?: boolean;
}

class Fail {
  constructor(
    readonly truncated: boolean,
    readonly pos: number,
    readonly deep = false,
    readonly budget = false,
  ) {}
}

/** Assign without letting a `__proto__` key change the prototype (JSON.parse makes it an own property). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LOOSE_NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const FULL_JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const IDENT_KEY = /[A-Za-z_$][\w$-]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
/** Characters a string read passes without a look: not a quote, backslash or control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the run must stop at
const STRING_RUN = /[^"'\\\x00-\x1f]+/y;

/**
 * Returned (never thrown) by every reader method when the read fails; the reason is in `Reader.err`. Failures are
 * values, not exceptions: a throw costs microseconds, and the lenient scan tries many candidates that fail.
 */
const FAIL: unique symbol = Symbol('fail');
type R<T> = T | typeof FAIL;

/** The repairs of a container read without any (shared: entries are only read). */
const NO_REPAIRS: string[] = [];

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

class Reader {
  private i: number;
  /** repairs in order (a memoised container replays the ones made inside it) */
  readonly log: string[] = [];
  err: Fail | null = null;
  private readonly memo: Map<number, MemoEntry> | undefined;
  private readonly budget: Budget | undefined;
  private readonly undouble: boolean;
  constructor(
    private readonly s: string,
    start: number,
    private readonly loose: boolean,
    opts: ReadOptions = {},
  ) {
    this.i = start;
    this.memo = opts.memo;
    this.budget = opts.budget;
    this.undouble = loose && opts.undouble === true;
  }

  get pos(): number {
    return this.i;
  }

  private repair(what: string): void {
    this.log.push(what);
  }

  private fail(): typeof FAIL {
    this.err = new Fail(this.i >= this.s.length, this.i);
    return FAIL;
  }

  private failAt(truncated: boolean, pos: number, deep = false, budget = false): typeof FAIL {
    this.err = new Fail(truncated, pos, deep, budget);
    return FAIL;
  }

  /** Charge `n` units of work; past the budget the read stops (reported by the caller, never a hang). */
  private charge(n: number): boolean {
    const b = this.budget;
    if (!b) return true;
    b.work += n;
    if (b.work <= b.limit) return true;
    b.exhausted = true;
    this.failAt(false, this.i, false, true);
    return false;
  }

  /**
   * The containers being read, as pairs (start, length of the log at the start): a failure fails all of them at
   * once (see rememberFailure()).
   */
  private readonly open: number[] = [];

  /** A container read through the memo: a hit replays it, a miss reads and remembers it. */
  private container(depth: number, kind: '{' | '['): unknown {
    const memo = this.memo;
    if (!memo) return kind === '{' ? this.object(depth) : this.array(depth);
    const start = this.i;
    const hit = memo.get(start);
    if (hit) {
      if (!hit.ok) return this.failAt(hit.truncated, hit.pos);
      this.i = hit.end;
      for (const r of hit.repairs) this.log.push(r);
      return hit.value;
    }
    this.open.push(start, this.log.length);
    const value = kind === '{' ? this.object(depth) : this.array(depth);
    if (value === FAIL) return FAIL; // the open containers are remembered once, by rememberFailure()
    const mark = this.open.pop()!;
    this.open.pop();
    memo.set(start, {
      ok: true,
      value,
      end: this.i,
      repairs: this.log.length > mark ? [...new Set(this.log.slice(mark))] : NO_REPAIRS,
    });
    return value;
  }

  /** After a failure: the containers still open failed there too (depth and budget failures excepted). */
  rememberFailure(): void {
    const memo = this.memo;
    const e = this.err;
    if (!memo || !e || e.deep || e.budget) return;
    const open = this.open;
    for (let k = 0; k < open.length; k += 2)
      if (!memo.has(open[k]!)) memo.set(open[k]!, { ok: false, truncated: e.truncated, pos: e.pos });
  }

  skipWs(): boolean {
    const s = this.s;
    const from = this.i;
    while (this.i < s.length && isWs(s.charCodeAt(this.i))) this.i++;
    return this.i - from > 64 ? this.charge(this.i - from) : true;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) return this.failAt(false, this.i, true);
    if (!this.skipWs() || !this.charge(1)) return FAIL;
    const s = this.s;
    if (this.i >= s.length) return this.fail();
    const c = s[this.i]!;
    if (c === '{') return this.container(depth, '{');
    if (c === '[') return this.container(depth, '[');
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
    if (next !== undefined && /[\w$]/.test(next)) return this.fail();
    this.i += len;
    return v;
  }

  private python(len: number, v: unknown): unknown {
    const r = this.word(len, v);
    if (r !== FAIL) this.repair('python literals');
    return r;
  }

  private number(): R<number> {
    const s = this.s;
    const re = this.loose ? LOOSE_NUMBER : JSON_NUMBER;
    re.lastIndex = this.i;
    // `test` leaves the match's end in lastIndex (no match array)
    if (!re.test(s)) {
      // A partial literal at the end of input ("tr", "-") is a truncation, not garbage.
      const rest = s.slice(this.i, this.i + 6);
      if (
        rest.length < 5 &&
        this.i + rest.length >= s.length &&
        ['true', 'false', 'null', '-'].some((w) => w.startsWith(rest))
      )
        return this.failAt(true, this.i);
      return this.fail();
    }
    const end = re.lastIndex;
    let text = s.slice(this.i, end);
    if (this.loose && !FULL_JSON_NUMBER.test(text)) this.repair('non-JSON number');
    if (text.startsWith('+')) text = text.slice(1);
    this.i = end;
    // Like JSON.parse, a literal beyond the double range reads as ±Infinity (1e400) or ±0 (1e-400).
    return Number(text);
  }

  string(q: '"' | "'"): R<string> {
    const s = this.s;
    this.i++; // opening quote
    let out = '';
    let runStart = this.i;
    const from = this.i;
    for (;;) {
      // a run of characters that need no look (no quote, backslash or control character) in one step of the regex
      // engine: a loop over each of them ran interpreted in a short-lived process
      STRING_RUN.lastIndex = this.i;
      if (STRING_RUN.test(s)) this.i = STRING_RUN.lastIndex;
      if (this.i >= s.length) {
        if (!this.charge(this.i - from)) return FAIL;
        return this.failAt(true, this.i);
      }
      const code = s.charCodeAt(this.i);
      if (code === (q === '"' ? 0x22 : 0x27)) {
        out += s.slice(runStart, this.i);
        this.i++;
        if (!this.charge(this.i - from)) return FAIL;
        return out;
      }
      if (code === 0x5c) {
        out += s.slice(runStart, this.i);
        const e = this.escape(q);
        if (e === FAIL) return FAIL;
        out += e;
        runStart = this.i;
        continue;
      }
      if (code < 0x20) {
        if (!this.loose) return this.fail();
        this.repair('raw control characters in strings');
      }
      this.i++;
    }
  }

  private escape(q: '"' | "'"): R<string> {
    const s = this.s;
    this.i++; // backslash
    if (this.i >= s.length) return this.failAt(true, this.i);
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
          if (this.i + 4 > s.length && /^[0-9a-fA-F]*$/.test(hex)) return this.failAt(true, s.length);
          this.i -= 2;
          return this.fail();
        }
        this.i += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        if (!this.loose) {
          this.i -= 2;
          return this.fail();
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

  private key(): R<string> {
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

  /** After a `}`: in undouble mode a second `}` belongs to the same close. */
  private closeBrace(): void {
    this.i++;
    if (this.undouble && this.s[this.i] === '}') this.i++;
  }

  private object(depth: number): R<Record<string, unknown>> {
    const s = this.s;
    this.i++; // {
    if (this.undouble && s[this.i] === '{') this.i++;
    const out: Record<string, unknown> = {};
    if (!this.skipWs()) return FAIL;
    if (s[this.i] === '}') {
      this.closeBrace();
      return out;
    }
    for (;;) {
      if (!this.skipWs()) return FAIL;
      if (this.i >= s.length) return this.fail();
      if (this.loose && s[this.i] === '}') {
        // reached only after a comma: `{"a": 1,}`
        this.repair('trailing commas');
        this.closeBrace();
        return out;
      }
      const k = this.key();
      if (k === FAIL || !this.skipWs()) return FAIL;
      if (s[this.i] !== ':') return this.fail();
      this.i++;
      const v = this.value(depth + 1);
      if (v === FAIL) return FAIL;
      setOwn(out, k, v);
      if (!this.skipWs()) return FAIL;
      const c = s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.closeBrace();
        return out;
      }
      return this.fail();
    }
  }

  private array(depth: number): R<unknown[]> {
    const s = this.s;
    this.i++; // [
    const out: unknown[] = [];
    if (!this.skipWs()) return FAIL;
    if (s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      if (!this.skipWs()) return FAIL;
      if (this.loose && s[this.i] === ']') {
        this.repair('trailing commas');
        this.i++;
        return out;
      }
      const v = this.value(depth + 1);
      if (v === FAIL) return FAIL;
      out.push(v);
      if (!this.skipWs()) return FAIL;
      const c = s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return out;
      }
      return this.fail();
    }
  }
}

/** Read one JSON value starting at `pos` (leading whitespace skipped). Never throws. */
export function readJsonValue(
  src: string,
  pos: number,
  mode: ReadMode,
  repairs?: Set<string>,
  opts?: ReadOptions,
): ReadResult {
  const r = new Reader(src, pos, mode === 'loose', opts);
  const value = r.value(0);
  if (value === FAIL) {
    const e = r.err ?? new Fail(false, pos);
    r.rememberFailure();
    return { ok: false, truncated: e.truncated, pos: e.pos, deep: e.deep, ...(e.budget ? { budget: true } : {}) };
  }
  if (repairs) for (const x of r.log) repairs.add(x);
  return { ok: true, value, end: r.pos };
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

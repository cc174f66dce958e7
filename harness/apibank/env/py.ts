// A small Python runtime over PyValue: the operations API-Bank's API classes perform (item access, `in`, str
// methods, int()/float()/str(), truthiness, strptime/strftime) with Python's results and exception messages, so a
// TypeScript port of a class produces the same result dict, including the `exception` text, as the class itself.
import { hashKey, pyEquals, pyLower, pyRepr, pyStrip, type PyValue } from '../../core/pyliteral/index.ts';
import { pyFloatOfStr, pyIntOfStr, truthy, typeName } from '../../core/pyliteral/builtins.ts';
import { UnhashableError } from '../../core/pyliteral/equality.ts';

export { truthy };

export type V = PyValue;

/** A Python exception: `type` is its class name, `message` what str(e) gives. */
export class PyExc extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    // No JavaScript stack: a PyExc is a Python exception the emulated class raises and its caller catches (the
    // calculator raises one for most malformed formulas), so capturing a stack for each was most of its cost.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.type = type;
    this.name = 'PyExc';
  }
  /** The reference's error text: "<Type>: <str(e)>". */
  describe(): string {
    return `${this.type}: ${this.message}`;
  }
}

/** Something the TypeScript environment cannot decide (network, missing model); never a verdict. */
export class Undetermined extends Error {
  override name = 'Undetermined';
}

export const raise = (type: string, message: string): never => {
  throw new PyExc(type, message);
};

// ---- constructors
export const NONE: V = { t: 'none' };
export const S = (v: string): V => ({ t: 'str', v });
export const I = (v: number | bigint): V => ({ t: 'int', v: BigInt(v) });
export const F = (v: number): V => ({ t: 'float', v });
export const B = (v: boolean): V => ({ t: 'bool', v });
export const L = (items: V[]): V => ({ t: 'list', items });
export const T = (items: V[]): V => ({ t: 'tuple', items });
/** A dict with str keys, in the given order. */
export const D = (obj: Record<string, V>): V => ({
  t: 'dict',
  entries: Object.entries(obj).map(([k, v]) => [S(k), v]),
});

export const deepCopy = <X>(v: X): X => structuredClone(v);

// ---- type names and conversions
/** Python's str(v). */
export function str(v: V): string {
  return v.t === 'str' ? v.v : pyRepr(v);
}

export const eq = (a: V, b: V): boolean => pyEquals(a, b);

/** The JS string of a str value, or the AttributeError Python raises when calling str method `method` on it. */
export function asStr(v: V, method: string): string {
  if (v.t !== 'str') raise('AttributeError', `'${typeName(v)}' object has no attribute '${method}'`);
  return (v as { v: string }).v;
}
export const strip = (v: V): string => pyStrip(asStr(v, 'strip'));
export const lower = (v: V): string => pyLower(asStr(v, 'lower'));
export const upper = (v: V): string => asStr(v, 'upper').toUpperCase();

/** str.zfill. */
export function zfill(s: string, width: number): string {
  const cps = [...s];
  if (cps.length >= width) return s;
  const pad = '0'.repeat(width - cps.length);
  if (cps[0] === '+' || cps[0] === '-') return cps[0] + pad + cps.slice(1).join('');
  return pad + s;
}

/** int(v) as api_call applies it to an `int` parameter. */
export function toInt(v: V): V {
  switch (v.t) {
    case 'int':
      return v;
    case 'bool':
      return I(v.v ? 1 : 0);
    case 'float':
      if (Number.isNaN(v.v)) return raise('ValueError', 'cannot convert float NaN to integer');
      if (!Number.isFinite(v.v)) return raise('OverflowError', 'cannot convert float infinity to integer');
      return I(BigInt(Math.trunc(v.v)));
    case 'str': {
      const n = pyIntOfStr(v.v);
      return n === undefined ? raise('ValueError', `invalid literal for int() with base 10: ${pyRepr(v)}`) : I(n);
    }
    default:
      return raise(
        'TypeError',
        `int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`,
      );
  }
}

/** float(v) as api_call applies it to a `float` parameter. */
export function toFloat(v: V): V {
  switch (v.t) {
    case 'float':
      return v;
    case 'int': {
      const x = Number(v.v);
      if (!Number.isFinite(x)) return raise('OverflowError', 'int too large to convert to float');
      return F(x);
    }
    case 'bool':
      return F(v.v ? 1 : 0);
    case 'str': {
      const x = pyFloatOfStr(v.v);
      return x === undefined ? raise('ValueError', `could not convert string to float: ${pyRepr(v)}`) : F(x);
    }
    default:
      return raise('TypeError', `float() argument must be a string or a real number, not '${typeName(v)}'`);
  }
}

// ---- containers
function key(k: V): string {
  try {
    return hashKey(k);
  } catch (err) {
    if (err instanceof UnhashableError) return raise('TypeError', `unhashable type: '${typeName(k)}'`);
    throw err;
  }
}
const asKey = (k: V | string): V => (typeof k === 'string' ? S(k) : k);

function dictIndex(d: Extract<V, { t: 'dict' }>, k: V): number {
  const h = key(k);
  return d.entries.findIndex(([x]) => {
    try {
      return hashKey(x) === h;
    } catch {
      return false;
    }
  });
}

/** container[k] */
export function getItem(c: V, k0: V | string): V {
  const k = asKey(k0);
  if (c.t === 'dict') {
    const i = dictIndex(c, k);
    if (i < 0) return raise('KeyError', pyRepr(k));
    return c.entries[i]![1];
  }
  if (c.t === 'list' || c.t === 'tuple') {
    if (k.t !== 'int' && k.t !== 'bool') {
      return raise('TypeError', `${c.t} indices must be integers or slices, not ${typeName(k)}`);
    }
    const n = c.items.length;
    let i = k.t === 'int' ? Number(k.v) : k.v ? 1 : 0;
    if (i < 0) i += n;
    if (i < 0 || i >= n) return raise('IndexError', `${c.t} index out of range`);
    return c.items[i]!;
  }
  if (c.t === 'str') {
    if (k.t !== 'int' && k.t !== 'bool')
      return raise('TypeError', 'string indices must be integers, not ' + `'${typeName(k)}'`);
    const cps = [...c.v];
    let i = k.t === 'int' ? Number(k.v) : k.v ? 1 : 0;
    if (i < 0) i += cps.length;
    if (i < 0 || i >= cps.length) return raise('IndexError', 'string index out of range');
    return S(cps[i]!);
  }
  return raise('TypeError', `'${typeName(c)}' object is not subscriptable`);
}

/** container[k] = v (dict and list only, as the classes use). */
export function setItem(c: V, k0: V | string, v: V): void {
  const k = asKey(k0);
  if (c.t === 'dict') {
    const i = dictIndex(c, k);
    if (i < 0) c.entries.push([k, v]);
    else c.entries[i]![1] = v;
    return;
  }
  if (c.t === 'list') {
    getItem(c, k); // bounds and type errors
    let i = Number((k as { v: bigint }).v);
    if (i < 0) i += c.items.length;
    c.items[i] = v;
    return;
  }
  raise('TypeError', `'${typeName(c)}' object does not support item assignment`);
}

export function delItem(c: V, k0: V | string): void {
  const k = asKey(k0);
  if (c.t !== 'dict') return raise('TypeError', `'${typeName(c)}' object doesn't support item deletion`);
  const i = dictIndex(c, k);
  if (i < 0) raise('KeyError', pyRepr(k));
  c.entries.splice(i, 1);
}

/** dict.pop(k) */
export function pop(c: V, k0: V | string): V {
  const v = getItem(c, k0);
  delItem(c, k0);
  return v;
}

/** `x in c` */
export function contains(c: V, x0: V | string): boolean {
  const x = asKey(x0);
  switch (c.t) {
    case 'dict':
      return dictIndex(c, x) >= 0;
    case 'set':
      key(x);
      return c.items.some((y) => pyEquals(x, y));
    case 'list':
    case 'tuple':
      return c.items.some((y) => pyEquals(y, x));
    case 'str':
      if (x.t !== 'str') return raise('TypeError', `'in <string>' requires string as left operand, not ${typeName(x)}`);
      return c.v.includes((x as { v: string }).v);
    default:
      return raise('TypeError', `argument of type '${typeName(c)}' is not iterable`);
  }
}

/** Iterating `for x in c`. */
export function iter(c: V): V[] {
  switch (c.t) {
    case 'dict':
      return c.entries.map(([k]) => k);
    case 'list':
    case 'tuple':
    case 'set':
      return [...c.items];
    case 'str':
      return [...c.v].map(S);
    default:
      return raise('TypeError', `'${typeName(c)}' object is not iterable`);
  }
}

export function len(c: V): number {
  switch (c.t) {
    case 'dict':
      return c.entries.length;
    case 'list':
    case 'tuple':
    case 'set':
      return c.items.length;
    case 'str':
      return [...c.v].length;
    default:
      return raise('TypeError', `object of type '${typeName(c)}' has no len()`);
  }
}

// ---- numbers and ordering
type Real = { k: 'int'; v: bigint } | { k: 'float'; v: number };
function real(v: V): Real | undefined {
  if (v.t === 'int') return { k: 'int', v: v.v };
  if (v.t === 'bool') return { k: 'int', v: v.v ? 1n : 0n };
  if (v.t === 'float') return { k: 'float', v: v.v };
  return undefined;
}
const OPS: Record<'<' | '<=' | '>' | '>=', string> = { '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** a <op> b for reals and strs (the comparisons the classes make); TypeError otherwise. */
export function cmp(a: V, op: '<' | '<=' | '>' | '>=', b: V): boolean {
  const ra = real(a);
  const rb = real(b);
  let c: number;
  if (ra && rb) {
    if (ra.k === 'int' && rb.k === 'int') c = ra.v < rb.v ? -1 : ra.v > rb.v ? 1 : 0;
    else {
      const x = ra.k === 'int' ? Number(ra.v) : ra.v;
      const y = rb.k === 'int' ? Number(rb.v) : rb.v;
      if (Number.isNaN(x) || Number.isNaN(y)) return false;
      c = x < y ? -1 : x > y ? 1 : 0;
    }
  } else if (a.t === 'str' && b.t === 'str') {
    c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  } else {
    return raise('TypeError', `'${OPS[op]}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
  }
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

// ---- datetime.strptime / strftime for the formats API-Bank uses
export interface DateTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}
const FIELD: Record<string, string> = {
  Y: '(\\d\\d\\d\\d)',
  m: '(1[0-2]|0[1-9]|[1-9])',
  d: '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])',
  H: '(2[0-3]|[0-1]\\d|\\d)',
  M: '([0-5]\\d|\\d)',
  S: '(6[0-1]|[0-5]\\d|\\d)',
};
const fmtCache = new Map<string, { re: RegExp; fields: string[] }>();
function compileFormat(fmt: string): { re: RegExp; fields: string[] } {
  let hit = fmtCache.get(fmt);
  if (hit) return hit;
  const fields: string[] = [];
  let src = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i]!;
    if (ch === '%') {
      const f = fmt[++i]!;
      fields.push(f);
      src += FIELD[f]!;
    } else if (/\s/.test(ch)) {
      while (i + 1 < fmt.length && /\s/.test(fmt[i + 1]!)) i++;
      src += '\\s+';
    } else src += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  hit = { re: new RegExp('^' + src, 'i'), fields };
  fmtCache.set(fmt, hit);
  return hit;
}
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number): number =>
  [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** datetime.datetime.strptime(v, fmt), for formats made of %Y %m %d %H %M %S, '-', ':' and spaces. */
export function strptime(v: V, fmt: string): DateTime {
  // Argument Clinic's message names None as "None", other types by their type name.
  if (v.t !== 'str')
    return raise('TypeError', `strptime() argument 1 must be str, not ${v.t === 'none' ? 'None' : typeName(v)}`);
  const s = (v as { v: string }).v;
  const { re, fields } = compileFormat(fmt);
  const m = re.exec(s);
  if (!m) return raise('ValueError', `time data ${pyRepr(v)} does not match format ${pyRepr(S(fmt))}`);
  if (m[0].length !== s.length) return raise('ValueError', `unconverted data remains: ${s.slice(m[0].length)}`);
  const dt: DateTime = { y: 1900, mo: 1, d: 1, h: 0, mi: 0, s: 0 };
  fields.forEach((f, k) => {
    const n = Number.parseInt(m[k + 1]!.trim(), 10);
    if (f === 'Y') dt.y = n;
    else if (f === 'm') dt.mo = n;
    else if (f === 'd') dt.d = n;
    else if (f === 'H') dt.h = n;
    else if (f === 'M') dt.mi = n;
    else if (f === 'S') dt.s = n;
  });
  const hasYear = fields.includes('Y');
  if (dt.y < 1) raise('ValueError', `year ${dt.y} is out of range`);
  // _strptime checks the day against a leap year when no year was given, then datetime() against 1900.
  const checkYear = !hasYear && dt.mo === 2 && dt.d === 29 ? 1904 : dt.y;
  if (dt.d > daysIn(checkYear, dt.mo)) raise('ValueError', 'day is out of range for month');
  if (dt.d > daysIn(dt.y, dt.mo)) raise('ValueError', 'day is out of range for month');
  if (dt.s > 59) raise('ValueError', 'second must be in 0..59');
  return dt;
}

const p2 = (n: number): string => String(n).padStart(2, '0');
/** strftime for %Y %m %d %H %M %S (glibc: %Y is not zero-padded). */
export function strftime(dt: DateTime, fmt: string): string {
  return fmt.replace(/%([YmdHMS])/g, (_, f: string) =>
    f === 'Y'
      ? String(dt.y)
      : f === 'm'
        ? p2(dt.mo)
        : f === 'd'
          ? p2(dt.d)
          : f === 'H'
            ? p2(dt.h)
            : f === 'M'
              ? p2(dt.mi)
              : p2(dt.s),
  );
}
export const dtKey = (dt: DateTime): number =>
  ((((dt.y * 13 + dt.mo) * 32 + dt.d) * 24 + dt.h) * 60 + dt.mi) * 60 + dt.s;

/** A caught exception turned into the value str(e) the class stores in `exception`. */
export function excText(err: unknown): string {
  if (err instanceof PyExc) return err.message;
  throw err;
}

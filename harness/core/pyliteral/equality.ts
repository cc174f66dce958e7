// Python `==` and hashing-equivalence over PyValue.
import type { PyValue } from './value.ts';

type Num = { k: 'int'; v: bigint } | { k: 'float'; v: number } | { k: 'complex'; re: number; im: number };

function asNum(x: PyValue): Num | undefined {
  switch (x.t) {
    case 'int':
      return { k: 'int', v: x.v };
    case 'bool':
      return { k: 'int', v: x.v ? 1n : 0n };
    case 'float':
      return { k: 'float', v: x.v };
    case 'complex':
      return { k: 'complex', re: x.re, im: x.im };
    default:
      return undefined;
  }
}

/** float == int, exactly (Python does not round the int to a float first). */
function floatEqInt(f: number, i: bigint): boolean {
  return Number.isInteger(f) && BigInt(f) === i;
}

function realEq(a: Num & { k: 'int' | 'float' }, b: Num & { k: 'int' | 'float' }): boolean {
  if (a.k === 'int') return b.k === 'int' ? a.v === b.v : floatEqInt(b.v, a.v);
  return b.k === 'int' ? floatEqInt(a.v, b.v) : a.v === b.v;
}

function numEq(a: Num, b: Num): boolean {
  if (a.k === 'complex' && b.k === 'complex') return a.re === b.re && a.im === b.im;
  if (a.k === 'complex') return a.im === 0 && realEq({ k: 'float', v: a.re }, b as Num & { k: 'int' | 'float' });
  if (b.k === 'complex') return b.im === 0 && realEq(a, { k: 'float', v: b.re });
  return realEq(a, b);
}

/** Thrown by hashKey for a value Python cannot hash (list, dict, set, or a tuple holding one). */
export class UnhashableError extends Error {
  override name = 'UnhashableError';
}

const numKey = (f: number): string => {
  if (Number.isInteger(f)) return `n${BigInt(f)}`; // equal to the int of the same value
  if (f === Infinity) return 'f+inf';
  if (f === -Infinity) return 'f-inf';
  return `f${f}`; // JS's shortest round-trip form is unique per double (NaN cannot come out of a literal)
};

/**
 * A string that two hashable values share exactly when Python considers them equal (and so the same dict key or
 * set element): 1, 1.0, True and (1+0j) share one; -0.0 and 0 share one.
 */
export function hashKey(x: PyValue): string {
  switch (x.t) {
    case 'int':
      return `n${x.v}`;
    case 'bool':
      return x.v ? 'n1' : 'n0';
    case 'float':
      return numKey(x.v);
    case 'complex':
      return x.im === 0 ? numKey(x.re) : `c${numKey(x.re === 0 ? 0 : x.re)},${numKey(x.im)}`;
    case 'str':
      return `s${JSON.stringify(x.v)}`;
    case 'bytes':
      return `b${Buffer.from(x.v).toString('hex')}`;
    case 'none':
      return 'N';
    case 'ellipsis':
      return 'E';
    case 'tuple':
      return `t(${x.items.map(hashKey).join(',')})`;
    default:
      throw new UnhashableError(`unhashable type: '${x.t}'`);
  }
}

function keyMap(entries: Array<[PyValue, PyValue]>): Map<string, PyValue> | undefined {
  const m = new Map<string, PyValue>();
  try {
    for (const [k, v] of entries) m.set(hashKey(k), v);
  } catch (err) {
    if (err instanceof UnhashableError) return undefined;
    throw err;
  }
  return m;
}

/** Python's `a == b` for literal values. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  const na = asNum(a);
  const nb = asNum(b);
  if (na || nb) return na !== undefined && nb !== undefined && numEq(na, nb);
  switch (a.t) {
    case 'str':
      return b.t === 'str' && a.v === b.v;
    case 'bytes':
      return b.t === 'bytes' && a.v.length === b.v.length && a.v.every((x, k) => x === b.v[k]);
    case 'none':
    case 'ellipsis':
      return b.t === a.t;
    case 'list':
    case 'tuple':
      return b.t === a.t && a.items.length === b.items.length && a.items.every((x, k) => pyEquals(x, b.items[k]!));
    case 'set': {
      if (b.t !== 'set' || a.items.length !== b.items.length) return false;
      const mb = keyMap(b.items.map((x) => [x, x]));
      if (!mb) return false;
      return a.items.every((x) => {
        try {
          return mb.has(hashKey(x));
        } catch {
          return false;
        }
      });
    }
    case 'dict': {
      if (b.t !== 'dict' || a.entries.length !== b.entries.length) return false;
      const mb = keyMap(b.entries);
      if (!mb) return false;
      return a.entries.every(([k, v]) => {
        let bv: PyValue | undefined;
        try {
          bv = mb.get(hashKey(k));
        } catch {
          return false;
        }
        return bv !== undefined && pyEquals(v, bv);
      });
    }
    default:
      return false;
  }
}

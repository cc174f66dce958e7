// ast.literal_eval of CPython 3.11 (Lib/ast.py), applied to the tree `parseEvalTree` builds.
import { hashKey, UnhashableError } from './equality.ts';
import type { Node } from './nodes.ts';
import { setLetterOf } from './unicode.ts';
import { PyLiteralError, type PyValue } from './value.ts';

function fail(msg = 'malformed node or string'): never {
  throw new PyLiteralError(msg);
}

/** Whether a Name is `set` once NFKC-normalised with Python 3.11's Unicode data (`ｓｅｔ()` is `set()`). */
function isSetName(n: Node & { k: 'Name' }): boolean {
  if (n.raw === undefined) return n.id === 'set';
  const cps = Array.from(n.raw);
  if (cps.length !== 3) return false;
  return cps.every((ch, k) => {
    const cp = ch.codePointAt(0)!;
    const letter = cp < 0x80 ? ch : setLetterOf(cp);
    return letter === 'set'[k];
  });
}

// _convert_num: a Constant whose type is exactly int, float or complex (bool is not).
function convertNum(node: Node): PyValue {
  if (node.k !== 'Constant') return fail();
  const v = node.value;
  return v.t === 'int' || v.t === 'float' || v.t === 'complex' ? v : fail();
}

// _convert_signed_num
function convertSignedNum(node: Node): PyValue {
  if (node.k !== 'UnaryOp' || (node.op !== 'UAdd' && node.op !== 'USub')) return convertNum(node);
  const x = convertNum(node.operand);
  if (node.op === 'UAdd') return x;
  if (x.t === 'int') return { t: 'int', v: -x.v };
  if (x.t === 'float') return { t: 'float', v: -x.v };
  if (x.t === 'complex') return { t: 'complex', re: -x.re, im: -x.im };
  return fail();
}

function hashable(x: PyValue): string {
  try {
    return hashKey(x);
  } catch (err) {
    if (err instanceof UnhashableError) fail(`TypeError: ${err.message}`);
    throw err;
  }
}

/** literal_eval's `_convert`: the value of a tree made only of literal nodes; PyLiteralError otherwise. */
export function literalValue(node: Node): PyValue {
  switch (node.k) {
    case 'Constant':
      return node.value;
    case 'Tuple':
      return { t: 'tuple', items: node.elts.map(literalValue) };
    case 'List':
      return { t: 'list', items: node.elts.map(literalValue) };
    case 'Set': {
      // set(map(_convert, elts)): the first of equal elements stays.
      const seen = new Set<string>();
      const items: PyValue[] = [];
      for (const e of node.elts) {
        const x = literalValue(e);
        const k = hashable(x);
        if (!seen.has(k)) {
          seen.add(k);
          items.push(x);
        }
      }
      return { t: 'set', items };
    }
    case 'Call':
      if (node.func.k === 'Name' && isSetName(node.func) && node.args.length === 0 && node.keywords.length === 0) {
        return { t: 'set', items: [] };
      }
      return fail();
    case 'Dict': {
      // dict(zip(map(_convert, keys), map(_convert, values))): a later equal key replaces the value and keeps the
      // first key and position. A `**x` item has no key (None), which _convert refuses.
      const index = new Map<string, number>();
      const entries: Array<[PyValue, PyValue]> = [];
      const keys = node.keys.map((kn) => (kn === null ? fail() : literalValue(kn)));
      const values = node.values.map(literalValue);
      keys.forEach((k, i) => {
        const h = hashable(k);
        const at = index.get(h);
        if (at === undefined) {
          index.set(h, entries.length);
          entries.push([k, values[i]!]);
        } else entries[at]![1] = values[i]!;
      });
      return { t: 'dict', entries };
    }
    case 'BinOp': {
      if (node.op !== 'Add' && node.op !== 'Sub') return fail();
      const left = convertSignedNum(node.left);
      const right = convertNum(node.right);
      if ((left.t === 'int' || left.t === 'float') && right.t === 'complex') {
        let l: number;
        if (left.t === 'int') {
          l = Number(left.v); // PyLong_AsDouble: correctly rounded, OverflowError past the float range
          if (!Number.isFinite(l)) fail('OverflowError: int too large to convert to float');
        } else l = left.v;
        // complex arithmetic of 3.11: the real operand becomes (l, 0.0) and parts combine pairwise.
        return node.op === 'Add'
          ? { t: 'complex', re: l + right.re, im: 0 + right.im }
          : { t: 'complex', re: l - right.re, im: 0 - right.im };
      }
      return fail();
    }
    default:
      return convertSignedNum(node);
  }
}

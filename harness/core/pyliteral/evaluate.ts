// ast.literal_eval of CPython 3.11 (Lib/ast.py), applied to the parsed tree.
import { hashKey, UnhashableError } from './equality.ts';
import type { Node } from './parser.ts';
import { PyLiteralError, type PyValue } from './value.ts';

function fail(msg: string): never {
  throw new PyLiteralError(msg);
}

/** Evaluation result plus the reason, if any, that the value is not exactly representable. */
export interface Evaluated {
  value: PyValue;
  unsupported?: string;
}

export function evaluate(root: Node): Evaluated {
  let unsupported: string | undefined;

  // _convert_num: a Constant whose type is exactly int, float or complex (bool is not).
  const convertNum = (node: Node): PyValue => {
    switch (node.n) {
      case 'int':
        return { t: 'int', v: node.v };
      case 'float':
        return { t: 'float', v: node.v };
      case 'imag':
        return { t: 'complex', re: 0, im: node.v };
      default:
        return fail('malformed node or string');
    }
  };

  // _convert_signed_num
  const convertSignedNum = (node: Node): PyValue => {
    if (node.n !== 'unary') return convertNum(node);
    const x = convertNum(node.operand);
    if (node.op === '+') return x;
    switch (x.t) {
      case 'int':
        return { t: 'int', v: -x.v };
      case 'float':
        return { t: 'float', v: -x.v };
      case 'complex':
        return { t: 'complex', re: -x.re, im: -x.im };
      default:
        return fail('unreachable');
    }
  };

  const hashable = (x: PyValue): string => {
    try {
      return hashKey(x);
    } catch (err) {
      if (err instanceof UnhashableError) fail(`TypeError: ${err.message}`);
      throw err;
    }
  };

  const convert = (node: Node): PyValue => {
    switch (node.n) {
      case 'int':
      case 'float':
      case 'imag':
        return convertNum(node);
      case 'str':
        if (node.unsupported) unsupported ??= node.unsupported;
        return { t: 'str', v: String.fromCodePoint(...node.cps) };
      case 'bytes':
        return { t: 'bytes', v: Uint8Array.from(node.data) };
      case 'bool':
        return { t: 'bool', v: node.v };
      case 'none':
        return { t: 'none' };
      case 'ellipsis':
        return { t: 'ellipsis' };
      case 'tuple':
        return { t: 'tuple', items: node.elts.map(convert) };
      case 'list':
        return { t: 'list', items: node.elts.map(convert) };
      case 'set': {
        // set(map(_convert, elts)): the first of equal elements stays.
        const seen = new Set<string>();
        const items: PyValue[] = [];
        for (const e of node.elts) {
          const x = convert(e);
          const k = hashable(x);
          if (!seen.has(k)) {
            seen.add(k);
            items.push(x);
          }
        }
        return { t: 'set', items };
      }
      case 'call':
        if (node.func.n === 'name') return { t: 'set', items: [] };
        return fail('malformed node or string');
      case 'dict': {
        // dict(zip(keys, values)): a later equal key replaces the value and keeps the first key and position.
        const index = new Map<string, number>();
        const entries: Array<[PyValue, PyValue]> = [];
        node.keys.forEach((kn, i) => {
          const k = convert(kn);
          const v = convert(node.values[i]!);
          const h = hashable(k);
          const at = index.get(h);
          if (at === undefined) {
            index.set(h, entries.length);
            entries.push([k, v]);
          } else entries[at]![1] = v;
        });
        return { t: 'dict', entries };
      }
      case 'binop': {
        const left = convertSignedNum(node.left);
        const right = convertNum(node.right);
        if ((left.t === 'int' || left.t === 'float') && right.t === 'complex') {
          let l: number;
          if (left.t === 'int') {
            l = Number(left.v); // PyLong_AsDouble: correctly rounded, OverflowError past the float range
            if (!Number.isFinite(l)) fail('OverflowError: int too large to convert to float');
          } else l = left.v;
          // complex arithmetic of 3.11: the real operand becomes (l, 0.0) and parts combine pairwise.
          return node.op === '+'
            ? { t: 'complex', re: l + right.re, im: 0 + right.im }
            : { t: 'complex', re: l - right.re, im: 0 - right.im };
        }
        return fail('malformed node or string');
      }
      case 'unary':
        return convertSignedNum(node);
      case 'name':
        return fail('malformed node or string');
    }
  };

  const value = convert(root);
  // Python surrogate code points that a JS string would fuse into one character.
  return unsupported ? { value, unsupported } : { value };
}

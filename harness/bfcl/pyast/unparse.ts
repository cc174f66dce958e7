// `ast.unparse(node)` of CPython 3.11 (Lib/ast.py, _Unparser) for the expression nodes a decoded model call can
// hold where BFCL keeps source text (a call without keyword arguments, a subscript) or evaluates it (a BinOp).
// Nodes whose text this module does not reproduce (lambdas, comprehensions, f-strings, walrus, await, yield)
// raise BfclUnsupported rather than guess.
import { floatRepr, pyRepr } from '../../core/pyliteral/index.ts';
import { BfclUnsupported } from '../py.ts';
import type { Node } from '../../core/pyliteral/index.ts';

// _Precedence
const P = {
  NAMED_EXPR: 1,
  TUPLE: 2,
  YIELD: 3,
  TEST: 4,
  OR: 5,
  AND: 6,
  NOT: 7,
  CMP: 8,
  EXPR: 9,
  BOR: 9,
  BXOR: 10,
  BAND: 11,
  SHIFT: 12,
  ARITH: 13,
  TERM: 14,
  FACTOR: 15,
  POWER: 16,
  AWAIT: 17,
  ATOM: 18,
};
const next = (p: number) => Math.min(p + 1, P.ATOM);

const BINOP: Record<string, [string, number]> = {
  Add: ['+', P.ARITH],
  Sub: ['-', P.ARITH],
  Mult: ['*', P.TERM],
  MatMult: ['@', P.TERM],
  Div: ['/', P.TERM],
  Mod: ['%', P.TERM],
  LShift: ['<<', P.SHIFT],
  RShift: ['>>', P.SHIFT],
  BitOr: ['|', P.BOR],
  BitXor: ['^', P.BXOR],
  BitAnd: ['&', P.BAND],
  FloorDiv: ['//', P.TERM],
  Pow: ['**', P.POWER],
};
const UNOP: Record<string, [string, number]> = {
  Invert: ['~', P.FACTOR],
  Not: ['not', P.NOT],
  UAdd: ['+', P.FACTOR],
  USub: ['-', P.FACTOR],
};
const CMPOP: Record<string, string> = {
  Eq: '==',
  NotEq: '!=',
  Lt: '<',
  LtE: '<=',
  Gt: '>',
  GtE: '>=',
  Is: 'is',
  IsNot: 'is not',
  In: 'in',
  NotIn: 'not in',
};

const INFSTR = '1e309';

/** ast.unparse(node). */
export function unparse(root: Node): string {
  const prec = new Map<Node, number>();
  const get = (n: Node) => prec.get(n) ?? P.TEST;
  const set = (p: number, ...ns: Node[]) => ns.forEach((n) => prec.set(n, p));
  const paren = (cond: boolean, body: string) => (cond ? `(${body})` : body);

  const constant = (n: Node & { k: 'Constant' }): string => {
    const v = n.value;
    if (v.t === 'ellipsis') return '...';
    const prefix = n.kind === 'u' ? 'u' : '';
    if (v.t === 'float' || v.t === 'complex') {
      const r = v.t === 'float' ? floatRepr(v.v) : pyRepr(v);
      return prefix + r.replace(/inf/g, INFSTR).replace(/nan/g, `(${INFSTR}-${INFSTR})`);
    }
    return prefix + pyRepr(v);
  };

  const t = (n: Node): string => {
    switch (n.k) {
      case 'Constant':
        return constant(n);
      case 'Name':
        return n.id;
      case 'Attribute': {
        set(P.ATOM, n.value);
        const sep = n.value.k === 'Constant' && (n.value.value.t === 'int' || n.value.value.t === 'bool') ? ' ' : '';
        return `${t(n.value)}${sep}.${n.attr}`;
      }
      case 'Call': {
        set(P.ATOM, n.func);
        const parts = [
          ...n.args.map(t),
          ...n.keywords.map((kw) => (kw.arg === null ? `**${t(kw.value)}` : `${kw.arg}=${t(kw.value)}`)),
        ];
        return `${t(n.func)}(${parts.join(', ')})`;
      }
      case 'Subscript': {
        set(P.ATOM, n.value);
        const s = n.slice;
        const inner = s.k === 'Tuple' && s.elts.length > 0 ? itemsView(s.elts) : t(s);
        return `${t(n.value)}[${inner}]`;
      }
      case 'Slice':
        return `${n.lower ? t(n.lower) : ''}:${n.upper ? t(n.upper) : ''}${n.step ? `:${t(n.step)}` : ''}`;
      case 'Starred':
        set(P.EXPR, n.value);
        return `*${t(n.value)}`;
      case 'List':
        return `[${n.elts.map(t).join(', ')}]`;
      case 'Tuple':
        return paren(n.elts.length === 0 || get(n) > P.TUPLE, itemsView(n.elts));
      case 'Set':
        return n.elts.length ? `{${n.elts.map(t).join(', ')}}` : '{*()}';
      case 'Dict':
        return `{${n.keys
          .map((k, i) => {
            const v = n.values[i]!;
            if (k === null) {
              set(P.EXPR, v);
              return `**${t(v)}`;
            }
            return `${t(k)}: ${t(v)}`;
          })
          .join(', ')}}`;
      case 'UnaryOp': {
        const [op, p] = UNOP[n.op]!;
        set(p, n.operand);
        const body = `${op}${p === P.FACTOR ? '' : ' '}${t(n.operand)}`;
        return paren(get(n) > p, body);
      }
      case 'BinOp': {
        const [op, p] = BINOP[n.op]!;
        const right = op === '**';
        set(right ? next(p) : p, n.left);
        set(right ? p : next(p), n.right);
        const body = `${t(n.left)} ${op} ${t(n.right)}`;
        return paren(get(n) > p, body);
      }
      case 'Compare': {
        set(next(P.CMP), n.left, ...n.comparators);
        const body = t(n.left) + n.ops.map((o, i) => ` ${CMPOP[o]} ${t(n.comparators[i]!)}`).join('');
        return paren(get(n) > P.CMP, body);
      }
      case 'BoolOp': {
        const op = n.op === 'And' ? 'and' : 'or';
        let p = n.op === 'And' ? P.AND : P.OR;
        const outer = p;
        const parts = n.values.map((v) => {
          p = next(p);
          set(p, v);
          return t(v);
        });
        return paren(get(n) > outer, parts.join(` ${op} `));
      }
      case 'IfExp': {
        set(next(P.TEST), n.body, n.test);
        set(P.TEST, n.orelse);
        const body = `${t(n.body)} if ${t(n.test)} else ${t(n.orelse)}`;
        return paren(get(n) > P.TEST, body);
      }
      default:
        throw new BfclUnsupported(`ast.unparse of ${n.k} is not emulated`);
    }
  };

  const itemsView = (items: Node[]): string => (items.length === 1 ? `${t(items[0]!)},` : items.map(t).join(', '));

  return t(root);
}

// The expression form of declarative Maze tools (docs/maze-tools.md, "Behaviour language"): a small, pure subset
// of JavaScript expressions, parsed here and evaluated by walking the tree — never handed to `eval` or
// `Function`. Names resolve only to the scope (arguments, bindings, tables, lambda parameters); calls reach only
// the functions given to the evaluator; member access reads own properties of plain objects and arrays.

export type Expr =
  | { k: 'lit'; v: unknown }
  | { k: 'id'; name: string }
  | { k: 'member'; obj: Expr; prop: Expr }
  | { k: 'call'; fn: string; args: Expr[] }
  | { k: 'unary'; op: '!' | '-'; e: Expr }
  | { k: 'bin'; op: string; a: Expr; b: Expr }
  | { k: 'cond'; test: Expr; yes: Expr; no: Expr }
  | { k: 'array'; items: Expr[] }
  | { k: 'object'; entries: Array<[string, Expr]> }
  | { k: 'lambda'; params: string[]; body: Expr };

export class ExprError extends Error {
  override name = 'ExprError';
}

type Tok = { t: 'num'; v: number } | { t: 'str'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string };

const OPS = [
  '===',
  '!==',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '**',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '?',
  ':',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      let s = '';
      let j = i + 1;
      for (; j < src.length && src[j] !== c; j++) {
        if (src[j] === '\\') {
          const n = src[++j];
          s += n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? '');
        } else s += src[j];
      }
      if (j >= src.length) throw new ExprError(`unterminated string at ${i}`);
      out.push({ t: 'str', v: s });
      i = j + 1;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExprError(`unexpected character '${c}' at ${i}`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  return out;
}

const BINARY: Record<string, number> = {
  '??': 1,
  '||': 2,
  '&&': 3,
  '==': 4,
  '!=': 4,
  '===': 4,
  '!==': 4,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
  '**': 8,
};
const RESERVED = new Set(['true', 'false', 'null', 'undefined']);

/** Parse one expression; a syntax error is an ExprError naming the position. */
export function parseExpr(src: string): Expr {
  const toks = tokenize(src);
  let p = 0;
  const peek = (o = 0) => toks[p + o];
  const isOp = (v: string, o = 0) => peek(o)?.t === 'op' && peek(o)!.v === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new ExprError(`expected '${v}' ${peek() ? `before '${String(peek()!.v)}'` : 'at the end'}`);
    p++;
  };

  const lambdaAhead = (): string[] | null => {
    const t = peek();
    if (t?.t === 'id' && isOp('=>', 1)) return [t.v];
    if (!isOp('(')) return null;
    const params: string[] = [];
    let j = 1;
    if (!(peek(j)?.t === 'op' && peek(j)!.v === ')')) {
      for (;;) {
        const x = peek(j);
        if (x?.t !== 'id') return null;
        params.push(x.v);
        j++;
        if (peek(j)?.t === 'op' && peek(j)!.v === ',') {
          j++;
          continue;
        }
        break;
      }
    }
    if (!(peek(j)?.t === 'op' && peek(j)!.v === ')' && peek(j + 1)?.t === 'op' && peek(j + 1)!.v === '=>')) return null;
    return params;
  };

  function expr(): Expr {
    const params = lambdaAhead();
    if (params) {
      p += peek()?.t === 'id' ? 2 : 3 + params.length + Math.max(0, params.length - 1);
      return { k: 'lambda', params, body: expr() };
    }
    const test = binary(1);
    if (isOp('?')) {
      p++;
      const yes = expr();
      expect(':');
      return { k: 'cond', test, yes, no: expr() };
    }
    return test;
  }

  // precedence climbing; `**` is right-associative
  function binary(min: number): Expr {
    let left = unary();
    for (;;) {
      const t = peek();
      if (t?.t !== 'op') return left;
      const prec = BINARY[t.v];
      if (prec === undefined || prec < min) return left;
      p++;
      const right = binary(t.v === '**' ? prec : prec + 1);
      left = { k: 'bin', op: t.v, a: left, b: right };
    }
  }

  function unary(): Expr {
    if (isOp('!') || isOp('-')) {
      const op = peek()!.v as '!' | '-';
      p++;
      return { k: 'unary', op, e: unary() };
    }
    return postfix(primary());
  }

  function postfix(e: Expr): Expr {
    for (;;) {
      if (isOp('.')) {
        p++;
        const t = peek();
        if (t?.t !== 'id') throw new ExprError("expected a field name after '.'");
        p++;
        e = { k: 'member', obj: e, prop: { k: 'lit', v: t.v } };
      } else if (isOp('[')) {
        p++;
        const prop = expr();
        expect(']');
        e = { k: 'member', obj: e, prop };
      } else return e;
    }
  }

  function list(close: string): Expr[] {
    const items: Expr[] = [];
    if (isOp(close)) {
      p++;
      return items;
    }
    for (;;) {
      items.push(expr());
      if (isOp(',')) {
        p++;
        continue;
      }
      expect(close);
      return items;
    }
  }

  function primary(): Expr {
    const t = peek();
    if (!t) throw new ExprError('unexpected end of expression');
    p++;
    if (t.t === 'num' || t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'id') {
      if (t.v === 'true') return { k: 'lit', v: true };
      if (t.v === 'false') return { k: 'lit', v: false };
      if (t.v === 'null') return { k: 'lit', v: null };
      if (t.v === 'undefined') return { k: 'lit', v: undefined };
      if (isOp('(')) {
        p++;
        return { k: 'call', fn: t.v, args: list(')') };
      }
      return { k: 'id', name: t.v };
    }
    if (t.v === '(') {
      const e = expr();
      expect(')');
      return e;
    }
    if (t.v === '[') return { k: 'array', items: list(']') };
    if (t.v === '{') {
      const entries: Array<[string, Expr]> = [];
      if (isOp('}')) {
        p++;
        return { k: 'object', entries };
      }
      for (;;) {
        const key = peek();
        if (key?.t !== 'id' && key?.t !== 'str') throw new ExprError('expected a key in an object');
        p++;
        expect(':');
        entries.push([String(key.v), expr()]);
        if (isOp(',')) {
          p++;
          continue;
        }
        expect('}');
        return { k: 'object', entries };
      }
    }
    throw new ExprError(`unexpected '${t.v}'`);
  }

  const e = expr();
  if (p < toks.length) throw new ExprError(`unexpected '${String(toks[p]!.v)}' after the expression`);
  return e;
}

/** A function the expression may call. Lambdas arrive as plain JavaScript functions. */
export type ExprFn = (...args: unknown[]) => unknown;

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

/** A lambda value produced by `x => …`, callable by the library's list functions. */
const LAMBDA = Symbol('lambda');
type Lambda = ((...xs: unknown[]) => unknown) & { [LAMBDA]: true };
export const isLambda = (v: unknown): v is Lambda => typeof v === 'function' && (v as Lambda)[LAMBDA] === true;

export interface Scope {
  lookup(name: string): { found: boolean; value?: unknown };
}

export function scopeOf(vars: Record<string, unknown>, parent?: Scope): Scope {
  return {
    lookup(name) {
      if (Object.hasOwn(vars, name)) return { found: true, value: vars[name] };
      return parent ? parent.lookup(name) : { found: false };
    },
  };
}

function member(obj: unknown, prop: unknown): unknown {
  if (obj === null || obj === undefined) throw new ExprError(`cannot read '${String(prop)}' of ${String(obj)}`);
  const key = typeof prop === 'number' ? prop : String(prop);
  if (typeof key === 'string' && FORBIDDEN.has(key)) throw new ExprError(`field '${key}' is not readable`);
  if (Array.isArray(obj)) {
    if (key === 'length') return obj.length;
    return typeof key === 'number' || /^\d+$/.test(key) ? obj[Number(key)] : undefined;
  }
  if (typeof obj === 'string') return key === 'length' ? obj.length : undefined;
  if (typeof obj !== 'object') return undefined;
  return Object.hasOwn(obj, key) ? (obj as Record<string | number, unknown>)[key] : undefined;
}

/** Evaluate an expression; `fns` are the only callables. */
export function evalExpr(e: Expr, scope: Scope, fns: Readonly<Record<string, ExprFn>>): unknown {
  const ev = (x: Expr, s: Scope = scope) => evalExpr(x, s, fns);
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'id': {
      const r = scope.lookup(e.name);
      if (!r.found) throw new ExprError(`unknown name '${e.name}'`);
      return r.value;
    }
    case 'member':
      return member(ev(e.obj), ev(e.prop));
    case 'call': {
      if (!Object.hasOwn(fns, e.fn)) throw new ExprError(`unknown function '${e.fn}'`);
      return fns[e.fn]!(...e.args.map((a) => ev(a)));
    }
    case 'unary': {
      const v = ev(e.e);
      return e.op === '!' ? !v : -(v as number);
    }
    case 'bin': {
      if (e.op === '&&') return ev(e.a) && ev(e.b);
      if (e.op === '||') return ev(e.a) || ev(e.b);
      if (e.op === '??') return ev(e.a) ?? ev(e.b);
      const a = ev(e.a) as never;
      const b = ev(e.b) as never;
      switch (e.op) {
        case '==':
        case '===':
          return a === b;
        case '!=':
        case '!==':
          return a !== b;
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        case '+':
          return (a as number) + (b as number);
        case '-':
          return (a as number) - (b as number);
        case '*':
          return (a as number) * (b as number);
        case '/':
          return (a as number) / (b as number);
        case '%':
          return (a as number) % (b as number);
        case '**':
          return (a as number) ** (b as number);
      }
      throw new ExprError(`unknown operator '${e.op}'`);
    }
    case 'cond':
      return ev(e.test) ? ev(e.yes) : ev(e.no);
    case 'array':
      return e.items.map((x) => ev(x));
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of e.entries) {
        if (FORBIDDEN.has(k)) throw new ExprError(`key '${k}' is not allowed`);
        o[k] = ev(v);
      }
      return o;
    }
    case 'lambda': {
      const f = ((...xs: unknown[]) =>
        ev(e.body, scopeOf(Object.fromEntries(e.params.map((p, i) => [p, xs[i]])), scope))) as Lambda;
      f[LAMBDA] = true;
      return f;
    }
  }
}

/** Names of the functions an expression calls (checked against the library when a tool file loads). */
export function calledFunctions(e: Expr, out = new Set<string>()): Set<string> {
  const walk = (x: Expr) => calledFunctions(x, out);
  switch (e.k) {
    case 'call':
      out.add(e.fn);
      e.args.forEach(walk);
      break;
    case 'member':
      walk(e.obj);
      walk(e.prop);
      break;
    case 'unary':
      walk(e.e);
      break;
    case 'bin':
      walk(e.a);
      walk(e.b);
      break;
    case 'cond':
      walk(e.test);
      walk(e.yes);
      walk(e.no);
      break;
    case 'array':
      e.items.forEach(walk);
      break;
    case 'object':
      for (const [, v] of e.entries) walk(v);
      break;
    case 'lambda':
      walk(e.body);
      break;
  }
  return out;
}

/** A template string: literal text with `${expression}` holes, each hole's value turned into text. */
export type Template = Array<string | Expr>;

export function parseTemplate(src: string): Template {
  const parts: Template = [];
  let i = 0;
  while (i < src.length) {
    const start = src.indexOf('${', i);
    if (start < 0) {
      parts.push(src.slice(i));
      break;
    }
    if (start > i) parts.push(src.slice(i, start));
    // the hole ends at the matching brace (object literals inside a hole nest)
    let depth = 0;
    let j = start + 2;
    for (; j < src.length; j++) {
      if (src[j] === '{') depth++;
      else if (src[j] === '}') {
        if (depth === 0) break;
        depth--;
      }
    }
    if (j >= src.length) throw new ExprError(`unclosed '\${' at ${start}`);
    parts.push(parseExpr(src.slice(start + 2, j)));
    i = j + 1;
  }
  return parts;
}

export function evalTemplate(t: Template, scope: Scope, fns: Readonly<Record<string, ExprFn>>): string {
  return t.map((p) => (typeof p === 'string' ? p : String(evalExpr(p, scope, fns)))).join('');
}

export { RESERVED as RESERVED_NAMES };

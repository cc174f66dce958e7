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
  // nesting of the syntax, bounded so that no source reaches the native stack's limit
  let depth = 0;
  const nest = <T>(f: () => T): T => {
    if (++depth > EXPR_BUDGET.parseDepth) throw new ExprError(`nested deeper than ${EXPR_BUDGET.parseDepth} levels`);
    try {
      return f();
    } finally {
      depth--;
    }
  };
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
    return nest(exprAt);
  }

  function exprAt(): Expr {
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
      const right = nest(() => binary(t.v === '**' ? prec : prec + 1));
      left = { k: 'bin', op: t.v, a: left, b: right };
    }
  }

  function unary(): Expr {
    if (isOp('!') || isOp('-')) {
      const op = peek()!.v as '!' | '-';
      p++;
      return { k: 'unary', op, e: nest(unary) };
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
  if (obj === null || obj === undefined)
    throw new ExprError(`cannot read '${text(prop).slice(0, 60)}' of ${String(obj)}`);
  const key = typeof prop === 'number' ? prop : text(prop);
  if (typeof key === 'string' && FORBIDDEN.has(key)) throw new ExprError(`field '${key}' is not readable`);
  if (Array.isArray(obj)) {
    if (key === 'length') return obj.length;
    return typeof key === 'number' || /^\d+$/.test(key) ? obj[Number(key)] : undefined;
  }
  if (typeof obj === 'string') return key === 'length' ? obj.length : undefined;
  if (typeof obj !== 'object') return undefined;
  return Object.hasOwn(obj, key) ? (obj as Record<string | number, unknown>)[key] : undefined;
}

/**
 * The bounds of one evaluation — a tool call's steps, an entity list — so that no file and no argument can hang
 * a run or exhaust its memory (docs/maze-tools.md, "Budgets"). Going over one is an ExprError: a tool error for
 * the call, one line when a file is loaded.
 */
export const EXPR_BUDGET = {
  /** Expression nodes evaluated, plus the list elements and characters functions take and give. */
  steps: 1_000_000,
  /** Evaluations nested in one another (a function calling itself, lambdas within lambdas). */
  depth: 250,
  /** Characters of one string, elements of one list or range. */
  size: 100_000,
  /** Nesting of one expression's syntax (brackets, operators). */
  parseDepth: 100,
  /** Steps of every evaluation made to complete and check one task file (all its paths, all their calls). */
  fileSteps: 50_000_000,
} as const;

interface Budget {
  steps: number;
  depth: number;
}
// The budget of the evaluation under way: evaluation is synchronous, and every evaluation a tool call starts
// (its steps, the library's functions, lambdas run by list functions) shares it.
let active: Budget | null = null;

// An outer budget over many evaluations (loading a task file), counted beside each evaluation's own.
let outer: { steps: number; limit: number; what: string } | null = null;

/** Run `f` with every evaluation inside it also counted against a total of `limit` steps, spent on `what`. */
export function withTotalBudget<T>(limit: number, what: string, f: () => T): T {
  const prev = outer;
  outer = { steps: 0, limit, what };
  try {
    return f();
  } finally {
    outer = prev;
  }
}

/** Count `n` steps of the evaluation under way, and of the outer total. */
function spend(b: Budget, n: number): void {
  if ((b.steps += n) > EXPR_BUDGET.steps)
    throw new ExprError(`over the budget of ${EXPR_BUDGET.steps} evaluation steps`);
  if (outer && (outer.steps += n) > outer.limit)
    throw new ExprError(`over the budget of ${outer.limit} evaluation steps for ${outer.what}`);
}

/** Run `f` under one budget: the one under way, else a fresh one for `f`'s whole run. */
export function withBudget<T>(f: () => T): T {
  if (active) return f();
  active = { steps: 0, depth: 0 };
  try {
    return f();
  } finally {
    active = null;
  }
}

/** Count `n` steps of work against the budget under way (none outside an evaluation). */
export function charge(n: number): void {
  if (active) spend(active, n);
}

/** Refuse a string or list of `n` characters or elements before it is made. */
export function checkSize(n: number, what: string): void {
  if (!(n <= EXPR_BUDGET.size)) throw new ExprError(`${what} of ${n} is over the limit of ${EXPR_BUDGET.size}`);
}

/** The work a value stands for when a function reads or gives it: its length, or 1. */
const weight = (v: unknown): number => (typeof v === 'string' || Array.isArray(v) ? v.length : 1);

/**
 * A value as text, as JavaScript's `String` would give it, but bounded: a list is joined element by element
 * (nested lists too) and refused once the text is over the size limit or the nesting over the depth limit.
 */
export function text(v: unknown, depth = 0): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'function') return '[lambda]';
  if (v === null || typeof v !== 'object') return String(v);
  if (!Array.isArray(v)) return '[object Object]';
  if (depth > EXPR_BUDGET.parseDepth) throw new ExprError(`a list nested deeper than ${EXPR_BUDGET.parseDepth} levels`);
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    out += (i ? ',' : '') + (x === null || x === undefined ? '' : text(x, depth + 1));
    checkSize(out.length, 'a text');
  }
  charge(out.length);
  return out;
}

/** Count a value's every element, field and character against the budget (before a deep walk such as hashing). */
export function chargeDeep(v: unknown): void {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    charge(typeof x === 'string' ? x.length + 1 : 1);
    if (x !== null && typeof x === 'object') for (const y of Array.isArray(x) ? x : Object.values(x)) stack.push(y);
  }
}

/** A value as a number, as JavaScript's `Number` would give it (a list through its bounded text). */
export function toNumber(v: unknown): number {
  return v !== null && typeof v === 'object' ? Number(text(v)) : Number(v as number);
}

/** An operand of arithmetic or an ordering: a number, text, boolean or null, never a list or object. */
function primitive(v: unknown, op: string): unknown {
  if (v !== null && (typeof v === 'object' || typeof v === 'function'))
    throw new ExprError(
      `'${op}' takes numbers or text, not ${Array.isArray(v) ? 'a list' : typeof v === 'function' ? 'a lambda' : 'an object'}`,
    );
  return v;
}

/** Evaluate an expression under the budget; `fns` are the only callables. */
export function evalExpr(e: Expr, scope: Scope, fns: Readonly<Record<string, ExprFn>>): unknown {
  return withBudget(() => evalNode(e, scope, fns, active!));
}

function evalNode(e: Expr, scope: Scope, fns: Readonly<Record<string, ExprFn>>, b: Budget): unknown {
  spend(b, 1);
  if (b.depth >= EXPR_BUDGET.depth)
    throw new ExprError(
      `nested deeper than ${EXPR_BUDGET.depth} evaluations (a function that calls itself without end?)`,
    );
  b.depth++;
  try {
    return evalStep(e, scope, fns, b);
  } finally {
    b.depth--;
  }
}

function evalStep(e: Expr, scope: Scope, fns: Readonly<Record<string, ExprFn>>, b: Budget): unknown {
  const ev = (x: Expr, s: Scope = scope) => evalNode(x, s, fns, b);
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
      const args = e.args.map((a) => ev(a));
      charge(args.reduce((n: number, a) => n + weight(a), 0));
      let r: unknown;
      try {
        r = fns[e.fn]!(...args);
      } catch (err) {
        // a limit of the engine itself (string or array length, the stack) is this call's error, never a crash
        if (err instanceof RangeError) throw new ExprError(`${e.fn}: ${err.message}`);
        throw err;
      }
      if (typeof r === 'string' || Array.isArray(r)) {
        checkSize(r.length, `the result of ${e.fn}`);
        charge(r.length);
      }
      return r;
    }
    case 'unary': {
      const v = ev(e.e);
      return e.op === '!' ? !v : -(primitive(v, '-') as number);
    }
    case 'bin': {
      if (e.op === '&&') return ev(e.a) && ev(e.b);
      if (e.op === '||') return ev(e.a) || ev(e.b);
      if (e.op === '??') return ev(e.a) ?? ev(e.b);
      const a0 = ev(e.a);
      const b0 = ev(e.b);
      if (e.op === '==' || e.op === '===') return a0 === b0;
      if (e.op === '!=' || e.op === '!==') return a0 !== b0;
      const a = primitive(a0, e.op) as never;
      const c = primitive(b0, e.op) as never;
      switch (e.op) {
        case '<':
          return a < c;
        case '<=':
          return a <= c;
        case '>':
          return a > c;
        case '>=':
          return a >= c;
        case '+': {
          const r: unknown = (a as number) + (c as number);
          if (typeof r === 'string') {
            checkSize(r.length, "the text of '+'");
            charge(r.length);
          }
          return r;
        }
        case '-':
          return (a as number) - (c as number);
        case '*':
          return (a as number) * (c as number);
        case '/':
          return (a as number) / (c as number);
        case '%':
          return (a as number) % (c as number);
        case '**':
          return (a as number) ** (c as number);
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
      // called by list functions while the evaluation runs: under the same budget (evalExpr shares it)
      const f = ((...xs: unknown[]) =>
        evalExpr(e.body, scopeOf(Object.fromEntries(e.params.map((p, i) => [p, xs[i]])), scope), fns)) as Lambda;
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
  return withBudget(() => {
    let out = '';
    for (const p of t) {
      out += typeof p === 'string' ? p : text(evalExpr(p, scope, fns));
      checkSize(out.length, 'a text');
    }
    return out;
  });
}

export { RESERVED as RESERVED_NAMES };

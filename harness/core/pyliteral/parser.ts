// `ast.parse(source, mode="eval").body` of CPython 3.11: recursive descent over the PEG grammar's expression rules
// (Grammar/python.gram), accepting exactly what 3.11 accepts — lambdas, comprehensions, walrus, starred items,
// slices, f-strings (checked, not evaluated), string concatenation — and raising PySyntaxError where it refuses.
// The one Python front-end of toolgauge: `literalEval` walks its tree, BFCL and API-Bank decode calls with it.
import { PY_KEYWORDS } from './keywords.ts';
import type { BinOpName, CmpOpName, Comprehension, Keyword, Node } from './nodes.ts';
import { decodeStringBody } from './strings.ts';
import { PySyntaxError, tokenize, type Tok } from './tokenizer.ts';
import { PyLiteralError, PyLiteralUnsupported, type PyValue } from './value.ts';

export { PySyntaxError };

function fail(msg = 'invalid syntax'): never {
  throw new PySyntaxError(msg);
}

/**
 * `ast.parse(source, mode="eval").body`. Throws PySyntaxError where Python raises, and PyLiteralUnsupported when
 * Python accepts the source but a str constant in it cannot be held by a JS string (see `parseEvalTree`).
 */
export function parseEval(source: string): Node {
  const { body, unsupported } = parseEvalTree(source);
  if (unsupported) throw new PyLiteralUnsupported(`Python accepts this source, but ${unsupported}`);
  return body;
}

/**
 * The tree, and the first reason (if any) a str constant in it is not exactly its Python value: a high surrogate
 * code point followed by a low one (one character in a JS string, two in Python), or a `\N{…}` whose name table
 * cannot be read. The caller decides, after its own checks, whether that matters (a Python error still wins).
 */
export function parseEvalTree(source: string): { body: Node; unsupported?: string } {
  const p = new Parser(tokenize(source));
  let body: Node;
  try {
    body = p.expressions();
  } catch (err) {
    // The parser recurses once per nesting level (unary operators, `not`, `**`, conditionals, lambdas). Past the
    // stack, CPython too refuses the input (RecursionError or MemoryError in ast.parse): a refusal, not a crash.
    if (err instanceof RangeError && /call stack/i.test(err.message)) fail('too many nested expressions');
    throw err;
  }
  while (p.peek().kind === 'newline') p.pos++;
  if (p.peek().kind !== 'end') fail();
  return p.unsupported ? { body, unsupported: p.unsupported } : { body };
}

const TERM_OPS: Record<string, BinOpName> = { '*': 'Mult', '/': 'Div', '//': 'FloorDiv', '%': 'Mod', '@': 'MatMult' };
const CMP_OPS: Record<string, CmpOpName> = {
  '==': 'Eq',
  '!=': 'NotEq',
  '<': 'Lt',
  '<=': 'LtE',
  '>': 'Gt',
  '>=': 'GtE',
};

class Parser {
  pos = 0;
  /** Why a str constant is not exactly Python's value (the first reason met). */
  unsupported: string | undefined;
  /** Nodes that came out of parentheses: `(a := 1)` may be a dict key, `a := 1` may not. */
  private readonly grouped = new WeakSet<Node>();

  constructor(private readonly toks: Tok[]) {}

  peek(k = 0): Tok {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)]!;
  }

  isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'op' && t.text === text;
  }

  isKw(word: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'name' && t.raw === word;
  }

  /** A NAME token that is not a keyword. */
  isPlainName(k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'name' && !PY_KEYWORDS.has(t.raw);
  }

  eatOp(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.pos++;
    return true;
  }

  expectOp(text: string): void {
    if (!this.eatOp(text)) fail();
  }

  eatKw(word: string): boolean {
    if (!this.isKw(word)) return false;
    this.pos++;
    return true;
  }

  /** Can the current token begin an expression (for optional trailing items after a comma)? */
  startsExpression(allowStar: boolean): boolean {
    const t = this.peek();
    if (t.kind === 'number' || t.kind === 'string') return true;
    if (t.kind === 'name')
      return !PY_KEYWORDS.has(t.raw) || ['True', 'False', 'None', 'not', 'lambda', 'await'].includes(t.raw);
    if (t.kind !== 'op') return false;
    return ['(', '[', '{', '-', '+', '~', '...'].includes(t.text) || (allowStar && t.text === '*');
  }

  // expressions: expression (',' expression)* [',']
  expressions(): Node {
    const first = this.expression();
    if (!this.isOp(',')) return first;
    const elts = [first];
    while (this.eatOp(',')) {
      if (!this.startsExpression(false)) break;
      elts.push(this.expression());
    }
    return { k: 'Tuple', elts };
  }

  // expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef
  expression(): Node {
    if (this.isKw('lambda')) return this.lambdef();
    const body = this.disjunction();
    if (this.eatKw('if')) {
      const test = this.disjunction();
      if (!this.eatKw('else')) fail("expected 'else' after 'if' expression");
      const orelse = this.expression();
      return { k: 'IfExp', test, body, orelse };
    }
    return body;
  }

  lambdef(): Node {
    this.pos++; // lambda
    this.lambdaParams();
    this.expectOp(':');
    return { k: 'Lambda', body: this.expression() };
  }

  /** lambda_params, validated as the grammar does (names are not checked for duplicates: that is the compiler). */
  lambdaParams(): void {
    let sawDefault = false;
    let sawSlash = false;
    let star: 'none' | 'bare' | 'named' = 'none';
    let afterBareStar = 0;
    let sawKwargs = false;
    let count = 0;
    while (!this.isOp(':')) {
      if (sawKwargs) fail('arguments cannot follow var-keyword argument');
      if (this.eatOp('/')) {
        if (sawSlash || star !== 'none' || count === 0) fail();
        sawSlash = true;
      } else if (this.eatOp('**')) {
        if (!this.isPlainName()) fail();
        this.pos++;
        if (this.isOp('=')) fail('var-keyword argument cannot have default value');
        sawKwargs = true;
      } else if (this.eatOp('*')) {
        if (star !== 'none') fail('* argument may appear only once');
        if (this.isPlainName()) {
          this.pos++;
          if (this.isOp('=')) fail('var-positional argument cannot have default value');
          star = 'named';
        } else star = 'bare';
      } else if (this.isPlainName()) {
        this.pos++;
        if (this.eatOp('=')) {
          this.expression();
          if (star === 'none') sawDefault = true;
        } else if (sawDefault && star === 'none') fail('non-default argument follows default argument');
        if (star === 'bare') afterBareStar++;
      } else fail();
      count++;
      if (!this.eatOp(',')) break;
      if (this.isOp(':') && star === 'bare' && afterBareStar === 0) fail('named arguments must follow bare *');
    }
    if (star === 'bare' && afterBareStar === 0) fail('named arguments must follow bare *');
    if (!this.isOp(':')) fail();
  }

  disjunction(): Node {
    const first = this.conjunction();
    if (!this.isKw('or')) return first;
    const values = [first];
    while (this.eatKw('or')) values.push(this.conjunction());
    return { k: 'BoolOp', op: 'Or', values };
  }

  conjunction(): Node {
    const first = this.inversion();
    if (!this.isKw('and')) return first;
    const values = [first];
    while (this.eatKw('and')) values.push(this.inversion());
    return { k: 'BoolOp', op: 'And', values };
  }

  inversion(): Node {
    if (this.eatKw('not')) return { k: 'UnaryOp', op: 'Not', operand: this.inversion() };
    return this.comparison();
  }

  comparison(): Node {
    const left = this.bitwiseOr();
    const ops: CmpOpName[] = [];
    const comparators: Node[] = [];
    for (;;) {
      const t = this.peek();
      let op: CmpOpName | undefined;
      if (t.kind === 'op' && CMP_OPS[t.text]) {
        op = CMP_OPS[t.text];
        this.pos++;
      } else if (this.isKw('in')) {
        op = 'In';
        this.pos++;
      } else if (this.isKw('not') && this.isKw('in', 1)) {
        op = 'NotIn';
        this.pos += 2;
      } else if (this.isKw('is')) {
        this.pos++;
        op = this.eatKw('not') ? 'IsNot' : 'Is';
      }
      if (!op) break;
      ops.push(op);
      comparators.push(this.bitwiseOr());
    }
    return ops.length ? { k: 'Compare', left, ops, comparators } : left;
  }

  private binary(next: () => Node, ops: Record<string, BinOpName>): Node {
    let left = next();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !Object.hasOwn(ops, t.text)) return left;
      this.pos++;
      left = { k: 'BinOp', op: ops[t.text]!, left, right: next() };
    }
  }

  bitwiseOr(): Node {
    return this.binary(() => this.bitwiseXor(), { '|': 'BitOr' });
  }
  bitwiseXor(): Node {
    return this.binary(() => this.bitwiseAnd(), { '^': 'BitXor' });
  }
  bitwiseAnd(): Node {
    return this.binary(() => this.shift(), { '&': 'BitAnd' });
  }
  shift(): Node {
    return this.binary(() => this.sum(), { '<<': 'LShift', '>>': 'RShift' });
  }
  sum(): Node {
    return this.binary(() => this.term(), { '+': 'Add', '-': 'Sub' });
  }
  term(): Node {
    return this.binary(() => this.factor(), TERM_OPS);
  }

  factor(): Node {
    if (this.eatOp('+')) return { k: 'UnaryOp', op: 'UAdd', operand: this.factor() };
    if (this.eatOp('-')) return { k: 'UnaryOp', op: 'USub', operand: this.factor() };
    if (this.eatOp('~')) return { k: 'UnaryOp', op: 'Invert', operand: this.factor() };
    return this.power();
  }

  power(): Node {
    const base = this.awaitPrimary();
    if (this.eatOp('**')) return { k: 'BinOp', op: 'Pow', left: base, right: this.factor() };
    return base;
  }

  awaitPrimary(): Node {
    if (this.eatKw('await')) return { k: 'Await', value: this.primary() };
    return this.primary();
  }

  primary(): Node {
    let node = this.atom();
    for (;;) {
      if (this.eatOp('.')) {
        if (!this.isPlainName()) fail();
        const t = this.peek() as Tok & { kind: 'name' };
        this.pos++;
        node = { k: 'Attribute', value: node, attr: t.text };
      } else if (this.eatOp('(')) {
        node = this.callRest(node);
      } else if (this.eatOp('[')) {
        node = { k: 'Subscript', value: node, slice: this.slices() };
        this.expectOp(']');
      } else return node;
    }
  }

  atom(): Node {
    const t = this.peek();
    if (t.kind === 'name') {
      if (t.raw === 'True' || t.raw === 'False') {
        this.pos++;
        return { k: 'Constant', value: { t: 'bool', v: t.raw === 'True' } };
      }
      if (t.raw === 'None') {
        this.pos++;
        return { k: 'Constant', value: { t: 'none' } };
      }
      if (PY_KEYWORDS.has(t.raw)) fail();
      this.pos++;
      // The spelling is kept when NFKC changed it: literal_eval's `set()` check reads it with Python's Unicode data.
      return t.raw === t.text ? { k: 'Name', id: t.text } : { k: 'Name', id: t.text, raw: t.raw };
    }
    if (t.kind === 'number') {
      this.pos++;
      return { k: 'Constant', value: numberValue(t.text) };
    }
    if (t.kind === 'string') return this.strings();
    if (t.kind !== 'op') fail();
    switch (t.text) {
      case '...':
        this.pos++;
        return { k: 'Constant', value: { t: 'ellipsis' } };
      case '(':
        this.pos++;
        return this.parenRest();
      case '[':
        this.pos++;
        return this.listRest();
      case '{':
        this.pos++;
        return this.braceRest();
      default:
        fail();
    }
  }

  // star_named_expression: '*' bitwise_or | named_expression
  starNamedExpression(): Node {
    if (this.eatOp('*')) return { k: 'Starred', value: this.bitwiseOr() };
    return this.namedExpression();
  }

  // named_expression: NAME ':=' expression | expression !':='
  namedExpression(): Node {
    if (this.isPlainName() && this.isOp(':=', 1)) {
      const t = this.peek() as Tok & { kind: 'name' };
      this.pos += 2;
      return { k: 'NamedExpr', target: { k: 'Name', id: t.text }, value: this.expression() };
    }
    const e = this.expression();
    if (this.isOp(':=')) fail('cannot use assignment expressions with this target');
    return e;
  }

  isComprehensionStart(): boolean {
    return this.isKw('for') || (this.isKw('async') && this.isKw('for', 1));
  }

  forIfClauses(): Comprehension[] {
    const out: Comprehension[] = [];
    while (this.isComprehensionStart()) {
      const isAsync = this.eatKw('async');
      this.pos++; // for
      const target = this.starTargets();
      if (!this.eatKw('in')) fail();
      const iter = this.disjunction();
      const ifs: Node[] = [];
      while (this.eatKw('if')) ifs.push(this.disjunction());
      out.push({ target, iter, ifs, isAsync });
    }
    return out;
  }

  // star_targets in a comprehension: targets are parsed as expressions below comparisons, then checked.
  starTargets(): Node {
    const one = (): Node => {
      if (this.eatOp('*')) {
        if (this.isOp('*')) fail();
        return { k: 'Starred', value: this.bitwiseOr() };
      }
      return this.bitwiseOr();
    };
    const first = one();
    let target = first;
    if (this.isOp(',')) {
      const elts = [first];
      while (this.eatOp(',')) {
        if (this.isKw('in')) break;
        elts.push(one());
      }
      target = { k: 'Tuple', elts };
    }
    checkTarget(target, true);
    return target;
  }

  callRest(func: Node): Node {
    const args: Node[] = [];
    const keywords: Keyword[] = [];
    let phase = 0; // 0 positional, 1 after a keyword, 2 after **
    let first = true;
    while (!this.isOp(')')) {
      if (this.eatOp('*')) {
        if (phase === 2) fail('iterable argument unpacking follows keyword argument unpacking');
        args.push({ k: 'Starred', value: this.expression() });
      } else if (this.eatOp('**')) {
        keywords.push({ arg: null, value: this.expression() });
        phase = 2;
      } else if (this.isPlainName() && this.isOp('=', 1)) {
        const t = this.peek() as Tok & { kind: 'name' };
        this.pos += 2;
        keywords.push({ arg: t.text, value: this.expression() });
        phase = Math.max(phase, 1);
      } else {
        if ((this.isKw('True') || this.isKw('False') || this.isKw('None')) && this.isOp('=', 1))
          fail(`cannot assign to ${(this.peek() as { raw: string }).raw}`);
        const e = this.namedExpression();
        if (this.isOp('=')) fail('expression cannot contain assignment, perhaps you meant "=="?');
        if (first && this.isComprehensionStart()) {
          const generators = this.forIfClauses();
          if (!this.isOp(')')) fail('Generator expression must be parenthesized');
          args.push({ k: 'GeneratorExp', elt: e, generators });
          break;
        }
        if (this.isComprehensionStart()) fail('Generator expression must be parenthesized');
        if (phase === 1) fail('positional argument follows keyword argument');
        if (phase === 2) fail('positional argument follows keyword argument unpacking');
        args.push(e);
      }
      first = false;
      if (!this.eatOp(',')) break;
    }
    this.expectOp(')');
    return { k: 'Call', func, args, keywords };
  }

  // slices: slice !',' | ','.(slice | starred_expression)+ [',']
  slices(): Node {
    const items: Node[] = [];
    let comma = false;
    for (;;) {
      if (this.eatOp('*')) items.push({ k: 'Starred', value: this.expression() });
      else items.push(this.slice());
      if (!this.eatOp(',')) break;
      comma = true;
      if (this.isOp(']')) break;
    }
    if (items.length === 1 && !comma && items[0]!.k !== 'Starred') return items[0]!;
    return { k: 'Tuple', elts: items };
  }

  // slice: [expression] ':' [expression] [':' [expression]] | named_expression
  slice(): Node {
    let lower: Node | undefined;
    if (!this.isOp(':')) {
      const e = this.namedExpression();
      if (!this.isOp(':')) return e;
      if (e.k === 'NamedExpr' && !this.grouped.has(e)) fail();
      lower = e;
    }
    this.expectOp(':');
    const endsPart = () => this.isOp(':') || this.isOp(',') || this.isOp(']');
    const upper = endsPart() ? undefined : this.expression();
    let step: Node | undefined;
    if (this.eatOp(':')) step = this.isOp(',') || this.isOp(']') ? undefined : this.expression();
    return { k: 'Slice', lower, upper, step };
  }

  parenRest(): Node {
    if (this.eatOp(')')) return { k: 'Tuple', elts: [] };
    if (this.isKw('yield')) {
      const y = this.yieldExpr();
      this.expectOp(')');
      this.grouped.add(y);
      return y;
    }
    const first = this.starNamedExpression();
    if (first.k !== 'Starred' && this.isComprehensionStart()) {
      const generators = this.forIfClauses();
      this.expectOp(')');
      return { k: 'GeneratorExp', elt: first, generators };
    }
    if (this.eatOp(')')) {
      if (first.k === 'Starred') fail('cannot use starred expression here');
      this.grouped.add(first);
      return first;
    }
    if (!this.isOp(',')) fail();
    const elts = [first];
    while (this.eatOp(',')) {
      if (this.isOp(')')) break;
      elts.push(this.starNamedExpression());
    }
    this.expectOp(')');
    return { k: 'Tuple', elts };
  }

  yieldExpr(): Node {
    this.pos++; // yield
    if (this.eatKw('from')) return { k: 'YieldFrom', value: this.expression() };
    if (!this.startsExpression(true)) return { k: 'Yield' };
    const star = (): Node => (this.eatOp('*') ? { k: 'Starred', value: this.bitwiseOr() } : this.expression());
    const first = star();
    if (!this.isOp(',')) {
      if (first.k === 'Starred') fail('cannot use starred expression here');
      return { k: 'Yield', value: first };
    }
    const elts = [first];
    while (this.eatOp(',')) {
      if (!this.startsExpression(true)) break;
      elts.push(star());
    }
    return { k: 'Yield', value: { k: 'Tuple', elts } };
  }

  listRest(): Node {
    if (this.eatOp(']')) return { k: 'List', elts: [] };
    const first = this.starNamedExpression();
    if (first.k !== 'Starred' && this.isComprehensionStart()) {
      const generators = this.forIfClauses();
      this.expectOp(']');
      return { k: 'ListComp', elt: first, generators };
    }
    const elts = [first];
    while (this.eatOp(',')) {
      if (this.isOp(']')) break;
      elts.push(this.starNamedExpression());
    }
    this.expectOp(']');
    return { k: 'List', elts };
  }

  braceRest(): Node {
    if (this.eatOp('}')) return { k: 'Dict', keys: [], values: [] };
    if (this.isOp('**')) return this.dictRest([], []);
    const first = this.starNamedExpression();
    if (this.eatOp(':')) {
      if (first.k === 'Starred' || (first.k === 'NamedExpr' && !this.grouped.has(first))) fail();
      const value = this.expression();
      if (this.isComprehensionStart()) {
        const generators = this.forIfClauses();
        this.expectOp('}');
        return { k: 'DictComp', key: first, value, generators };
      }
      if (!this.eatOp(',')) {
        this.expectOp('}');
        return { k: 'Dict', keys: [first], values: [value] };
      }
      return this.dictRest([first], [value]);
    }
    if (first.k !== 'Starred' && this.isComprehensionStart()) {
      const generators = this.forIfClauses();
      this.expectOp('}');
      return { k: 'SetComp', elt: first, generators };
    }
    const elts = [first];
    while (this.eatOp(',')) {
      if (this.isOp('}')) break;
      elts.push(this.starNamedExpression());
    }
    this.expectOp('}');
    return { k: 'Set', elts };
  }

  /** The rest of a dict display after its first items (and their comma). */
  dictRest(keys: Array<Node | null>, values: Node[]): Node {
    while (!this.isOp('}')) {
      if (this.eatOp('**')) {
        keys.push(null);
        values.push(this.bitwiseOr());
      } else {
        keys.push(this.expression());
        if (!this.eatOp(':')) fail("':' expected after dictionary key");
        values.push(this.expression());
      }
      if (!this.eatOp(',')) break;
    }
    this.expectOp('}');
    return { k: 'Dict', keys, values };
  }

  strings(): Node {
    const parts: Array<Tok & { kind: 'string' }> = [];
    while (this.peek().kind === 'string') {
      parts.push(this.peek() as Tok & { kind: 'string' });
      this.pos++;
    }
    const isBytes = parts.map((p) => p.prefix.toLowerCase().includes('b'));
    if (isBytes.some((b) => b) && !isBytes.every((b) => b)) fail('cannot mix bytes and nonbytes literals');
    if (parts.some((p) => p.prefix.toLowerCase().includes('f'))) {
      for (const p of parts) {
        const prefix = p.prefix.toLowerCase();
        if (prefix.includes('f')) checkFString(p.body, prefix.includes('r'), p.quote, 0);
        else decode(prefix, p.body);
      }
      return { k: 'JoinedStr' };
    }
    if (isBytes[0]) {
      const data: number[] = [];
      for (const p of parts) {
        const d = decode(p.prefix.toLowerCase(), p.body);
        // A loop, not push(...xs): spreading a long literal's elements as arguments overflows the stack.
        if (d.bytes) for (const b of d.data) data.push(b);
      }
      return { k: 'Constant', value: { t: 'bytes', v: Uint8Array.from(data) } };
    }
    const cps: number[] = [];
    for (const p of parts) {
      const d = decode(p.prefix.toLowerCase(), p.body);
      if (!d.bytes) {
        if (d.unsupported) this.unsupported ??= `a string literal: ${d.unsupported}`;
        for (const c of d.cps) cps.push(c);
      }
    }
    // Two code points that are a high and a low surrogate would read as one character in JS, unlike Python.
    if (
      cps.some(
        (c, k) =>
          c >= 0xd800 && c <= 0xdbff && cps[k + 1] !== undefined && cps[k + 1]! >= 0xdc00 && cps[k + 1]! <= 0xdfff,
      )
    ) {
      this.unsupported ??= 'a str with a high surrogate code point followed by a low one (a JS string would fuse them)';
    }
    const value = fromCps(cps);
    // CPython marks kind 'u' only for a lowercase `u` prefix on the first token (`U''` has no kind).
    const kind = parts[0]!.prefix === 'u' ? 'u' : undefined;
    return kind
      ? { k: 'Constant', value: { t: 'str', v: value }, kind }
      : { k: 'Constant', value: { t: 'str', v: value } };
  }
}

function fromCps(cps: number[]): string {
  let out = '';
  for (let k = 0; k < cps.length; k += 4096) out += String.fromCodePoint(...cps.slice(k, k + 4096));
  return out;
}

function decode(prefix: string, body: string) {
  try {
    return decodeStringBody(prefix.replace('u', ''), body);
  } catch (err) {
    if (err instanceof PyLiteralError) fail(`(unicode error) ${err.message}`);
    throw err;
  }
}

// sys.get_int_max_str_digits() default: decimal int literals longer than this are a SyntaxError in 3.11.
const INT_MAX_STR_DIGITS = 4300;

/** The value of a NUMBER token (its syntax already checked by the tokenizer). */
function numberValue(text: string): PyValue {
  const t = text.replace(/_/g, '');
  const last = t[t.length - 1];
  if (last === 'j' || last === 'J') return { t: 'complex', re: 0, im: Number(t.slice(0, -1)) };
  if (/^0[xob]/i.test(t)) return { t: 'int', v: BigInt(t.toLowerCase()) };
  if (/[.eE]/.test(t)) return { t: 'float', v: Number(t) };
  if (t[0] !== '0' && t.length > INT_MAX_STR_DIGITS) {
    fail(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion`);
  }
  return { t: 'int', v: BigInt(t) };
}

/** star_targets validity: names, attributes, subscripts, starred targets, and tuples/lists of them. */
function checkTarget(n: Node, top: boolean): void {
  switch (n.k) {
    case 'Name':
    case 'Attribute':
    case 'Subscript':
      return;
    case 'Starred':
      if (n.value.k === 'Starred') fail();
      return checkTarget(n.value, false);
    case 'Tuple':
    case 'List':
      for (const e of n.elts) checkTarget(e, false);
      return;
    default:
      void top;
      fail(`cannot assign to ${n.k}`);
  }
}

/**
 * An f-string body as 3.11's string_parser.c reads it: literal text with `{{`/`}}`, replacement fields whose
 * expression (no backslash, no `#`) must parse as `(expr)`, an optional `=`, `!s|r|a` and a format spec that may
 * itself hold fields, nested at most two deep.
 */
function checkFString(body: string, raw: boolean, quote: string, depth: number): void {
  if (depth >= 2) fail('f-string: expressions nested too deeply');
  let i = 0;
  const end = body.length;
  // Literal text is decoded as a str literal's body would be: a bad escape (`\U0000004`) is a SyntaxError here too.
  // A backslash right before a brace stays a backslash (3.11 warns), so the piece is checked as if a space followed.
  const checkEscapes = (from: number): void => {
    if (raw || i <= from) return;
    const piece = body.slice(from, i);
    decode('', /(^|[^\\])(\\\\)*\\$/.test(piece) ? `${piece} ` : piece);
  };
  const literalUntil = (stopAtBrace: boolean): void => {
    const from = i;
    while (i < end) {
      const c = body[i]!;
      if (!raw && c === '\\') {
        const e = body[i + 1];
        if (e === 'N' && body[i + 2] === '{') {
          const close = body.indexOf('}', i + 3);
          i = close < 0 ? end : close + 1;
        } else if (e === '{' || e === '}')
          i++; // the brace after a backslash still opens or closes a field
        else i += 2;
        continue;
      }
      if (c === '{') {
        if (body[i + 1] === '{' && !stopAtBrace) {
          i += 2;
          continue;
        }
        return checkEscapes(from);
      }
      if (c === '}') {
        if (stopAtBrace) return checkEscapes(from);
        if (body[i + 1] === '}') {
          i += 2;
          continue;
        }
        fail("f-string: single '}' is not allowed");
      }
      i++;
    }
    checkEscapes(from);
  };
  const field = (): void => {
    i++; // {
    const start = i;
    let q = '';
    let triple = false;
    const stack: string[] = [];
    for (; i < end; i++) {
      const c = body[i]!;
      if (c === '\\') fail('f-string expression part cannot include a backslash');
      if (q) {
        if (c === q) {
          if (triple) {
            if (body[i + 1] === c && body[i + 2] === c) {
              i += 2;
              q = '';
            }
          } else q = '';
        }
        continue;
      }
      if (c === "'" || c === '"') {
        if (body[i + 1] === c && body[i + 2] === c) {
          triple = true;
          i += 2;
        } else triple = false;
        q = c;
      } else if (c === '[' || c === '{' || c === '(') {
        if (stack.length >= 200) fail('f-string: too many nested parenthesis');
        stack.push(c);
      } else if (c === '#') fail("f-string expression part cannot include '#'");
      else if (stack.length === 0 && (c === '!' || c === ':' || c === '}' || c === '=' || c === '<' || c === '>')) {
        const next = body[i + 1];
        if (next === '=' && (c === '!' || c === '=' || c === '<' || c === '>')) {
          i++;
          continue;
        }
        if (c === '<' || c === '>') continue;
        break;
      } else if (c === ']' || c === '}' || c === ')') {
        const open = stack.pop();
        if (open === undefined) fail(`f-string: unmatched '${c}'`);
        if ('([{'.indexOf(open) !== ')]}'.indexOf(c))
          fail(`f-string: closing parenthesis '${c}' does not match opening parenthesis '${open}'`);
      }
    }
    if (q) fail('f-string: unterminated string');
    if (stack.length) fail(`f-string: unmatched '${stack[stack.length - 1]}'`);
    if (i >= end) fail("f-string: expecting '}'");
    const expr = body.slice(start, i);
    if (/^[ \t\n\r\f\v]*$/.test(expr)) fail('f-string: empty expression not allowed');
    try {
      parseEvalTree(`(${expr})`); // an f-string's expressions are checked, never evaluated: their values do not matter
    } catch (err) {
      if (err instanceof PySyntaxError) fail(`f-string: ${err.message}`);
      throw err;
    }
    void quote;
    if (body[i] === '=') {
      i++;
      while (i < end && /[ \t\n\r\f\v]/.test(body[i]!)) i++;
      if (i >= end) fail("f-string: expecting '}'");
    }
    if (body[i] === '!') {
      i++;
      if (i >= end) fail("f-string: expecting '}'");
      const conv = body[i]!;
      i++;
      if (!(conv === 's' || conv === 'r' || conv === 'a'))
        fail("f-string: invalid conversion character: expected 's', 'r', or 'a'");
    }
    if (i >= end) fail("f-string: expecting '}'");
    if (body[i] === ':') {
      i++;
      if (i >= end) fail("f-string: expecting '}'");
      // The format spec: literal text and nested fields, up to the closing brace.
      for (;;) {
        literalUntil(true);
        if (i >= end) break;
        if (body[i] === '{') {
          if (depth + 1 >= 2) fail('f-string: expressions nested too deeply');
          checkNested();
          continue;
        }
        break;
      }
    }
    if (i >= end || body[i] !== '}') fail("f-string: expecting '}'");
    i++;
  };
  const checkNested = (): void => {
    depth++;
    field();
    depth--;
  };
  for (;;) {
    literalUntil(false);
    if (i >= end) return;
    field();
  }
}

// Recursive descent over the tokens for the slice of Python's expression grammar a literal can use:
// eval: expressions NEWLINE* ENDMARKER, with sums, unary +/-, calls, and bracketed displays. Anything else is
// rejected on the spot (CPython would raise SyntaxError, or literal_eval ValueError, on it).
import { decodeStringBody, type DecodedString } from './strings.ts';
import { setLetterOf } from './unicode.ts';
import type { Token } from './tokenizer.ts';
import { PyLiteralError } from './value.ts';

export type Node =
  | { n: 'int'; v: bigint }
  | { n: 'float'; v: number }
  | { n: 'imag'; v: number }
  | { n: 'str'; cps: number[]; unsupported?: string }
  | { n: 'bytes'; data: number[] }
  | { n: 'bool'; v: boolean }
  | { n: 'none' }
  | { n: 'ellipsis' }
  | { n: 'name' } // only `set` (after NFKC) gets this far; any other name is rejected by the parser
  | { n: 'tuple' | 'list' | 'set'; elts: Node[] }
  | { n: 'dict'; keys: Node[]; values: Node[] }
  | { n: 'call'; func: Node }
  | { n: 'unary'; op: '+' | '-'; operand: Node }
  | { n: 'binop'; op: '+' | '-'; left: Node; right: Node };

function fail(msg: string): never {
  throw new PyLiteralError(msg);
}

// sys.get_int_max_str_digits() default: decimal int literals longer than this are a SyntaxError in 3.11.
const INT_MAX_STR_DIGITS = 4300;

export function numberNode(text: string): Node {
  const t = text.replace(/_/g, '');
  const last = t[t.length - 1];
  if (last === 'j' || last === 'J') return { n: 'imag', v: Number(t.slice(0, -1)) };
  if (/^0[xob]/i.test(t)) return { n: 'int', v: BigInt(t.toLowerCase()) };
  if (/[.eE]/.test(t)) return { n: 'float', v: Number(t) };
  if (t[0] !== '0' && t.length > INT_MAX_STR_DIGITS) {
    fail(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion`);
  }
  return { n: 'int', v: BigInt(t) };
}

/** Whether a NAME token is `set` once NFKC-normalised, as CPython normalises identifiers. */
function isSetName(text: string): boolean {
  if (text === 'set') return true;
  const cps = Array.from(text);
  if (cps.length !== 3) return false;
  return cps.every((ch, k) => {
    const cp = ch.codePointAt(0)!;
    const letter = cp < 0x80 ? ch : setLetterOf(cp);
    return letter === 'set'[k];
  });
}

export function parse(tokens: Token[]): Node {
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const isOp = (text: string) => {
    const t = peek();
    return t.kind === 'op' && t.text === text;
  };
  const expectOp = (text: string) => {
    if (!isOp(text)) fail(`expected '${text}'`);
    pos++;
  };
  const startsExpr = (): boolean => {
    const t = peek();
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'name') return true;
    return t.kind === 'op' && ['(', '[', '{', '+', '-', '...'].includes(t.text);
  };

  const expr = (): Node => {
    let left = factor();
    for (;;) {
      const t = peek();
      if (t.kind === 'op' && (t.text === '+' || t.text === '-')) {
        pos++;
        left = { n: 'binop', op: t.text, left, right: factor() };
      } else return left;
    }
  };

  const factor = (): Node => {
    const t = peek();
    if (t.kind === 'op' && (t.text === '+' || t.text === '-')) {
      pos++;
      // literal_eval never accepts a unary operator applied to another one (--1 fails), and failing here keeps
      // a long run of signs from exhausting the JS stack (CPython fails on those too).
      if (isOp('+') || isOp('-')) fail('malformed node or string');
      return { n: 'unary', op: t.text, operand: factor() };
    }
    let node = atom();
    // Trailers: only an empty call can belong to a literal (set()); others fail where the caller sees them.
    while (isOp('(')) {
      pos++;
      expectOp(')');
      node = { n: 'call', func: node };
    }
    return node;
  };

  // Comma-separated elements up to `close`, trailing comma allowed; the first is already parsed.
  const restOfList = (first: Node, close: string): Node[] => {
    const elts = [first];
    while (isOp(',')) {
      pos++;
      if (isOp(close)) break;
      elts.push(expr());
    }
    expectOp(close);
    return elts;
  };

  const atom = (): Node => {
    const t = peek();
    switch (t.kind) {
      case 'number':
        pos++;
        return numberNode(t.text);
      case 'string':
        return strings();
      case 'name':
        pos++;
        if (t.text === 'True' || t.text === 'False') return { n: 'bool', v: t.text === 'True' };
        if (t.text === 'None') return { n: 'none' };
        if (isSetName(t.text)) return { n: 'name' };
        return fail(`name ${JSON.stringify(t.text)} is not a literal`);
      case 'op':
        pos++;
        switch (t.text) {
          case '...':
            return { n: 'ellipsis' };
          case '(': {
            if (isOp(')')) {
              pos++;
              return { n: 'tuple', elts: [] };
            }
            const first = expr();
            if (isOp(')')) {
              pos++;
              return first; // a parenthesised expression is the expression itself
            }
            if (!isOp(',')) fail("expected ')'");
            return { n: 'tuple', elts: restOfList(first, ')') };
          }
          case '[': {
            if (isOp(']')) {
              pos++;
              return { n: 'list', elts: [] };
            }
            return { n: 'list', elts: restOfList(expr(), ']') };
          }
          case '{': {
            if (isOp('}')) {
              pos++;
              return { n: 'dict', keys: [], values: [] };
            }
            const first = expr();
            if (!isOp(':')) return { n: 'set', elts: restOfList(first, '}') };
            pos++;
            const keys = [first];
            const values = [expr()];
            while (isOp(',')) {
              pos++;
              if (isOp('}')) break;
              keys.push(expr());
              expectOp(':');
              values.push(expr());
            }
            expectOp('}');
            return { n: 'dict', keys, values };
          }
        }
        return fail(`unexpected '${t.text}'`);
      default:
        return fail('unexpected end of expression');
    }
  };

  // Implicit concatenation of adjacent string tokens; str and bytes cannot mix; f-strings are not literals.
  const strings = (): Node => {
    const parts: DecodedString[] = [];
    let t = peek();
    while (t.kind === 'string') {
      if (t.prefix.toLowerCase().includes('f')) fail('f-strings are not literals');
      parts.push(decodeStringBody(t.prefix, t.body));
      pos++;
      t = peek();
    }
    const first = parts[0]!;
    if (parts.some((p) => p.bytes !== first.bytes)) fail('cannot mix bytes and nonbytes literals');
    if (first.bytes) return { n: 'bytes', data: parts.flatMap((p) => (p.bytes ? p.data : [])) };
    const cps = parts.flatMap((p) => (p.bytes ? [] : p.cps));
    let unsupported = parts.map((p) => (p.bytes ? undefined : p.unsupported)).find((u) => u !== undefined);
    for (let k = 0; k + 1 < cps.length && !unsupported; k++) {
      if (cps[k]! >= 0xd800 && cps[k]! <= 0xdbff && cps[k + 1]! >= 0xdc00 && cps[k + 1]! <= 0xdfff) {
        unsupported = 'a str with a high surrogate code point followed by a low one (a JS string would fuse them)';
      }
    }
    return unsupported ? { n: 'str', cps, unsupported } : { n: 'str', cps };
  };

  // eval: expressions NEWLINE* ENDMARKER
  if (!startsExpr()) fail('invalid syntax');
  const first = expr();
  let body: Node = first;
  if (isOp(',')) {
    const elts = [first];
    while (isOp(',')) {
      pos++;
      if (!startsExpr()) break;
      elts.push(expr());
    }
    body = { n: 'tuple', elts };
  }
  while (peek().kind === 'newline') pos++;
  if (peek().kind !== 'end') fail('invalid syntax');
  return body;
}

// CPython 3.11's tokenizer (Parser/tokenizer.c) for `ast.parse(source, mode="eval")`: everything an expression can
// contain — names (NFKC, Unicode identifiers), numbers (with 3.11's keyword-after-number rule), all string prefixes,
// every operator — plus indentation, comments, line continuations and bracket matching. It only has to say what
// the tokens are and where Python would stop with a SyntaxError; it does not keep positions for messages.

export class PySyntaxError extends Error {
  override name = 'PySyntaxError';
}

export type Tok =
  | { kind: 'name'; text: string; raw: string }
  | { kind: 'number'; text: string }
  | { kind: 'string'; prefix: string; body: string; triple: boolean; quote: string }
  | { kind: 'op'; text: string }
  | { kind: 'newline' }
  | { kind: 'end' };

const MAXLEVEL = 200;
const TABSIZE = 8;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isIdentStart = (c: string | undefined) =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c.charCodeAt(0) >= 128);
const isIdentChar = (c: string | undefined) => isIdentStart(c) || isDigit(c);
const STRING_PREFIXES = new Set(['b', 'r', 'u', 'f', 'br', 'rb', 'fr', 'rf']);

const OPS3 = new Set(['**=', '//=', '>>=', '<<=', '...', '!=']);
const OPS2 = new Set([
  '!=',
  '%=',
  '&=',
  '**',
  '*=',
  '+=',
  '-=',
  '->',
  '//',
  '/=',
  ':=',
  '<<',
  '<=',
  '<>',
  '==',
  '>=',
  '>>',
  '@=',
  '^=',
  '|=',
]);
const OPS1 = new Set([
  '%',
  '&',
  '(',
  ')',
  '*',
  '+',
  ',',
  '-',
  '.',
  '/',
  ':',
  ';',
  '<',
  '=',
  '>',
  '@',
  '[',
  ']',
  '^',
  '{',
  '|',
  '}',
  '~',
]);

function fail(msg: string): never {
  throw new PySyntaxError(msg);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Tokenize a whole `ast.parse(..., mode="eval")` source. */
export function tokenize(source: string): Tok[] {
  if (source.includes('\0')) fail('source code string cannot contain null bytes');
  if (LONE_SURROGATE.test(source)) fail("'utf-8' codec can't encode surrogates");
  const s = source.replace(/\r\n?/g, '\n');
  const n = s.length;
  const tokens: Tok[] = [];
  const brackets: string[] = [];
  let i = 0;
  let atbol = true;
  let lineHasContent = false;

  const continuation = () => {
    if (s[i] !== '\n') fail('unexpected character after line continuation character');
    i++;
    if (i >= n) fail('unexpected EOF while parsing');
  };

  for (;;) {
    let blankline = false;
    if (atbol) {
      atbol = false;
      let col = 0;
      let contLineCol = 0;
      for (;;) {
        const c = s[i];
        if (c === ' ') col++;
        else if (c === '\t') col = (Math.floor(col / TABSIZE) + 1) * TABSIZE;
        else if (c === '\f') col = 0;
        else if (c === '\\') {
          contLineCol = contLineCol || col;
          i++;
          continuation();
          continue;
        } else break;
        i++;
      }
      const c = s[i];
      if (c === '#' || c === '\n') blankline = true;
      if (!blankline && brackets.length === 0) {
        col = contLineCol || col;
        if (col !== 0) fail('unexpected indent');
      }
    }
    for (;;) {
      while (s[i] === ' ' || s[i] === '\t' || s[i] === '\f') i++;
      let c = s[i];
      if (c === '#') {
        while (i < n && s[i] !== '\n') i++;
        c = s[i];
      }
      if (i >= n) {
        if (brackets.length > 0) fail('unexpected EOF in multi-line statement');
        if (lineHasContent) tokens.push({ kind: 'newline' });
        tokens.push({ kind: 'end' });
        return tokens;
      }
      if (c === '\n') {
        i++;
        atbol = true;
        if (!blankline && brackets.length === 0 && lineHasContent) {
          tokens.push({ kind: 'newline' });
          lineHasContent = false;
        }
        break;
      }
      lineHasContent = true;
      if (isIdentStart(c)) {
        i = readNameOrString(s, i, tokens);
        continue;
      }
      if (c === '.' && isDigit(s[i + 1])) {
        i = readNumber(s, i, tokens);
        continue;
      }
      if (isDigit(c)) {
        i = readNumber(s, i, tokens);
        continue;
      }
      if (c === "'" || c === '"') {
        i = readString(s, i, '', tokens);
        continue;
      }
      if (c === '\\') {
        i++;
        continuation();
        continue;
      }
      const three = s.slice(i, i + 3);
      const two = s.slice(i, i + 2);
      let op: string | undefined;
      if (OPS3.has(three) && three.length === 3) op = three;
      else if (OPS2.has(two)) op = two;
      else if (OPS1.has(c!)) op = c;
      if (op === undefined) fail(c === '!' ? 'invalid syntax' : `invalid character '${c}'`);
      if (op === '<>') fail('invalid syntax');
      if (op === '(' || op === '[' || op === '{') {
        if (brackets.length >= MAXLEVEL) fail('too many nested parentheses');
        brackets.push(op);
      } else if (op === ')' || op === ']' || op === '}') {
        const open = brackets.pop();
        if (open === undefined) fail(`unmatched '${op}'`);
        if ('([{'.indexOf(open) !== ')]}'.indexOf(op)) fail('closing parenthesis does not match opening parenthesis');
      }
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    }
  }
}

function readNameOrString(s: string, start: number, tokens: Tok[]): number {
  let i = start;
  while (isIdentChar(s[i])) i++;
  const raw = s.slice(start, i);
  if ((s[i] === "'" || s[i] === '"') && STRING_PREFIXES.has(raw.toLowerCase())) return readString(s, i, raw, tokens);
  const text = /^[\x00-\x7f]*$/.test(raw) ? raw : verifyIdentifier(raw);
  tokens.push({ kind: 'name', text, raw });
  return i;
}

/**
 * verify_identifier: the spelling itself must be an identifier (XID_Start or `_`, then XID_Continue — `ⓢ` is not,
 * though its NFKC form `s` would be); the parser then names it by its NFKC form.
 */
function verifyIdentifier(raw: string): string {
  const chars = Array.from(raw);
  const bad = chars.find((ch, k) => !(k === 0 ? /[\p{XID_Start}_]/u : /\p{XID_Continue}/u).test(ch));
  if (bad !== undefined)
    fail(`invalid character '${bad}' (U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  return raw.normalize('NFKC');
}

function readString(s: string, quotePos: number, prefix: string, tokens: Tok[]): number {
  const quote = s[quotePos]!;
  let i = quotePos + 1;
  let triple = false;
  if (s[i] === quote && s[i + 1] === quote) {
    triple = true;
    i += 2;
  }
  const bodyStart = i;
  if (!triple && s[i] === quote) {
    tokens.push({ kind: 'string', prefix, body: '', triple, quote });
    return i + 1;
  }
  let endQuote = 0;
  const size = triple ? 3 : 1;
  for (;;) {
    const c = s[i];
    if (c === undefined) fail(triple ? 'unterminated triple-quoted string literal' : 'unterminated string literal');
    if (!triple && c === '\n') fail('unterminated string literal');
    i++;
    if (c === quote) {
      endQuote++;
      if (endQuote === size) break;
    } else {
      endQuote = 0;
      if (c === '\\') {
        if (i >= s.length) fail('unterminated string literal');
        i++;
        const u = s.charCodeAt(i - 1);
        if (u >= 0xd800 && u <= 0xdbff) i++;
      }
    }
  }
  tokens.push({ kind: 'string', prefix, body: s.slice(bodyStart, i - size), triple, quote });
  return i;
}

// The keywords 3.11 lets follow a number directly (with a warning): `1if x else y`, `0x1for …`.
function keywordFollows(s: string, i: number): boolean {
  const c = s[i];
  if (c === 'a') return s.startsWith('nd', i + 1);
  if (c === 'e') return s.startsWith('lse', i + 1);
  if (c === 'f') return s.startsWith('or', i + 1);
  if (c === 'i') return s[i + 1] === 'f' || s[i + 1] === 'n' || s[i + 1] === 's';
  if (c === 'o') return s.startsWith('r', i + 1);
  if (c === 'n') return s.startsWith('ot', i + 1);
  return false;
}

function readNumber(s: string, start: number, tokens: Tok[]): number {
  let i = start;
  const c = (): string | undefined => s[i];
  const next = () => {
    i++;
  };
  const verifyEnd = (kind: string) => {
    if (keywordFollows(s, i)) return;
    if (isIdentChar(c())) fail(`invalid ${kind} literal`);
  };
  const decimalTail = () => {
    for (;;) {
      do next();
      while (isDigit(c()));
      if (c() !== '_') break;
      next();
      if (!isDigit(c())) fail('invalid decimal literal');
    }
  };
  let state: 'fraction' | 'afterFraction' | 'exponent' | 'imaginary' | 'done';

  if (c() === '.') {
    next();
    state = 'fraction';
  } else if (c() === '0') {
    next();
    if (c() === 'x' || c() === 'X') {
      next();
      do {
        if (c() === '_') next();
        if (!isHex(c())) fail('invalid hexadecimal literal');
        do next();
        while (isHex(c()));
      } while (c() === '_');
      verifyEnd('hexadecimal');
      state = 'done';
    } else if (c() === 'o' || c() === 'O' || c() === 'b' || c() === 'B') {
      const octal = c() === 'o' || c() === 'O';
      const isDig = octal
        ? (d?: string) => d !== undefined && d >= '0' && d <= '7'
        : (d?: string) => d === '0' || d === '1';
      next();
      do {
        if (c() === '_') next();
        if (!isDig(c()))
          fail(
            isDigit(c())
              ? `invalid digit '${c()}' in ${octal ? 'octal' : 'binary'} literal`
              : `invalid ${octal ? 'octal' : 'binary'} literal`,
          );
        do next();
        while (isDig(c()));
      } while (c() === '_');
      if (isDigit(c())) fail(`invalid digit '${c()}' in ${octal ? 'octal' : 'binary'} literal`);
      verifyEnd(octal ? 'octal' : 'binary');
      state = 'done';
    } else {
      let nonzero = false;
      for (;;) {
        if (c() === '_') {
          next();
          if (!isDigit(c())) fail('invalid decimal literal');
        }
        if (c() !== '0') break;
        next();
      }
      if (isDigit(c())) {
        nonzero = true;
        decimalTail();
      }
      if (c() === '.') {
        next();
        state = 'fraction';
      } else if (c() === 'e' || c() === 'E') state = 'exponent';
      else if (c() === 'j' || c() === 'J') state = 'imaginary';
      else if (nonzero) fail('leading zeros in decimal integer literals are not permitted');
      else {
        verifyEnd('decimal');
        state = 'done';
      }
    }
  } else {
    decimalTail();
    if (c() === '.') {
      next();
      state = 'fraction';
    } else state = 'afterFraction';
  }

  if (state === 'fraction') {
    if (isDigit(c())) decimalTail();
    state = 'afterFraction';
  }
  if (state === 'afterFraction') {
    if (c() === 'e' || c() === 'E') state = 'exponent';
    else if (c() === 'j' || c() === 'J') state = 'imaginary';
    else {
      verifyEnd('decimal');
      state = 'done';
    }
  }
  if (state === 'exponent') {
    const ePos = i;
    next();
    if (c() === '+' || c() === '-') {
      next();
      if (!isDigit(c())) fail('invalid decimal literal');
    } else if (!isDigit(c())) {
      // The number ends before the "e" ("1else"): allowed only when a keyword starts there.
      if (!keywordFollows(s, ePos)) fail('invalid decimal literal');
      tokens.push({ kind: 'number', text: s.slice(start, ePos) });
      return ePos;
    }
    decimalTail();
    if (c() === 'j' || c() === 'J') state = 'imaginary';
    else {
      verifyEnd('decimal');
      state = 'done';
    }
  }
  if (state === 'imaginary') {
    next();
    verifyEnd('imaginary');
  }
  tokens.push({ kind: 'number', text: s.slice(start, i) });
  return i;
}

// The part of CPython 3.11's tokenizer (Parser/tokenizer.c, string input, eval mode) that a literal can reach.
// Anything a literal can never contain (operators other than the few below, keywords, unknown characters) ends
// tokenizing with an error at once: `ast.literal_eval` fails on such input whether CPython's error would have
// been a SyntaxError or a later ValueError, so the distinction does not matter here.
import { PyLiteralError } from './value.ts';

export type Token =
  | { kind: 'number'; text: string }
  | { kind: 'string'; prefix: string; body: string }
  | { kind: 'name'; text: string }
  | { kind: 'op'; text: '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '+' | '-' | '...' }
  | { kind: 'newline' }
  | { kind: 'end' };

const MAXLEVEL = 200; // tokenizer.c: "too many nested parentheses"
const TABSIZE = 8;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isIdentStart = (c: string | undefined) =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c.charCodeAt(0) >= 128);
const isIdentChar = (c: string | undefined) => isIdentStart(c) || isDigit(c);
const STRING_PREFIXES = new Set(['', 'b', 'r', 'u', 'f', 'br', 'rb', 'fr', 'rf']);

function fail(msg: string): never {
  throw new PyLiteralError(msg);
}

/** Tokenize source that has already had `lstrip(" \t")` applied, NUL and lone-surrogate checks done. */
export function tokenize(source: string): Token[] {
  // translate_newlines: \r\n and lone \r become \n (also inside string literals).
  const s = source.replace(/\r\n?/g, '\n');
  const n = s.length;
  const tokens: Token[] = [];
  const brackets: string[] = [];
  let i = 0;
  let atbol = true;

  // tok_continuation_line: a backslash must be followed by a newline, and that newline by more input.
  const continuation = () => {
    if (s[i] !== '\n') fail('unexpected character after line continuation character');
    i++;
    if (i >= n) fail('unexpected EOF while parsing');
  };

  for (;;) {
    // nextline:
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
          // CPython 3.11 keeps the column before the first backslash; a column of 0 counts as "not set".
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
        // The indent stack is [0] and no literal can follow an INDENT or DEDENT.
        if (col !== 0) fail('unexpected indent');
      }
    }
    // again:
    for (;;) {
      while (s[i] === ' ' || s[i] === '\t' || s[i] === '\f') i++;
      let c = s[i];
      if (c === '#') {
        while (i < n && s[i] !== '\n') i++;
        c = s[i];
      }
      if (i >= n) {
        if (brackets.length > 0) fail('unexpected EOF in multi-line statement');
        tokens.push({ kind: 'end' });
        return tokens;
      }
      if (isIdentStart(c)) {
        i = readNameOrString(s, i, tokens);
        continue;
      }
      if (c === '\n') {
        i++;
        atbol = true;
        if (!blankline && brackets.length === 0) tokens.push({ kind: 'newline' });
        break; // to nextline
      }
      if (c === '.') {
        if (isDigit(s[i + 1])) {
          i = readNumber(s, i, tokens);
        } else if (s[i + 1] === '.' && s[i + 2] === '.') {
          tokens.push({ kind: 'op', text: '...' });
          i += 3;
        } else fail('invalid syntax'); // attribute access or a lone dot: never part of a literal
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
      switch (c) {
        case '(':
        case '[':
        case '{':
          if (brackets.length >= MAXLEVEL) fail('too many nested parentheses');
          brackets.push(c);
          tokens.push({ kind: 'op', text: c });
          i++;
          continue;
        case ')':
        case ']':
        case '}': {
          const open = brackets.pop();
          if (open === undefined) fail(`unmatched '${c}'`);
          if ('([{'.indexOf(open) !== ')]}'.indexOf(c)) fail('closing parenthesis does not match');
          tokens.push({ kind: 'op', text: c });
          i++;
          continue;
        }
        case ',':
        case ':':
        case '+':
        case '-':
          // "+=", "-=", "->", ":=" and the like are never part of a literal: the parser rejects what follows.
          tokens.push({ kind: 'op', text: c });
          i++;
          continue;
        default:
          fail(`invalid syntax at ${JSON.stringify(c)}`);
      }
    }
  }
}

function readNameOrString(s: string, start: number, tokens: Token[]): number {
  let i = start;
  while (isIdentChar(s[i])) i++;
  const text = s.slice(start, i);
  if ((s[i] === "'" || s[i] === '"') && STRING_PREFIXES.has(text.toLowerCase())) {
    return readString(s, i, text, tokens);
  }
  tokens.push({ kind: 'name', text });
  return i;
}

function readString(s: string, quotePos: number, prefix: string, tokens: Token[]): number {
  const quote = s[quotePos]!;
  let i = quotePos + 1;
  let quoteSize = 1;
  if (s[i] === quote && s[i + 1] === quote) {
    quoteSize = 3;
    i += 2;
  }
  const bodyStart = i;
  let endQuote = 0;
  if (quoteSize === 1 && s[i] === quote) {
    tokens.push({ kind: 'string', prefix, body: '' });
    return i + 1;
  }
  for (;;) {
    const c = s[i];
    if (c === undefined || (quoteSize === 1 && c === '\n')) fail('unterminated string literal');
    i++;
    if (c === quote) {
      endQuote++;
      if (endQuote === quoteSize) break;
    } else {
      endQuote = 0;
      if (c === '\\') {
        if (i >= s.length) fail('unterminated string literal');
        i++; // the escaped character, whatever it is (a newline included)
        // A surrogate pair is one source character.
        const u = s.charCodeAt(i - 1);
        if (u >= 0xd800 && u <= 0xdbff) i++;
      }
    }
  }
  tokens.push({ kind: 'string', prefix, body: s.slice(bodyStart, i - quoteSize) });
  return i;
}

// Port of the number branch of tok_get. `i` indexes the character just read (`c`); the token ends before it.
function readNumber(s: string, start: number, tokens: Token[]): number {
  let i = start;
  // A function, not a variable, so TypeScript does not narrow it across next().
  const c = (): string | undefined => s[i];
  const next = () => {
    i++;
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
  // verify_end_of_number: a letter, digit or underscore (or any non-ASCII character) right after a number is an
  // error, or a keyword (1if ...) that no literal can contain.
  const verifyEnd = () => {
    if (isIdentChar(c())) fail('invalid literal');
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
      verifyEnd();
      state = 'done';
    } else if (c() === 'o' || c() === 'O' || c() === 'b' || c() === 'B') {
      const isDig = c() === 'o' || c() === 'O' ? (d?: string) => d !== undefined && d >= '0' && d <= '7' : (d?: string) => d === '0' || d === '1';
      next();
      do {
        if (c() === '_') next();
        if (!isDig(c())) fail('invalid digit in literal');
        do next();
        while (isDig(c()));
      } while (c() === '_');
      if (isDigit(c())) fail('invalid digit in literal');
      verifyEnd();
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
        verifyEnd();
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
      verifyEnd();
      state = 'done';
    }
  }
  if (state === 'exponent') {
    next();
    if (c() === '+' || c() === '-') {
      next();
      if (!isDigit(c())) fail('invalid decimal literal');
    } else if (!isDigit(c())) {
      // The number ends before the "e", which is then an identifier character right after it: an error
      // (or the keyword "else", which no literal contains).
      fail('invalid decimal literal');
    }
    decimalTail();
    if (c() === 'j' || c() === 'J') state = 'imaginary';
    else {
      verifyEnd();
      state = 'done';
    }
  }
  if (state === 'imaginary') {
    next();
    verifyEnd();
  }
  tokens.push({ kind: 'number', text: s.slice(start, i) });
  return i;
}

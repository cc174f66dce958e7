// Decoding of string and bytes literal bodies, as CPython 3.11's parser does it (Parser/string_parser.c:
// decode_unicode_with_escapes + _PyUnicode_DecodeUnicodeEscapeInternal, and _PyBytes_DecodeEscape).
import { lookupCharName, NameTableUnavailable } from './unicode-names.ts';
import { PyLiteralError } from './value.ts';

/** A decoded str as Python code points, or bytes. `unsupported` says why the value cannot be represented. */
export type DecodedString = { bytes: false; cps: number[]; unsupported?: string } | { bytes: true; data: number[] };

function fail(msg: string): never {
  throw new PyLiteralError(msg);
}

const hexVal = (c: string | undefined): number => (c !== undefined && /^[0-9a-fA-F]$/.test(c) ? parseInt(c, 16) : -1);
const isOct = (c: string | undefined) => c !== undefined && c >= '0' && c <= '7';

const SIMPLE: Record<string, number> = {
  '\\': 0x5c,
  "'": 0x27,
  '"': 0x22,
  b: 0x08,
  f: 0x0c,
  t: 0x09,
  n: 0x0a,
  r: 0x0d,
  v: 0x0b,
  a: 0x07,
};

/** Decode one string token's body given its prefix (any case of b, r, u, br, rb; f-strings are refused earlier). */
export function decodeStringBody(prefix: string, body: string): DecodedString {
  const p = prefix.toLowerCase();
  const isBytes = p.includes('b');
  const isRaw = p.includes('r');
  if (isBytes) {
    const data: number[] = [];
    for (let i = 0; i < body.length; i++) {
      const u = body.charCodeAt(i);
      if (u >= 0x80) fail('bytes can only contain ASCII literal characters');
      data.push(u);
    }
    return { bytes: true, data: isRaw ? data : decodeBytesEscapes(body) };
  }
  const cps: number[] = [];
  if (isRaw) {
    for (const ch of body) cps.push(ch.codePointAt(0)!);
    return { bytes: false, cps };
  }
  return decodeStrEscapes(body);
}

function decodeStrEscapes(body: string): DecodedString {
  const cps: number[] = [];
  let unsupported: string | undefined;
  const chars = Array.from(body); // code points: the source has no lone surrogates
  const n = chars.length;
  let i = 0;
  while (i < n) {
    const ch = chars[i]!;
    if (ch !== '\\') {
      cps.push(ch.codePointAt(0)!);
      i++;
      continue;
    }
    i++;
    const c = chars[i];
    if (c === undefined) fail('\\ at end of string');
    // decode_unicode_with_escapes turns a backslash before a non-ASCII character into a literal backslash.
    if (c.codePointAt(0)! >= 0x80) {
      cps.push(0x5c);
      continue;
    }
    i++;
    if (c === '\n') continue;
    const simple = SIMPLE[c];
    if (simple !== undefined) {
      cps.push(simple);
      continue;
    }
    if (isOct(c)) {
      let v = c.charCodeAt(0) - 48;
      if (isOct(chars[i])) {
        v = v * 8 + chars[i++]!.charCodeAt(0) - 48;
        if (isOct(chars[i])) v = v * 8 + chars[i++]!.charCodeAt(0) - 48;
      }
      cps.push(v);
      continue;
    }
    if (c === 'x' || c === 'u' || c === 'U') {
      const count = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      let v = 0;
      for (let k = 0; k < count; k++) {
        const d = hexVal(chars[i]);
        if (d < 0) fail(`truncated \\${c} escape`);
        v = v * 16 + d;
        i++;
      }
      if (v > 0x10ffff) fail('illegal Unicode character');
      cps.push(v);
      continue;
    }
    if (c === 'N') {
      if (chars[i] === '{') {
        const start = i + 1;
        let k = start;
        while (k < n && chars[k] !== '}') k++;
        if (k > start && k < n) {
          const name = chars.slice(start, k).join('');
          let cp: number | undefined;
          try {
            cp = lookupCharName(name);
          } catch (err) {
            if (!(err instanceof NameTableUnavailable)) throw err;
            unsupported ??= `\\N{${name}}: ${err.message}`;
            cp = 0xfffd;
          }
          if (cp === undefined) fail(`unknown Unicode character name ${JSON.stringify(name)}`);
          cps.push(cp);
          i = k + 1;
          continue;
        }
      }
      fail('malformed \\N character escape');
    }
    // An invalid escape (\d, \8, ...) is kept as written (with a DeprecationWarning in 3.11).
    cps.push(0x5c, c.codePointAt(0)!);
  }
  return unsupported ? { bytes: false, cps, unsupported } : { bytes: false, cps };
}

function decodeBytesEscapes(body: string): number[] {
  const out: number[] = [];
  const n = body.length;
  let i = 0;
  while (i < n) {
    const ch = body[i]!;
    if (ch !== '\\') {
      out.push(ch.charCodeAt(0));
      i++;
      continue;
    }
    i++;
    if (i >= n) fail('Trailing \\ in string');
    const c = body[i++]!;
    if (c === '\n') continue;
    const simple = SIMPLE[c];
    if (simple !== undefined) {
      out.push(simple);
      continue;
    }
    if (isOct(c)) {
      let v = c.charCodeAt(0) - 48;
      if (isOct(body[i])) {
        v = v * 8 + body.charCodeAt(i++) - 48;
        if (isOct(body[i])) v = v * 8 + body.charCodeAt(i++) - 48;
      }
      out.push(v & 0xff); // stored into a char: \777 is b'\xff'
      continue;
    }
    if (c === 'x') {
      const d1 = hexVal(body[i]);
      const d2 = hexVal(body[i + 1]);
      if (i + 1 < n && d1 >= 0 && d2 >= 0) {
        out.push(d1 * 16 + d2);
        i += 2;
        continue;
      }
      fail('invalid \\x escape');
    }
    out.push(0x5c);
    i--; // the character after the backslash is kept as a plain character
  }
  return out;
}

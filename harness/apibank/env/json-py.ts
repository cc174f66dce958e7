// JSON text -> PyValue as Python's json.loads builds it: object keys in file order (JS objects would move
// integer-like keys such as "1" first), numbers with a '.', 'e' or 'E' as float and the rest as int, a repeated key
// keeping its first position and last value.
import type { PyValue } from '../../core/pyliteral/index.ts';

export class JsonPyError extends Error {
  override name = 'JsonPyError';
}

// Sticky patterns matched at the cursor (no substring copies, so a 3 MB table reads in linear time).
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

export function parseJsonPy(text: string): PyValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonPyError(`${what} at offset ${i}`);
  };
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const str = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) return fail('bad string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const value = (): PyValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: Array<[PyValue, PyValue]> = [];
      const index = new Map<string, number>();
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'dict', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected key');
        const k = str();
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        const v = value();
        const at = index.get(k);
        if (at === undefined) {
          index.set(k, entries.length);
          entries.push([{ t: 'str', v: k }, v]);
        } else entries[at]![1] = v;
        ws();
        const sep = text[i++];
        if (sep === '}') return { t: 'dict', entries };
        if (sep !== ',') fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: PyValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'list', items };
      }
      for (;;) {
        items.push(value());
        ws();
        const sep = text[i++];
        if (sep === ']') return { t: 'list', items };
        if (sep !== ',') fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: 'str', v: str() };
    for (const [lit, v] of [
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
      ['null', { t: 'none' }],
      ['NaN', { t: 'float', v: NaN }],
      ['Infinity', { t: 'float', v: Infinity }],
      ['-Infinity', { t: 'float', v: -Infinity }],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return v as PyValue;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected character');
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return { t: 'int', v: BigInt(m[0]) };
    return { t: 'float', v: Number(m[0]) };
  };
  const v = value();
  ws();
  if (i !== text.length) fail('extra data');
  return v;
}

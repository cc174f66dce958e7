// BFCL's JavaScript type conversion (eval_checker/ast_eval/type_convertor/js_type_converter.py): every JavaScript
// argument arrives as a string and is turned into a Python value with regular expressions. Kept as BFCL has it,
// including that any error while reading an array or a dict leaves the string unconverted.
import { pyFloatOfStr, pyIntOfStr } from '../../core/pyliteral/builtins.ts';
import { pyStrip } from '../../core/pyliteral/index.ts';
import { BfclCrash, float, int, list, pyRegex, reFindall, reMatch, str, stripChars, type PyValue } from '../py.ts';

export const JS_TYPES: Record<string, string> = {
  String: 'str',
  integer: 'int',
  float: 'float',
  Bigint: 'int',
  Boolean: 'bool',
  dict: 'dict',
  array: 'list',
  any: 'str',
};

const RE = {
  int: pyRegex('^-?\\d+$'),
  float: pyRegex('^-?\\d+(\\.\\d+)?$'),
  bigint: pyRegex('^-?\\d+n$'),
  array2d: pyRegex(
    '\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]|\\bnew\\s+Array\\(\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\)',
  ),
  array: pyRegex('\\[(.*?)\\]|\\bnew\\s+Array\\((.*?)\\)'),
  inner: pyRegex('\\[(.*?)\\]'),
  dict: pyRegex('\\{(.*?)\\}'),
  pair: pyRegex('([^:]+):\\s*(.*?)(?:,\\s*(?=[^,]+:)|$)'),
};

const slice1 = (s: string) => Array.from(s).slice(1, -1).join('');

function toInt(s: string): PyValue {
  const v = pyIntOfStr(s);
  if (v === undefined)
    throw new BfclCrash('ValueError', `invalid literal for int() with base 10: ${JSON.stringify(s)}`);
  return int(v);
}

/** js_type_converter(value, expected_type, nested_type). */
export function jsTypeConverter(value: string, expectedType: string, nestedType?: string): PyValue {
  if (!(expectedType in JS_TYPES)) throw new BfclCrash('ValueError', `Unsupported type: ${expectedType}`);
  switch (expectedType) {
    case 'String':
      if (!(value.startsWith('"') && value.endsWith('"')) && !(value.startsWith("'") && value.endsWith("'")))
        return str(value);
      return str(slice1(value));
    case 'integer':
      return reMatch(RE.int, value) ? toInt(value) : str(value);
    case 'float': {
      if (!reMatch(RE.float, value)) return str(value);
      return float(pyFloatOfStr(value)!);
    }
    case 'Bigint':
      return reMatch(RE.bigint, value) ? toInt(Array.from(value).slice(0, -1).join('')) : str(value);
    case 'Boolean':
      return value === 'true' || value === 'false' ? { t: 'bool', v: value === 'true' } : str(value);
    case 'dict':
      return parseJsCollection(value, 'dict', nestedType);
    case 'array':
      return parseJsCollection(value, 'array', nestedType);
    default:
      return str(value); // any
  }
}

/** parse_js_collection(code, type_str, nested_type). */
export function parseJsCollection(input: string, type: 'array' | 'dict', nestedType?: string): PyValue {
  const code = pyStrip(input);
  if (type === 'array') {
    // The reference wraps this branch in a bare `except:`: any error returns the code unconverted.
    try {
      const m2 = reMatch(RE.array2d, code);
      if (m2) {
        const inner = reFindall(RE.inner, m2[0]).map(([x]) => x!);
        return list(
          inner.map((raw, idx) => {
            let s = pyStrip(raw);
            if (idx === 0 && s.startsWith('[')) s = s.slice(1);
            return list(s.split(',').map((e) => parseJsValue(pyStrip(e))));
          }),
        );
      }
      const m = reMatch(RE.array, code);
      if (!m) return str(code);
      const body = m[1] !== undefined ? m[1] : m[2];
      const elementsStr = body === undefined ? '' : pyStrip(body);
      const elements = elementsStr ? elementsStr.split(',') : [];
      if (nestedType) {
        return list(
          elements.map((e) => {
            const t = pyStrip(e);
            return t.startsWith("'") || t.startsWith('"')
              ? jsTypeConverter(t, nestedType, 'String')
              : jsTypeConverter(t, nestedType);
          }),
        );
      }
      return list(elements.map((e) => parseJsValue(pyStrip(e))));
    } catch (err) {
      if (err instanceof BfclCrash) return str(code);
      throw err;
    }
  }
  if (code === '{}') return { t: 'dict', entries: [] };
  const m = reMatch(RE.dict, code);
  if (!m) return str(code);
  try {
    const entries: Array<[PyValue, PyValue]> = [];
    for (const [rawKey, rawValue] of reFindall(RE.pair, m[1]!)) {
      const key = stripChars(pyStrip(rawKey!), `'"`);
      const value = pyStrip(rawValue!);
      let v: PyValue;
      if (value.startsWith('[') && value.endsWith(']')) v = parseJsCollection(value, 'array');
      else if (value.startsWith('{') && value.endsWith('}')) v = parseJsCollection(value, 'dict');
      else v = parseJsValue(stripChars(value, `'"`));
      const at = entries.findIndex(([k]) => k.t === 'str' && k.v === key);
      if (at >= 0) entries[at]![1] = v;
      else entries.push([str(key), v]);
    }
    return { t: 'dict', entries };
  } catch (err) {
    if (err instanceof BfclCrash) return str(code);
    throw err;
  }
}

/** parse_js_value: a JavaScript literal without a declared type. */
export function parseJsValue(input: string): PyValue {
  const s = pyStrip(input);
  if (s === 'true') return { t: 'bool', v: true };
  if (s === 'false') return { t: 'bool', v: false };
  if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return str(slice1(s));
  const i = pyIntOfStr(s);
  if (i !== undefined) return int(i);
  const f = pyFloatOfStr(s);
  if (f !== undefined) return float(f);
  return str(s);
}

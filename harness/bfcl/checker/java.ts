// BFCL's Java type conversion (eval_checker/ast_eval/type_convertor/java_type_converter.py): a model passes every
// Java argument as a string ("new int[]{1, 2}", "5L", "true"); the checker turns it into a Python value with
// regular expressions and compares that. Its quirks are kept: a string that does not fit stays a string, `char`
// never converts, and Set/Hashtable/Queue/Stack raise.
import { pyFloatOfStr, pyIntOfStr } from '../../core/pyliteral/builtins.ts';
import { pyStrip } from '../../core/pyliteral/index.ts';
import {
  BfclCrash,
  float,
  int,
  list,
  pyRegex,
  reFindall,
  reMatch,
  reSearch,
  str,
  stripChars,
  type PyValue,
} from '../py.ts';

export const JAVA_TYPES: Record<string, string> = {
  byte: 'int',
  short: 'int',
  integer: 'int',
  float: 'float',
  double: 'float',
  long: 'int',
  boolean: 'bool',
  char: 'str',
  Array: 'list',
  ArrayList: 'list',
  Set: 'set',
  HashMap: 'dict',
  Hashtable: 'dict',
  Queue: 'list',
  Stack: 'list',
  String: 'str',
  any: 'str',
};

const RE = {
  int: pyRegex('^-?\\d+$'),
  float: pyRegex('^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?[fF]$'),
  double: pyRegex('^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?$'),
  long: pyRegex('^-?\\d+[lL]$'),
  asList: pyRegex('new\\s+ArrayList<\\w*>\\(Arrays\\.asList\\((.+?)\\)\\)'),
  addBlock: pyRegex('new\\s+ArrayList<\\w*>\\(\\)\\s*\\{\\{\\s*(.+?)\\s*\\}\\}', '', true),
  add: pyRegex('add\\((.+?)\\)'),
  emptyList: pyRegex('new\\s+ArrayList<\\w*>\\(\\)'),
  array: pyRegex('new\\s+\\w+\\[\\]\\s*\\{(.*?)\\}'),
  hashmap: pyRegex('new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}', '', true),
  put: pyRegex('put\\(\\"(.*?)\\",\\s*(.*?)\\)'),
  emptyMap: pyRegex('new\\s+HashMap<.*?>\\s*\\(\\)'),
};

/** re.sub(r"[fF]$", "", s) and re.sub(r"[lL]$", "", s): `$` also matches before a final newline. */
function dropSuffixChar(s: string, chars: string): string {
  if (s.length >= 2 && s.endsWith('\n') && chars.includes(s[s.length - 2]!)) return s.slice(0, -2) + '\n';
  if (s.length >= 1 && chars.includes(s[s.length - 1]!)) return s.slice(0, -1);
  return s;
}

function toInt(s: string): PyValue {
  const v = pyIntOfStr(s);
  if (v === undefined)
    throw new BfclCrash('ValueError', `invalid literal for int() with base 10: ${JSON.stringify(s)}`);
  return int(v);
}

function toFloat(s: string): PyValue {
  const v = pyFloatOfStr(s);
  if (v === undefined) throw new BfclCrash('ValueError', `could not convert string to float: ${JSON.stringify(s)}`);
  return float(v);
}

/** java_type_converter(value, expected_type, nested_type). */
export function javaTypeConverter(value: string, expectedType: string, nestedType?: string): PyValue {
  if (!(expectedType in JAVA_TYPES)) throw new BfclCrash('ValueError', `Unsupported type: ${expectedType}`);
  switch (expectedType) {
    case 'byte':
    case 'short':
    case 'integer':
      return reMatch(RE.int, value) ? toInt(value) : str(value);
    case 'float':
      return reMatch(RE.float, value) ? toFloat(dropSuffixChar(value, 'fF')) : str(value);
    case 'double':
      return reMatch(RE.double, value) ? toFloat(value) : str(value);
    case 'long':
      return reMatch(RE.long, value) ? toInt(dropSuffixChar(value, 'lL')) : str(value);
    case 'boolean':
      return value === 'true' || value === 'false' ? { t: 'bool', v: value === 'true' } : str(value);
    case 'char':
      // The reference pattern is ^'.$' — an end anchor before a quote — which never matches.
      return str(value);
    case 'Array':
      return parseArray(value, nestedType);
    case 'ArrayList':
      return parseArrayList(value, nestedType);
    case 'HashMap':
      return parseHashMap(value);
    case 'Set':
    case 'Hashtable':
      throw new BfclCrash('NotImplementedError', 'Set conversion is not implemented');
    case 'Queue':
    case 'Stack':
      throw new BfclCrash('NotImplementedError', `${expectedType} conversion is not implemented`);
    default:
      return str(value); // String, any
  }
}

function element(text: string, nestedType: string | undefined): PyValue {
  if (nestedType === 'char' || nestedType === 'String') return str(Array.from(text).slice(1, -1).join(''));
  return nestedType ? javaTypeConverter(text, nestedType) : parseJavaValue(text);
}

function parseArrayList(input: string, nestedType: string | undefined): PyValue {
  const asList = reSearch(RE.asList, input);
  if (asList) return list(asList[1]!.split(',').map((e) => element(pyStrip(e), nestedType)));
  const adds = reSearch(RE.addBlock, input);
  if (adds) return list(reFindall(RE.add, adds[1]!).map(([m]) => element(pyStrip(m!), nestedType)));
  if (reSearch(RE.emptyList, input)) return list([]);
  return str(input);
}

function parseArray(input: string, nestedType: string | undefined): PyValue {
  const m = reSearch(RE.array, input);
  if (!m) return str(input);
  const parts = m[1]!.split(',').filter((x) => pyStrip(x) !== '');
  return list(parts.map((x) => (nestedType ? javaTypeConverter(pyStrip(x), nestedType) : parseJavaValue(pyStrip(x)))));
}

function parseHashMap(input: string): PyValue {
  const m = reSearch(RE.hashmap, input);
  if (m) {
    const entries: Array<[PyValue, PyValue]> = [];
    const puts = m[1]!;
    if (pyStrip(puts)) {
      for (const [key, val] of reFindall(RE.put, puts)) {
        const v = parseJavaValue(pyStrip(val!));
        const at = entries.findIndex(([k]) => k.t === 'str' && k.v === key);
        if (at >= 0) entries[at]![1] = v;
        else entries.push([str(key!), v]);
      }
    }
    return { t: 'dict', entries };
  }
  if (reSearch(RE.emptyMap, input)) return { t: 'dict', entries: [] };
  return str(input);
}

/** parse_java_value: a Java literal without a declared type. */
export function parseJavaValue(s: string): PyValue {
  if (s === 'true') return { t: 'bool', v: true };
  if (s === 'false') return { t: 'bool', v: false };
  if (s.startsWith('"') && s.endsWith('"')) return str(Array.from(s).slice(1, -1).join(''));
  if (reMatch(RE.long, s)) return toInt(Array.from(s).slice(0, -1).join(''));
  if (reMatch(RE.float, s)) return toFloat(dropSuffixChar(s, 'fF'));
  const i = pyIntOfStr(s);
  if (i !== undefined) return int(i);
  const f = pyFloatOfStr(s);
  if (f !== undefined) return float(f);
  return str(s);
}

export { stripChars };

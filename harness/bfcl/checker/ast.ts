// BFCL's AST checker (eval_checker/ast_eval/ast_checker.py at the pinned commit), emulated over exact Python
// values: the same branches in the same order, the same error_type strings, the same quirks (greedy parallel
// matching, one-level nested type checks, the "variable" escape hatch, string standardisation). Where BFCL's
// Python would raise (and abort its whole run), this throws BfclCrash.
import type { Language } from '../categories.ts';
import { typeName } from '../../core/pyliteral/builtins.ts';
import { pyEquals } from '../../core/pyliteral/index.ts';
import { BfclCrash, dictGet, isStr, itemsOf, pyIn, show, type PyValue } from '../py.ts';
import { pyLower } from '../../core/pyliteral/index.ts';
import { JAVA_TYPES, javaTypeConverter } from './java.ts';
import { JS_TYPES, jsTypeConverter } from './js.ts';

/** One function document as BFCL ships it (only the fields the checker reads are typed). */
export interface FunctionDoc {
  name: string;
  description?: string;
  parameters: { type?: string; properties: Record<string, ParamDoc>; required?: string[]; [k: string]: unknown };
  [k: string]: unknown;
}
export interface ParamDoc {
  type?: string;
  items?: { type?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** A decoded model call: `{name: {param: value}}` with Python values (param keys are str, or None for `**x`). */
export interface DecodedCall {
  name: PyValue;
  params: Array<[PyValue, PyValue]>;
}

export interface CheckResult {
  valid: boolean;
  error: string[];
  error_type: string;
}

export interface AstCheckOptions {
  /** BFCL's convert_func_name: the model's config says it saw dots replaced by underscores (OpenAI-style names). */
  underscoreToDot?: boolean;
}

const PYTHON_TYPES: Record<string, string> = {
  string: 'str',
  integer: 'int',
  float: 'float',
  boolean: 'bool',
  array: 'list',
  tuple: 'list',
  dict: 'dict',
  any: 'str',
};
const PYTHON_NESTED = ['array', 'tuple'];
const NESTED_CONVERSION = ['Array', 'ArrayList', 'array'];

const ok = (): CheckResult => ({ valid: true, error: [], error_type: '' });
const bad = (error_type: string, msg: string): CheckResult => ({ valid: false, error: [msg], error_type });

function keyError(key: string): never {
  throw new BfclCrash('KeyError', `'${key}'`);
}

/** ast_checker(func_description, model_output, possible_answer, language, test_category, model_name). */
export function astChecker(
  funcDescriptions: readonly FunctionDoc[],
  modelOutput: readonly DecodedCall[],
  possibleAnswer: PyValue,
  language: Language,
  category: string,
  opts: AstCheckOptions = {},
): CheckResult {
  const answers = itemsOf(possibleAnswer, 'possible answer');
  if (category.includes('parallel')) return parallelNoOrder(funcDescriptions, modelOutput, answers, language, opts);
  if (category.includes('multiple')) {
    if (modelOutput.length !== answers.length)
      return bad('multiple_function_checker:wrong_count', 'Wrong number of functions.');
    if (answers.length === 0) throw new BfclCrash('IndexError', 'list index out of range');
    const expected = firstKey(answers[0]!);
    return simpleFunctionChecker(
      findDescription(funcDescriptions, expected),
      modelOutput[0]!,
      answers[0]!,
      language,
      opts,
    );
  }
  if (modelOutput.length !== 1) return bad('simple_function_checker:wrong_count', 'Wrong number of functions.');
  if (funcDescriptions.length === 0) throw new BfclCrash('IndexError', 'list index out of range');
  if (answers.length === 0) throw new BfclCrash('IndexError', 'list index out of range');
  return simpleFunctionChecker(funcDescriptions[0]!, modelOutput[0]!, answers[0]!, language, opts);
}

function firstKey(answer: PyValue): string {
  if (answer.t !== 'dict')
    throw new BfclCrash('AttributeError', `'${typeName(answer)}' object has no attribute 'keys'`);
  const k = answer.entries[0];
  if (!k) throw new BfclCrash('IndexError', 'list index out of range');
  if (!isStr(k[0])) throw new BfclCrash('TypeError', 'function name is not a str');
  return k[0].v;
}

function findDescription(docs: readonly FunctionDoc[], name: string): FunctionDoc | undefined {
  return docs.find((d) => d.name === name);
}

/** convert_func_name: dots become underscores only for models whose config says so. */
export function convertFuncName(name: string, opts: AstCheckOptions): string {
  return name.includes('.') && opts.underscoreToDot ? name.replace(/\./g, '_') : name;
}

function parallelNoOrder(
  docs: readonly FunctionDoc[],
  output: readonly DecodedCall[],
  answers: PyValue[],
  language: Language,
  opts: AstCheckOptions,
): CheckResult {
  if (output.length !== answers.length)
    return bad('parallel_function_checker_no_order:wrong_count', 'Wrong number of functions.');
  const matched: number[] = [];
  for (let i = 0; i < answers.length; i++) {
    const expected = firstKey(answers[i]!);
    const doc = findDescription(docs, expected);
    const errors: string[] = [];
    let result: CheckResult | undefined;
    for (let index = 0; index < output.length; index++) {
      if (matched.includes(index)) continue;
      result = simpleFunctionChecker(doc, output[index]!, answers[i]!, language, opts);
      if (result.valid) {
        matched.push(index);
        break;
      }
      errors.push(`Model Result Index ${index}: ${result.error_type}: ${result.error.join(' ')}`);
    }
    // The reference reads the last `result`; with every output already matched it is the previous answer's.
    if (result === undefined)
      throw new BfclCrash('UnboundLocalError', "local variable 'result' referenced before assignment");
    if (!result.valid) {
      const considered = output.map((_, k) => k).filter((k) => !matched.includes(k));
      return {
        valid: false,
        error: [
          `Could not find a matching function among index [${considered.join(', ')}] of model output for index ${i} of possible answers.`,
          ...errors,
        ],
        error_type: 'parallel_function_checker_no_order:cannot_find_match',
      };
    }
  }
  return ok();
}

/** simple_function_checker(func_description, model_output, possible_answer, language, model_name). */
export function simpleFunctionChecker(
  doc: FunctionDoc | undefined,
  call: DecodedCall,
  possible: PyValue,
  language: Language,
  opts: AstCheckOptions,
): CheckResult {
  if (possible.t !== 'dict')
    throw new BfclCrash('AttributeError', `'${typeName(possible)}' object has no attribute 'values'`);
  if (possible.entries.length === 0) throw new BfclCrash('IndexError', 'list index out of range');
  const answer = possible.entries[0]![1];
  if (!doc) throw new BfclCrash('TypeError', "'NoneType' object is not subscriptable");
  const params = doc.parameters ?? keyError('parameters');
  const paramDetails = params.properties ?? keyError('properties');
  const required = params.required ?? keyError('required');

  const funcName = convertFuncName(doc.name, opts);
  if (!pyEquals(call.name, { t: 'str', v: funcName }))
    return bad('simple_function_checker:wrong_func_name', `Function name '${funcName}' not found in model output.`);
  const modelParams = call.params;
  const has = (p: string) => modelParams.some(([k]) => isStr(k) && k.v === p);

  for (const p of required) {
    if (!has(p)) return bad('simple_function_checker:missing_required', `Missing required parameter: '${p}'.`);
  }

  for (const [key, rawValue] of modelParams) {
    const param = isStr(key) ? key.v : undefined;
    const possibleForParam = param === undefined ? undefined : dictGet(answer, param);
    if (param === undefined || !Object.hasOwn(paramDetails, param) || possibleForParam === undefined) {
      return bad(
        'simple_function_checker:unexpected_param',
        `Unexpected parameter: ${param === undefined ? show(key) : `'${param}'`}.`,
      );
    }
    const detail = paramDetails[param]!;
    const typeDesc = detail.type ?? keyError('type');
    let value = rawValue;
    let expected: string;
    let nested: string | undefined;

    if (language === 'java') {
      expected = JAVA_TYPES[typeDesc] ?? keyError(typeDesc);
      if (value.t !== 'str')
        return bad(
          'type_error:java',
          `Incorrect type for parameter '${param}'. Expected type String, got ${typeName(value)}. Parameter value: ${show(value)}.`,
        );
      if (NESTED_CONVERSION.includes(typeDesc)) {
        const nestedType = itemType(detail);
        nested = JAVA_TYPES[nestedType] ?? keyError(nestedType);
        value = javaTypeConverter(value.v, typeDesc, nestedType);
      } else value = javaTypeConverter(value.v, typeDesc);
    } else if (language === 'javascript') {
      expected = JS_TYPES[typeDesc] ?? keyError(typeDesc);
      if (value.t !== 'str')
        return bad(
          'type_error:js',
          `Incorrect type for parameter '${param}'. Expected type String, got ${typeName(value)}. Parameter value: ${show(value)}.`,
        );
      if (NESTED_CONVERSION.includes(typeDesc)) {
        const nestedType = itemType(detail);
        nested = JS_TYPES[nestedType] ?? keyError(nestedType);
        value = jsTypeConverter(value.v, typeDesc, nestedType);
      } else value = jsTypeConverter(value.v, typeDesc);
    } else {
      expected = PYTHON_TYPES[typeDesc] ?? keyError(typeDesc);
      if (PYTHON_NESTED.includes(typeDesc)) {
        const nestedType = itemType(detail);
        nested = PYTHON_TYPES[nestedType] ?? keyError(nestedType);
      }
    }

    if (typeDesc === 'tuple' && value.t === 'tuple') value = { t: 'list', items: value.items };
    if (language === 'python' && typeDesc === 'float' && value.t === 'int') {
      const f = Number(value.v);
      if (!Number.isFinite(f)) throw new BfclCrash('OverflowError', 'int too large to convert to float');
      value = { t: 'float', v: f };
    }

    const typeCheck = typeChecker(param, value, possibleForParam, typeDesc, expected, nested);
    if (!typeCheck.valid) return typeCheck;
    const allowed = itemsOf(possibleForParam, `possible answer of ${param}`);

    if (!typeCheck.isVariable) {
      let r: CheckResult | undefined;
      if (expected === 'dict') r = dictChecker(param, value, allowed);
      else if (expected === 'list' && nested === 'dict') r = listDictChecker(param, value, allowed);
      else if (expected === 'str') r = stringChecker(param, value, allowed);
      else if (expected === 'list') r = listChecker(param, value, allowed);
      if (r) {
        if (!r.valid) return r;
        continue;
      }
    }
    if (!pyIn(value, allowed)) {
      return bad(
        'value_error:others',
        `Invalid value for parameter '${param}': ${show(value)}. Expected one of ${show(possibleForParam)}.`,
      );
    }
  }

  for (const [k, v] of answer.t === 'dict' ? answer.entries : []) {
    if (!isStr(k)) continue;
    if (!has(k.v) && !containsEmptyStr(v)) {
      return bad(
        'simple_function_checker:missing_optional',
        `Optional parameter '${k.v}' not provided and not marked as optional.`,
      );
    }
  }
  return ok();
}

/** `"" in v`: membership for a list, a substring test (always true) for a str, a key test for a dict. */
function containsEmptyStr(v: PyValue): boolean {
  if (v.t === 'str') return true;
  if (v.t === 'dict') return dictGet(v, '') !== undefined;
  if (v.t === 'list' || v.t === 'tuple' || v.t === 'set') return pyIn({ t: 'str', v: '' }, v.items);
  throw new BfclCrash('TypeError', `argument of type '${typeName(v)}' is not iterable`);
}

function itemType(detail: ParamDoc): string {
  const items = detail.items ?? keyError('items');
  return items.type ?? keyError('type');
}

/** get_possible_answer_type: the Python type of the first allowed value that is not "". */
function possibleAnswerType(possible: PyValue): string | undefined {
  for (const a of itemsOf(possible, 'possible answer')) {
    if (!(a.t === 'str' && a.v === '')) return typeName(a);
  }
  return undefined;
}

interface TypeCheck extends CheckResult {
  isVariable: boolean;
}

/** type_checker: only one level of nesting; a value of the answer's own type is accepted as a "variable". */
function typeChecker(
  param: string,
  value: PyValue,
  possible: PyValue,
  typeDesc: string,
  expected: string,
  nested: string | undefined,
): TypeCheck {
  const result: TypeCheck = { valid: true, error: [], error_type: 'type_error:simple', isVariable: false };
  let isVariable = false;
  const answerType = possibleAnswerType(possible);
  if (answerType !== undefined && answerType !== expected) isVariable = true;

  if (typeName(value) === expected) {
    if (nested === undefined) {
      result.isVariable = isVariable;
      return result;
    }
    for (const item of itemsOf(possible, 'possible answer')) {
      let flag = true;
      if (item.t === 'list') {
        for (const v of itemsOf(value, param)) {
          if (!typeChecker(param, v, item, nested, nested, undefined).valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { valid: true, error: [], error_type: result.error_type, isVariable };
    }
    result.valid = false;
    result.error = [
      `Nested type checking failed for parameter '${param}'. Expected outer type ${typeDesc} with inner type ${nested}. Parameter value: ${show(value)}.`,
    ];
    result.error_type = 'type_error:nested';
  }

  if (answerType !== undefined && typeName(value) === answerType) {
    result.isVariable = true;
    return result;
  }
  result.valid = false;
  result.error.push(
    `Incorrect type for parameter '${param}'. Expected type ${typeDesc}, got ${typeName(value)}. Parameter value: ${show(value)}.`,
  );
  result.error_type = 'type_error:simple';
  return result;
}

/**
 * standardize_string: remove spaces and `,./-_*^`, lowercase, and turn single quotes into double quotes — so
 * "April 1, 2024" equals "april 1 2024".
 */
export function standardizeString(s: string): string {
  return pyLower(s.replace(/[ ,./\-_*^]/g, '')).replace(/'/g, '"');
}

function stringChecker(param: string, value: PyValue, allowed: PyValue[]): CheckResult {
  const v = standardizeString(strOf(value));
  const std = allowed.filter(isStr).map((a) => standardizeString(a.v));
  if (!std.includes(v)) {
    return bad(
      'value_error:string',
      `Invalid value for parameter '${param}': ${show(value)}. Expected one of ${show({ t: 'list', items: allowed })}. Case insensitive.`,
    );
  }
  return ok();
}

function strOf(v: PyValue): string {
  if (v.t !== 'str') throw new BfclCrash('TypeError', `expected string or bytes-like object, got '${typeName(v)}'`);
  return v.v;
}

const standardized = (v: PyValue): PyValue => (v.t === 'str' ? { t: 'str', v: standardizeString(v.v) } : v);

function listChecker(param: string, value: PyValue, allowed: PyValue[]): CheckResult {
  const out: PyValue = { t: 'list', items: itemsOf(value, param).map(standardized) };
  const std = allowed.map(
    (a): PyValue => ({ t: 'list', items: itemsOf(a, `possible answer of ${param}`).map(standardized) }),
  );
  if (!pyIn(out, std)) {
    return bad(
      'value_error:list/tuple',
      `Invalid value for parameter '${param}': ${show(value)}. Expected one of ${show({ t: 'list', items: allowed })}.`,
    );
  }
  return ok();
}

function dictEntries(v: PyValue, what: string): Array<[PyValue, PyValue]> {
  if (v.t !== 'dict')
    throw new BfclCrash('AttributeError', `'${typeName(v)}' object has no attribute 'items' (${what})`);
  return v.entries;
}

/** dict_checker: every key the model gives must be allowed with an allowed value; every key without "" present. */
function dictChecker(param: string, value: PyValue, allowed: PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, error: [], error_type: 'dict_checker:unclear' };
  for (const answer of allowed) {
    if (answer.t === 'str' && answer.v === '') continue;
    result = { valid: false, error: [], error_type: 'dict_checker:unclear' };
    let flag = true;
    for (const [key, v] of dictEntries(value, param)) {
      const allowedValues = dictMember(answer, key);
      if (allowedValues === undefined) {
        result = bad('value_error:dict_key', `Unexpected dict key parameter: '${isStr(key) ? key.v : show(key)}'.`);
        flag = false;
        break;
      }
      const std = itemsOf(allowedValues, `possible answer of ${param}`).map(standardized);
      if (!pyIn(standardized(v), std)) {
        result = bad(
          'value_error:dict_value',
          `Invalid value for parameter ${show(key)}: ${show(v)}. Expected one of ${show({ t: 'list', items: std })}.`,
        );
        flag = false;
        break;
      }
    }
    for (const [key, v] of dictEntries(answer, param)) {
      if (dictGet(value, key) === undefined && !containsEmptyStr(v)) {
        result = bad('value_error:dict_key', `Missing dict key parameter: '${isStr(key) ? key.v : show(key)}'.`);
        flag = false;
        break;
      }
    }
    if (flag) return ok();
  }
  return result;
}

/** `key in possible_answer` for a dict answer (a str answer is searched as a substring, as Python does). */
function dictMember(answer: PyValue, key: PyValue): PyValue | undefined {
  if (answer.t === 'dict') return dictGet(answer, key);
  if (answer.t === 'str') {
    if (key.t !== 'str') throw new BfclCrash('TypeError', "'in <string>' requires string as left operand");
    if (answer.v.includes(key.v)) throw new BfclCrash('TypeError', 'string indices must be integers');
    return undefined;
  }
  if (answer.t === 'list' || answer.t === 'tuple') {
    if (pyIn(key, answer.items)) throw new BfclCrash('TypeError', 'list indices must be integers or slices');
    return undefined;
  }
  throw new BfclCrash('TypeError', `argument of type '${typeName(answer)}' is not iterable`);
}

/** list_dict_checker: dictionaries compared position by position against each allowed list. */
function listDictChecker(param: string, value: PyValue, allowed: PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, error: [], error_type: 'list_dict_checker:unclear' };
  const items = itemsOf(value, param);
  for (const answer of allowed) {
    let flag = true;
    const answerItems = lenItems(answer);
    if (items.length !== answerItems.length) {
      result = bad('value_error:list_dict_count', 'Wrong number of dictionaries in the list.');
      continue;
    }
    for (let k = 0; k < items.length; k++) {
      result = dictChecker(param, items[k]!, [answerItems[k]!]);
      if (!result.valid) {
        flag = false;
        break;
      }
    }
    if (flag) return ok();
  }
  return result;
}

function lenItems(v: PyValue): PyValue[] {
  if (v.t === 'str') return Array.from(v.v, (c): PyValue => ({ t: 'str', v: c }));
  if (v.t === 'dict') return v.entries.map(([k]) => k);
  if (v.t === 'list' || v.t === 'tuple' || v.t === 'set') return v.items;
  throw new BfclCrash('TypeError', `object of type '${typeName(v)}' has no len()`);
}

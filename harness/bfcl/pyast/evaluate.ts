// BFCL decodes a BinOp argument (`f(a=2*3)`) with `eval(ast.unparse(node))` inside its utils module. This is
// Python's arithmetic for the values a literal expression can produce. Three outcomes: a value, a Python error
// (the decode fails), or "unknown" — the expression reads a name that exists in that module (a builtin, `json`,
// `os` …), calls something, or uses an operation this emulation does not model; then the caller reports the
// case as undecidable instead of guessing.
import { truthy } from '../../core/pyliteral/builtins.ts';
import { hashKey, pyEquals, type PyValue } from '../../core/pyliteral/index.ts';
import type { Node } from '../../core/pyliteral/index.ts';

export type Outcome = { ok: PyValue } | { err: string } | { unknown: string };

const BUILTINS =
  'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError __build_class__ __debug__ __doc__ __import__ __loader__ __name__ __package__ __spec__ abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip';

// The globals of bfcl_eval/model_handler/utils.py at the pinned commit (its own definitions, its imports and the
// public names of the modules it star-imports), listed by name from that source.
const MODULE_GLOBALS =
  'ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT AGENTIC_CATEGORY ALL_AVAILABLE_MEMORY_BACKENDS ALL_CATEGORIES ALL_SCORING_CATEGORIES Callable DEFAULT_SYSTEM_PROMPT_FORMAT DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING DOTENV_PATH FORMAT_SENSITIVITY_IDS_PATH FileLock GORILLA_TO_OPENAPI H100_X8_PRICE_PER_HOUR LIVE_CATEGORY LOCAL_SERVER_MAX_CONCURRENT_REQUEST LOCAL_SERVER_PORT LOCK_DIR List Lock MAXIMUM_STEP_LIMIT MEMORY_AGENT_SETTINGS MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL MEMORY_BACKEND_INSTRUCTION_UNIFIED MEMORY_CATEGORY MEMORY_PREREQ_CONVERSATION_PATH MEMORY_SCENARIO_NAME MULTI_TURN_CATEGORY MULTI_TURN_FUNC_DOC_FILE_MAPPING MULTI_TURN_FUNC_DOC_PATH ModelStyle NON_LIVE_CATEGORY NON_SCORING_CATEGORY OUTPUT_FORMAT_MAPPING Optional PACKAGE_ROOT PARAM_TYPE_MAPPING POSSIBLE_ANSWER_PATH PROJECT_ROOT PROMPT_PATH PROMPT_STYLE_TEMPLATES PROMPT_TEMPLATE_MAPPING Path RED_FONT RESET RESULT_FILE_PATTERN RESULT_PATH ReturnFormat SCORE_PATH SINGLE_TURN_CATEGORY TEST_COLLECTION_MAPPING TEST_IDS_TO_GENERATE_PATH TYPE_CHECKING Type UTILS_PATH Union VERSION_PREFIX WEB_SEARCH_CATEGORY _cast_to_openai_type _generate_function_doc_python _generate_function_doc_xml add_language_specific_hint_to_function_doc add_memory_instruction_system_prompt ast ast_parse builtins clean_up_memory_prereq_entries combine_consecutive_user_prompts contain_multi_turn_interaction contain_multi_turn_irrelevance convert_system_prompt_into_user_prompt convert_to_function_call convert_to_tool convert_value copy decoded_output_to_execution_list deepcopy default_decode_ast_prompting default_decode_execute_prompting extract_last_user_message extract_memory_backend_type extract_prompt_format_from_id extract_system_prompt extract_test_category extract_test_category_from_id filter_entries_by_id find_file_by_category format_execution_results_prompting format_function_doc formulate_system_prompt get_all_format_sensitivity_configs get_directory_structure_by_category get_directory_structure_by_id get_file_name_by_category get_general_grouping get_sub_grouping hashlib is_agentic is_chatable is_empty_output is_executable is_executable_format_output is_first_memory_prereq_entry is_format_sensitivity is_function_calling_format_output is_java is_js is_live is_memory is_memory_prereq is_multi_turn is_non_live is_relevance_or_irrelevance is_rest is_sql is_web_search json load_dataset_entry load_file load_format_sensitivity_ground_truth_entry load_format_sensitivity_test_cases load_ground_truth_entry load_test_entries_from_id_file make_json_serializable operator os parse_concise_xml_function_call parse_java_function_call parse_javascript_function_call parse_json_function_call parse_nested_value parse_prompt_variation_params parse_test_category_argument parse_verbose_xml_function_call populate_initial_settings_for_memory_test_cases populate_initial_settings_for_web_search_test_cases populate_test_cases_with_predefined_functions process_agentic_test_case process_memory_test_case process_web_search_test_case re reduce resolve_ast_by_type resolve_ast_call retry retry_if_exception_message retry_if_exception_type retry_with_backoff sort_file_content_by_id sort_key system_prompt_pre_processing_chat_model wait_random_exponential write_list_of_dicts_to_file __file__ __cached__ __builtins__ __annotations__';

const DEFINED = new Set([...BUILTINS.split(' '), ...MODULE_GLOBALS.split(' ')]);

const err = (e: string): Outcome => ({ err: e });
const unknown = (why: string): Outcome => ({ unknown: why });
const ok = (v: PyValue): Outcome => ({ ok: v });

const MAX_ITEMS = 1_000_000;
const SAFE = 2n ** 53n;

type Num = { t: 'int'; v: bigint } | { t: 'float'; v: number };

function asNum(v: PyValue): Num | undefined {
  if (v.t === 'int') return v;
  if (v.t === 'bool') return { t: 'int', v: v.v ? 1n : 0n };
  if (v.t === 'float') return v;
  return undefined;
}

/** float(int) — exact below 2**53, correctly rounded above, OverflowError past the double range. */
function toFloat(n: Num): number | undefined {
  if (n.t === 'float') return n.v;
  const f = Number(n.v);
  return Number.isFinite(f) ? f : undefined;
}

const floorDivBig = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};
const modBig = (a: bigint, b: bigint): bigint => {
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
};

function floatFloorDiv(vx: number, wx: number): number {
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1;
    }
  }
  if (div) {
    let fl = Math.floor(div);
    if (div - fl > 0.5) fl += 1;
    return fl;
  }
  return Math.sign(vx / wx) === -1 || Object.is(vx / wx, -0) ? -0 : 0;
}

function floatMod(vx: number, wx: number): number {
  let mod = vx % wx;
  if (mod) {
    if (wx < 0 !== mod < 0) mod += wx;
  } else mod = wx < 0 ? -0 : 0;
  return mod;
}

function arith(op: string, a: Num, b: Num): Outcome {
  if (a.t === 'int' && b.t === 'int') {
    const x = a.v;
    const y = b.v;
    switch (op) {
      case 'Add':
        return ok({ t: 'int', v: x + y });
      case 'Sub':
        return ok({ t: 'int', v: x - y });
      case 'Mult':
        return ok({ t: 'int', v: x * y });
      case 'FloorDiv':
        return y === 0n ? err('ZeroDivisionError') : ok({ t: 'int', v: floorDivBig(x, y) });
      case 'Mod':
        return y === 0n ? err('ZeroDivisionError') : ok({ t: 'int', v: modBig(x, y) });
      case 'Div':
        if (y === 0n) return err('ZeroDivisionError');
        if (x > SAFE || x < -SAFE || y > SAFE || y < -SAFE) return unknown('true division of large ints');
        return ok({ t: 'float', v: Number(x) / Number(y) });
      case 'Pow':
        if (y < 0n) {
          if (x === 0n) return err('ZeroDivisionError');
          if (x > SAFE || x < -SAFE) return unknown('negative power of a large int');
          return floatPow(Number(x), Number(y));
        }
        if (y * BigInt(x.toString(2).length) > 100_000n) return unknown('very large power');
        return ok({ t: 'int', v: x ** y });
      case 'LShift':
        if (y < 0n) return err('ValueError');
        if (y > 100_000n) return unknown('very large shift');
        return ok({ t: 'int', v: x << y });
      case 'RShift':
        if (y < 0n) return err('ValueError');
        return ok({ t: 'int', v: x >> (y > 100_000n ? 100_000n : y) });
      case 'BitAnd':
        return ok({ t: 'int', v: x & y });
      case 'BitOr':
        return ok({ t: 'int', v: x | y });
      case 'BitXor':
        return ok({ t: 'int', v: x ^ y });
      default:
        return err('TypeError');
    }
  }
  if (['LShift', 'RShift', 'BitAnd', 'BitOr', 'BitXor', 'MatMult'].includes(op)) return err('TypeError');
  const x = toFloat(a);
  const y = toFloat(b);
  if (x === undefined || y === undefined) return err('OverflowError');
  switch (op) {
    case 'Add':
      return ok({ t: 'float', v: x + y });
    case 'Sub':
      return ok({ t: 'float', v: x - y });
    case 'Mult':
      return ok({ t: 'float', v: x * y });
    case 'Div':
      return y === 0 ? err('ZeroDivisionError') : ok({ t: 'float', v: x / y });
    case 'FloorDiv':
      return y === 0 ? err('ZeroDivisionError') : ok({ t: 'float', v: floatFloorDiv(x, y) });
    case 'Mod':
      return y === 0 ? err('ZeroDivisionError') : ok({ t: 'float', v: floatMod(x, y) });
    case 'Pow':
      return floatPow(x, y);
    default:
      return err('TypeError');
  }
}

function floatPow(x: number, y: number): Outcome {
  if (!Number.isFinite(x) || !Number.isFinite(y) || Number.isNaN(x) || Number.isNaN(y))
    return unknown('pow with inf or nan');
  if (x === 0 && y < 0) return err('ZeroDivisionError');
  if (x < 0 && !Number.isInteger(y)) return unknown('negative base to a fractional power gives a complex');
  const r = x ** y;
  if (!Number.isFinite(r)) return err('OverflowError');
  return ok({ t: 'float', v: r });
}

function binop(op: string, a: PyValue, b: PyValue): Outcome {
  if (a.t === 'complex' || b.t === 'complex') return unknown('complex arithmetic');
  const na = asNum(a);
  const nb = asNum(b);
  if (na && nb) {
    const r = arith(op, na, nb);
    // bool & bool, bool | bool, bool ^ bool stay bool
    if (a.t === 'bool' && b.t === 'bool' && 'ok' in r && ['BitAnd', 'BitOr', 'BitXor'].includes(op))
      return ok({ t: 'bool', v: (r.ok as { v: bigint }).v !== 0n });
    return r;
  }
  const seq = (v: PyValue) => v.t === 'str' || v.t === 'bytes' || v.t === 'list' || v.t === 'tuple';
  if (op === 'Add' && seq(a) && a.t === b.t) {
    if (a.t === 'str' && b.t === 'str') return ok({ t: 'str', v: a.v + b.v });
    if (a.t === 'bytes' && b.t === 'bytes') return ok({ t: 'bytes', v: Uint8Array.from([...a.v, ...b.v]) });
    if ((a.t === 'list' || a.t === 'tuple') && (b.t === 'list' || b.t === 'tuple'))
      return ok({ t: a.t, items: [...a.items, ...b.items] });
  }
  if (op === 'Mult') {
    const [s, n] = seq(a) && nb?.t === 'int' ? [a, nb.v] : seq(b) && na?.t === 'int' ? [b, na.v] : [undefined, 0n];
    if (s) {
      const count = n < 0n ? 0 : Number(n);
      const len = s.t === 'str' ? s.v.length : s.t === 'bytes' ? s.v.length : (s as { items: PyValue[] }).items.length;
      if (len * count > MAX_ITEMS) return unknown('very long repetition');
      if (s.t === 'str') return ok({ t: 'str', v: s.v.repeat(count) });
      if (s.t === 'bytes')
        return ok({ t: 'bytes', v: Uint8Array.from(Array.from({ length: count }, () => [...s.v]).flat()) });
      const items = (s as { items: PyValue[] }).items;
      return ok({ t: s.t as 'list' | 'tuple', items: Array.from({ length: count }, () => items).flat() });
    }
  }
  if (op === 'Mod' && (a.t === 'str' || a.t === 'bytes')) return unknown('%-formatting');
  if (op === 'BitOr' && a.t === 'dict' && b.t === 'dict') {
    const entries = [...a.entries];
    for (const [k, v] of b.entries) {
      const at = entries.findIndex(([ek]) => hashKey(ek) === hashKey(k));
      if (at >= 0) entries[at] = [entries[at]![0], v];
      else entries.push([k, v]);
    }
    return ok({ t: 'dict', entries });
  }
  if (a.t === 'set' || b.t === 'set') return unknown('set arithmetic');
  return err('TypeError');
}

function unary(op: string, v: PyValue): Outcome {
  if (op === 'Not') return ok({ t: 'bool', v: !truthy(v) });
  if (v.t === 'complex') return unknown('complex arithmetic');
  const n = asNum(v);
  if (!n) return err('TypeError');
  if (op === 'Invert') return n.t === 'int' ? ok({ t: 'int', v: ~n.v }) : err('TypeError');
  if (op === 'USub') return n.t === 'int' ? ok({ t: 'int', v: -n.v }) : ok({ t: 'float', v: -n.v });
  return ok(n);
}

/** Evaluate an expression node as `eval(ast.unparse(node))` in BFCL's utils module would. */
export function evaluate(n: Node): Outcome {
  switch (n.k) {
    case 'Constant':
      return ok(n.value);
    case 'Name':
      return DEFINED.has(n.id)
        ? unknown(`reads the module name ${n.id}`)
        : err(`NameError: name '${n.id}' is not defined`);
    case 'BinOp': {
      const a = evaluate(n.left);
      if ('err' in a) return a;
      const b = evaluate(n.right);
      if ('err' in b) return b;
      if ('unknown' in a) return a;
      if ('unknown' in b) return b;
      return binop(n.op, a.ok, b.ok);
    }
    case 'UnaryOp': {
      const a = evaluate(n.operand);
      return 'ok' in a ? unary(n.op, a.ok) : a;
    }
    case 'List':
    case 'Tuple':
    case 'Set': {
      const items: PyValue[] = [];
      let pending: Outcome | undefined;
      for (const e of n.elts) {
        if (e.k === 'Starred') return unknown('starred item');
        const r = evaluate(e);
        if ('err' in r) return r;
        if ('unknown' in r) pending ??= r;
        else items.push(r.ok);
      }
      if (pending) return pending;
      if (n.k === 'Set') {
        try {
          const seen = new Set<string>();
          const unique = items.filter((x) => {
            const key = hashKey(x);
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
          return ok({ t: 'set', items: unique });
        } catch {
          return err('TypeError: unhashable type');
        }
      }
      return ok({ t: n.k === 'List' ? 'list' : 'tuple', items });
    }
    case 'Dict': {
      const entries: Array<[PyValue, PyValue]> = [];
      let pending: Outcome | undefined;
      for (let i = 0; i < n.keys.length; i++) {
        const k = n.keys[i]!;
        if (k === null) return unknown('dict unpacking');
        const kr = evaluate(k);
        if ('err' in kr) return kr;
        const vr = evaluate(n.values[i]!);
        if ('err' in vr) return vr;
        if ('unknown' in kr || 'unknown' in vr) {
          pending ??= 'unknown' in kr ? kr : vr;
          continue;
        }
        let key: string;
        try {
          key = hashKey(kr.ok);
        } catch {
          return err('TypeError: unhashable type');
        }
        const at = entries.findIndex(([ek]) => hashKey(ek) === key);
        if (at >= 0) entries[at] = [entries[at]![0], vr.ok];
        else entries.push([kr.ok, vr.ok]);
      }
      return pending ?? ok({ t: 'dict', entries });
    }
    case 'Compare': {
      let left = evaluate(n.left);
      if (!('ok' in left)) return left;
      for (let i = 0; i < n.ops.length; i++) {
        const right = evaluate(n.comparators[i]!);
        if (!('ok' in right)) return right;
        const r = compare(n.ops[i]!, left.ok, right.ok);
        if (!('ok' in r)) return r;
        if (!(r.ok as { v: boolean }).v) return r;
        left = right;
      }
      return ok({ t: 'bool', v: true });
    }
    case 'BoolOp': {
      let last: Outcome = unknown('empty');
      for (const v of n.values) {
        last = evaluate(v);
        if (!('ok' in last)) return last;
        const t = truthy(last.ok);
        if (n.op === 'And' ? !t : t) return last;
      }
      return last;
    }
    case 'IfExp': {
      const test = evaluate(n.test);
      if (!('ok' in test)) return test;
      return truthy(test.ok) ? evaluate(n.body) : evaluate(n.orelse);
    }
    case 'Call': {
      const f = evaluate(n.func);
      return 'err' in f ? f : unknown('a call');
    }
    case 'Attribute': {
      const v = evaluate(n.value);
      return 'err' in v ? v : unknown('an attribute');
    }
    case 'Subscript': {
      const v = evaluate(n.value);
      return 'err' in v ? v : unknown('a subscript');
    }
    case 'Await':
    case 'Yield':
    case 'YieldFrom':
      return err('SyntaxError outside a function');
    default:
      return unknown(`${n.k} in an evaluated argument`);
  }
}

function compare(op: string, a: PyValue, b: PyValue): Outcome {
  const bool = (v: boolean): Outcome => ok({ t: 'bool', v });
  if (op === 'Eq') return bool(pyEquals(a, b));
  if (op === 'NotEq') return bool(!pyEquals(a, b));
  const na = asNum(a);
  const nb = asNum(b);
  if (na && nb && (op === 'Lt' || op === 'LtE' || op === 'Gt' || op === 'GtE')) {
    if (na.t === 'int' && nb.t === 'int') {
      const [x, y] = [na.v, nb.v];
      return bool(op === 'Lt' ? x < y : op === 'LtE' ? x <= y : op === 'Gt' ? x > y : x >= y);
    }
    const x = toFloat(na);
    const y = toFloat(nb);
    if (x === undefined || y === undefined) return unknown('comparing a huge int');
    return bool(op === 'Lt' ? x < y : op === 'LtE' ? x <= y : op === 'Gt' ? x > y : x >= y);
  }
  return unknown(`comparison ${op}`);
}

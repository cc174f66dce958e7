import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { EngineUnsupported, PythonRuntimeError, TemplateError, TemplateRaise } from './errors.ts';
import { isPySpace } from '../core/pyliteral/unicode.ts';

// @huggingface/jinja is the rendering engine. Hugging Face's transformers renders chat templates with Python's
// jinja2, so wherever the two differ we either make this engine behave like jinja2 (when the Python behaviour is
// certain and small) or stop with an explicit `engine_unsupported` error (so the difference is never mistaken
// for a template defect). Both happen in `FaithfulInterpreter.evaluate`, the engine's single public dispatch
// point; the engine's own value and AST classes are not exported, so values are handled by their `type` tag.
//
// Made faithful:   `{{ x }}` prints Python's str(x) (None, True, {'a': 1}); `a ~ b` uses str(); `x|string`;
//                  `str + non-str` raises TypeError (the engine silently concatenates "[object Map]");
//                  `str * int`; `for` over an undefined value iterates nothing.
// Reported:        tuple unpacking over tuples in `for`; filters on undefined values (and str()-coercing filters
//                  on None/numbers); jinja2 filters, methods, globals and statements the engine lacks;
//                  printf-style `%`; any "[object Map]" left in the output.

type Node = NonNullable<Parameters<Interpreter['evaluate']>[0]>;
type Value = ReturnType<Interpreter['evaluate']>;
/** Loose view of an AST node: the engine's node classes are not exported. */
// biome-ignore lint/suspicious/noExplicitAny: the engine's node classes are not exported, so fields are read untyped
type AnyNode = { type: string; [key: string]: any };

const PRE = '__toolgauge_precomputed';
const OUT = '__toolgauge_output';

/** A synthetic node that evaluates to an already computed value (avoids evaluating an operand twice). */
const pre = (value: Value): Node => ({ type: PRE, value }) as unknown as Node;

/** Convert a JS value to an engine value through the engine's own converter (Environment.set). */
function toValue(x: unknown): Value {
  return new Environment().set('v', x);
}

// ---------------------------------------------------------------------------------------------------------
// Python's str() / repr() of engine values

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

export function pyRepr(v: Value): string {
  const value = (v as { value: unknown }).value;
  switch (v.type) {
    case 'StringValue':
      return reprString(value as string);
    case 'BooleanValue':
      return value ? 'True' : 'False';
    case 'NullValue':
      return 'None';
    case 'UndefinedValue':
      return '';
    case 'IntegerValue':
    case 'FloatValue':
      return v.toString();
    case 'TupleValue': {
      const items = (value as Value[]).map(pyRepr);
      return `(${items.join(', ')}${items.length === 1 ? ',' : ''})`;
    }
    case 'ArrayValue':
      return `[${(value as Value[]).map(pyRepr).join(', ')}]`;
    case 'ObjectValue':
    case 'KeywordArgumentsValue':
      return `{${[...(value as Map<string, Value>)].map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`).join(', ')}}`;
    case 'NamespaceValue':
      return `<Namespace {${[...(value as Map<string, Value>)].map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`).join(', ')}}>`;
    case 'FunctionValue':
      return '<function>';
    default:
      return v.toString();
  }
}

export function pyStr(v: Value): string {
  if (v.type === 'StringValue') return (v as { value: string }).value;
  return pyRepr(v);
}

function pyTypeName(v: Value): string {
  switch (v.type) {
    case 'StringValue':
      return 'str';
    case 'IntegerValue':
      return 'int';
    case 'FloatValue':
      return 'float';
    case 'BooleanValue':
      return 'bool';
    case 'NullValue':
      return 'NoneType';
    case 'ArrayValue':
      return 'list';
    case 'TupleValue':
      return 'tuple';
    case 'ObjectValue':
    case 'KeywordArgumentsValue':
      return 'dict';
    case 'UndefinedValue':
      return 'Undefined';
    default:
      return v.type;
  }
}

// ---------------------------------------------------------------------------------------------------------
// What jinja2 (as configured by transformers) has and the engine may lack

/** jinja2's builtin filters: an "unknown filter" error for one of these is the engine's gap, not the template's. */
const JINJA2_FILTERS = new Set(
  (
    'abs attr batch capitalize center count d default dictsort e escape filesizeformat first float forceescape format ' +
    'groupby indent int items join last length list lower map max min pprint random reject rejectattr replace reverse ' +
    'round safe select selectattr slice sort string striptags sum title tojson trim truncate unique upper urlencode ' +
    'urlize wordcount wordwrap xmlattr'
  ).split(' '),
);
/** Filters that coerce their operand with str() in Python, so they work on None and numbers. */
const STR_COERCING_FILTERS = new Set(
  'capitalize center e escape format indent lower replace string striptags title trim truncate upper wordcount wordwrap'.split(
    ' ',
  ),
);
/** Globals jinja2 provides that the engine does not. */
const JINJA2_GLOBALS = new Set(['dict', 'cycler', 'joiner', 'lipsum']);
const PY_METHODS: Record<string, Set<string>> = {
  str: new Set(
    (
      'capitalize casefold center count encode endswith expandtabs find format format_map index isalnum isalpha isascii ' +
      'isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower lstrip ' +
      'partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split splitlines ' +
      'startswith strip swapcase title translate upper zfill'
    ).split(' '),
  ),
  list: new Set('append clear copy count extend index insert pop remove reverse sort'.split(' ')),
  dict: new Set('clear copy fromkeys get items keys pop popitem setdefault update values'.split(' ')),
};
/** Methods jinja2's immutable sandbox refuses (they modify the list or dict). */
const UNSAFE_METHODS: Record<string, Set<string>> = {
  list: new Set('append clear extend insert pop remove reverse sort'.split(' ')),
  dict: new Set('clear pop popitem setdefault update'.split(' ')),
};
/** Statements jinja2 knows (with transformers' extensions) that the engine's parser rejects. */
const JINJA2_STATEMENTS = new Set(
  'autoescape block do extends from generation endgeneration import include raw trans with endwith'.split(' '),
);

function methodTable(v: Value): Set<string> | undefined {
  if (v.type === 'StringValue') return PY_METHODS.str;
  if (v.type === 'ArrayValue' || v.type === 'TupleValue') return PY_METHODS.list;
  if (v.type === 'ObjectValue') return PY_METHODS.dict;
  return undefined;
}

function filterName(filter: AnyNode): string | undefined {
  if (filter.type === 'Identifier') return filter.value as string;
  if (filter.type === 'CallExpression' && filter.callee?.type === 'Identifier') return filter.callee.value as string;
  return undefined;
}

const isOurs = (e: unknown): boolean =>
  e instanceof TemplateRaise ||
  e instanceof EngineUnsupported ||
  e instanceof PythonRuntimeError ||
  e instanceof TemplateError ||
  e instanceof BudgetExceeded;

// ---------------------------------------------------------------------------------------------------------

/**
 * V8 flags for a process that renders templates in bulk. @huggingface/jinja's value classes set their fields in one
 * shared base constructor, whose property stores meet more object shapes than V8's default limit of 4 polymorphic
 * ones and go megamorphic (a slow path): with a limit of 32 a render of Qwen3's template with tools took about 190 µs
 * of CPU instead of 340. V8 reads the limit whenever a site meets a new shape, so setting it late works.
 * bin/toolgauge.mjs sets the same flag for its commands that render (tests/e2e/template-v8-flags.test.ts).
 */
export const RENDER_V8_FLAGS: readonly string[] = ['--max-valid-polymorphic-map-count=32'];

/**
 * The budget of one render: evaluation steps (each loop iteration counts, also with an empty body) and wall-clock
 * time. A template that loops over huge ranges is stopped and reported (finding `render_budget_exceeded`), never
 * left hanging. The real templates need under 1,000 steps for the probe conversation and about 50,000 for 32
 * nested tools (functionary); 200,000 steps take about a second.
 */
export const RENDER_BUDGET = { steps: 200_000, ms: 2_000 };

/**
 * What several renders may spend together (`template check` renders one template a hundred times or more: a
 * template that stays just under the per-render budget would otherwise take minutes). Steps count exactly; the
 * clock is checked as the per-render one is.
 */
export const CHECK_BUDGET = { steps: 2_000_000, ms: 20_000 };

/** A budget shared by several renders; each render's steps and time are taken from it. */
export class RenderAllowance {
  steps = 0;
  private readonly started = performance.now();
  constructor(readonly limits: { steps: number; ms: number } = CHECK_BUDGET) {}

  /** Charge `n` steps; `clock` says whether to look at the time too. */
  charge(n: number, clock: boolean): void {
    this.steps += n;
    if (this.steps > this.limits.steps)
      throw new BudgetExceeded(`the renders took more than ${this.limits.steps} evaluation steps in total`);
    if (clock && performance.now() - this.started > this.limits.ms)
      throw new BudgetExceeded(`the renders took more than ${this.limits.ms} ms in total`);
  }
}

/** Thrown when a render runs out of its budget. */
export class BudgetExceeded extends Error {
  override name = 'BudgetExceeded';
}

// ---------------------------------------------------------------------------------------------------------
// Python semantics the engine lacks, carried on the engine's own value objects

/** A str that jinja2 would hold as markupsafe.Markup (from `|safe`, `|e`, or Markup + str). */
const MARKUP = Symbol('markup');
/** A list that jinja2 would hold as a generator (from map/select/reject/selectattr/rejectattr). */
const GENERATOR = Symbol('generator');
/** A dict built from a literal with non-string keys: the original key values, by canonical key. */
const PY_KEYS = Symbol('pyKeys');

type Tagged = Value & { [MARKUP]?: true; [GENERATOR]?: true; [PY_KEYS]?: Map<string, Value> };

const GENERATOR_FILTERS = new Set(['map', 'select', 'reject', 'selectattr', 'rejectattr']);

/** markupsafe.escape. */
function htmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');
}

function markup(s: string): Value {
  const v = toValue(s) as Tagged;
  v[MARKUP] = true;
  return v;
}

const isMarkup = (v: Value): boolean => (v as Tagged)[MARKUP] === true;

/** The dict key a Python value hashes to (1, 1.0 and True are one key; a str is itself). */
function canonicalKey(v: Value): string | null {
  switch (v.type) {
    case 'StringValue':
      return (v as { value: string }).value;
    case 'IntegerValue':
    case 'FloatValue':
      return `\u0000n:${Number((v as { value: number }).value)}`;
    case 'BooleanValue':
      return `\u0000n:${(v as { value: boolean }).value ? 1 : 0}`;
    case 'NullValue':
      return '\u0000none';
    default:
      return null;
  }
}

/** json.dumps' key for a non-str dict key. */
function jsonKey(v: Value): string {
  if (v.type === 'BooleanValue') return (v as { value: boolean }).value ? 'true' : 'false';
  if (v.type === 'NullValue') return 'null';
  return pyStr(v);
}

class FaithfulInterpreter extends Interpreter {
  private steps = 0;
  private readonly started = performance.now();

  constructor(
    env: Environment,
    private readonly allowance?: RenderAllowance,
  ) {
    super(env);
  }

  /** Charge `n` steps; check the clock every few thousand. */
  private charge(n: number): void {
    const before = this.steps;
    this.steps += n;
    if (this.steps > RENDER_BUDGET.steps)
      throw new BudgetExceeded(`the render took more than ${RENDER_BUDGET.steps} evaluation steps`);
    const clock = this.steps >> 12 !== before >> 12;
    if (clock && performance.now() - this.started > RENDER_BUDGET.ms) {
      throw new BudgetExceeded(`the render took more than ${RENDER_BUDGET.ms} ms`);
    }
    this.allowance?.charge(n, clock);
  }

  override evaluate(statement: Parameters<Interpreter['evaluate']>[0], environment: Environment): Value {
    this.charge(1);
    if (!statement) return super.evaluate(statement, environment);
    const node = statement as unknown as AnyNode;
    switch (node.type) {
      case PRE:
        return node.value as Value;
      case OUT:
        return toValue(pyStr(this.evaluate(node.expr as Node, environment)));
      case 'ObjectLiteral':
        return this.objectLiteral(node, environment);
      case 'BinaryExpression':
        if (['+', '~', '*', '%', 'in', 'not in'].includes(node.operator.value)) return this.binary(node, environment);
        break;
      case 'For':
        return this.forLoop(node, environment);
      case 'FilterExpression':
        return this.filter(node, environment);
      case 'CallExpression':
        return this.call(node, environment);
      case 'MemberExpression':
        if (node.computed && (node.property as AnyNode | undefined)?.type !== 'SliceExpression')
          return this.subscript(node, environment);
        break;
    }
    return super.evaluate(statement, environment);
  }

  /** A dict literal; non-string keys (jinja2 allows `{0: 1, 512: 128}`) are kept with their Python values. */
  private objectLiteral(node: AnyNode, env: Environment): Value {
    const entries = [...(node.value as Iterable<[Node, Node]>)];
    const pairs: Array<[Value, Value]> = entries.map(([k, v]) => [this.evaluate(k, env), this.evaluate(v, env)]);
    if (pairs.every(([k]) => k.type === 'StringValue'))
      return super.evaluate(
        { ...node, value: new Map(pairs.map(([k, v]) => [pre(k), pre(v)])) } as unknown as Node,
        env,
      );
    const out = toValue({}) as Tagged & { value: Map<string, Value> };
    const keys = new Map<string, Value>();
    for (const [k, v] of pairs) {
      const key = canonicalKey(k);
      if (key === null) throw new PythonRuntimeError(`TypeError: unhashable type: '${pyTypeName(k)}'`);
      if (!keys.has(key)) keys.set(key, k);
      out.value.set(key, v);
    }
    out[PY_KEYS] = keys;
    return out;
  }

  private binary(node: AnyNode, env: Environment): Value {
    const op = node.operator.value as string;
    const left = this.evaluate(node.left as Node, env);
    const right = this.evaluate(node.right as Node, env);
    if (op === 'in' || op === 'not in') {
      const keys = (right as Tagged)[PY_KEYS];
      if (keys) {
        const key = canonicalKey(left);
        const has = key !== null && keys.has(key);
        return toValue(op === 'in' ? has : !has);
      }
      // jinja2's Undefined equals nothing in a list or dict: `undefined in [..]` is False
      if (
        left.type === 'UndefinedValue' &&
        (right.type === 'ArrayValue' || right.type === 'TupleValue' || right.type === 'ObjectValue')
      ) {
        return toValue(op === 'not in');
      }
      return super.evaluate({ ...node, left: pre(left), right: pre(right) } as unknown as Node, env);
    }
    const isStr = (v: Value) => v.type === 'StringValue';
    if (op === '+' && isStr(left) && isStr(right) && (isMarkup(left) || isMarkup(right))) {
      // markupsafe: Markup + str escapes the str (and the result is Markup)
      const text = (v: Value) =>
        isMarkup(v) ? (v as { value: string }).value : htmlEscape((v as { value: string }).value);
      return markup(text(left) + text(right));
    }
    const isInt = (v: Value) => v.type === 'IntegerValue' || v.type === 'BooleanValue';
    const missing = (v: Value) => v.type === 'UndefinedValue' || v.type === 'NullValue';
    if (op === '~') return toValue(pyStr(left) + pyStr(right));
    if (op === '+' && isStr(left) !== isStr(right) && !missing(left) && !missing(right)) {
      throw new PythonRuntimeError(
        isStr(left)
          ? `TypeError: can only concatenate str (not "${pyTypeName(right)}") to str`
          : `TypeError: unsupported operand type(s) for +: '${pyTypeName(left)}' and 'str'`,
      );
    }
    if (op === '*') {
      const [seq, n] = isInt(right) ? [left, right] : [right, left];
      if (isInt(n) && (isStr(seq) || seq.type === 'ArrayValue')) {
        const count = Math.max(0, Number((n as { value: unknown }).value));
        if (count > 100_000) throw new EngineUnsupported('sequence repetition longer than 100000 (refused)');
        if (isStr(seq)) return toValue((seq as { value: string }).value.repeat(count));
        const items = (seq as { value: Value[] }).value;
        const repeated = toValue([]) as { value: Value[] };
        for (let i = 0; i < count; i++) repeated.value.push(...items);
        return repeated as unknown as Value;
      }
    }
    if (op === '%' && isStr(left)) throw new EngineUnsupported('printf-style string formatting with %');
    return super.evaluate({ ...node, left: pre(left), right: pre(right) } as unknown as Node, env);
  }

  /** `d[k]`: jinja2 gives Undefined for a key that is itself undefined (Hermes' `basic_type_map[json_spec.type]`). */
  private subscript(node: AnyNode, env: Environment): Value {
    const object = this.evaluate(node.object as Node, env);
    const key = this.evaluate(node.property as Node, env);
    const keys = (object as Tagged)[PY_KEYS];
    if (keys) {
      const k = canonicalKey(key);
      const hit = k !== null ? (object as unknown as { value: Map<string, Value> }).value.get(k) : undefined;
      return hit ?? this.evaluate({ type: 'Identifier', value: '__toolgauge_undefined__' } as unknown as Node, env);
    }
    if ((object as Tagged)[GENERATOR] && key.type === 'IntegerValue')
      throw new PythonRuntimeError("TypeError: 'generator' object is not subscriptable");
    if (
      key.type === 'UndefinedValue' &&
      (object.type === 'ObjectValue' || object.type === 'ArrayValue' || object.type === 'UndefinedValue')
    ) {
      return this.evaluate({ type: 'Identifier', value: '__toolgauge_undefined__' } as unknown as Node, env);
    }
    return super.evaluate({ ...node, object: pre(object), property: pre(key) } as unknown as Node, env);
  }

  private forLoop(node: AnyNode, env: Environment): Value {
    const select = node.iterable.type === 'SelectExpression';
    const iterable = this.evaluate((select ? node.iterable.lhs : node.iterable) as Node, env);
    if (iterable.type === 'UndefinedValue') {
      // jinja2's Undefined iterates as empty: only the loop's `else` block runs.
      const elseBlock = { type: 'If', test: pre(toValue(true)), body: node.defaultBlock ?? [], alternate: [] };
      return super.evaluate(elseBlock as unknown as Node, new Environment(env));
    }
    // every iteration costs a step, also when the body is empty (nested range() loops must not hang)
    const size = (iterable as unknown as { value: { length?: number; size?: number } }).value;
    this.charge(typeof size?.length === 'number' ? size.length : typeof size?.size === 'number' ? size.size : 0);
    let items: Value = iterable;
    const keys = (iterable as Tagged)[PY_KEYS];
    if (keys) items = toValue([]);
    if (keys) (items as unknown as { value: Value[] }).value.push(...keys.values());
    const patched = { ...node, iterable: select ? { ...node.iterable, lhs: pre(items) } : pre(items) };
    try {
      return super.evaluate(patched as unknown as Node, env);
    } catch (e) {
      if (!isOurs(e) && e instanceof Error && /Cannot unpack non-iterable type: TupleValue/.test(e.message)) {
        throw new EngineUnsupported('tuple unpacking in a for loop over tuples', e.message);
      }
      throw e;
    }
  }

  private filter(node: AnyNode, env: Environment): Value {
    const name = filterName(node.filter as AnyNode);
    let operand = this.evaluate(node.operand as Node, env);
    if (name === 'string') return isMarkup(operand) ? operand : toValue(pyStr(operand));
    if (name === 'safe') return operand.type === 'StringValue' ? markup((operand as { value: string }).value) : operand;
    if (name === 'e' || name === 'escape')
      return isMarkup(operand)
        ? operand
        : markup(
            htmlEscape(
              pyStr(operand === undefined ? toValue('') : operand.type === 'UndefinedValue' ? toValue('') : operand),
            ),
          );
    const undef = operand.type === 'UndefinedValue';
    const none = operand.type === 'NullValue';
    if (name && (undef || none)) {
      // jinja2's Undefined is an empty, falsy, str()-able value; None is falsy too
      if (undef && STR_COERCING_FILTERS.has(name)) operand = toValue('');
      else if (undef && (name === 'length' || name === 'count')) return toValue(0);
      else if (undef && (name === 'list' || name === 'sort' || name === 'reverse' || name === 'unique'))
        return toValue([]);
      else if (undef && name === 'join') return toValue('');
      else if (GENERATOR_FILTERS.has(name)) {
        const out = toValue([]) as Tagged;
        out[GENERATOR] = true;
        return out;
      } else if (undef && name === 'tojson')
        throw new PythonRuntimeError('TypeError: Object of type Undefined is not JSON serializable');
    }
    if (name === 'tojson' && none) return toValue('null');
    const tagged = operand as Tagged;
    if (tagged[GENERATOR] && name === 'list') return this.copyList(operand);
    if (tagged[GENERATOR] && (name === 'tojson' || name === 'length' || name === 'count')) {
      throw new PythonRuntimeError(
        name === 'tojson'
          ? 'TypeError: Object of type generator is not JSON serializable'
          : "TypeError: object of type 'generator' has no len()",
      );
    }
    if ((name === 'items' || name === 'dictsort') && operand.type !== 'ObjectValue' && !undef) {
      throw new PythonRuntimeError(
        name === 'items'
          ? 'TypeError: Can only get item pairs from a mapping.'
          : `AttributeError: '${pyTypeName(operand)}' object has no attribute 'items'`,
      );
    }
    const keys = tagged[PY_KEYS];
    if (keys && (name === 'items' || name === 'dictsort' || name === 'tojson'))
      return this.pyKeyedFilter(name, operand, keys, node, env);
    try {
      const out = super.evaluate({ ...node, operand: pre(operand) } as unknown as Node, env);
      if (name && GENERATOR_FILTERS.has(name) && out.type === 'ArrayValue') (out as Tagged)[GENERATOR] = true;
      return out;
    } catch (e) {
      if (isOurs(e) || !(e instanceof Error) || !name) throw e;
      // the engine says so itself (`map` without `attribute`, …): jinja2 has it
      if (/not currently supported/.test(e.message))
        throw new EngineUnsupported(`jinja2 filter '${name}' in this form`, e.message);
      const applied = /Cannot apply filter "(\w+)" to type: (\w+)/.exec(e.message);
      if (applied && applied[1] === name) {
        const type = applied[2];
        if (type === 'UndefinedValue') {
          throw new EngineUnsupported(
            `filter '${name}' on an undefined value (jinja2 treats undefined as empty)`,
            e.message,
          );
        }
        if (STR_COERCING_FILTERS.has(name)) {
          throw new EngineUnsupported(
            `filter '${name}' on a ${pyTypeName(operand)} (jinja2 coerces with str())`,
            e.message,
          );
        }
      }
      const unknown = /Unknown (?:\w+ )?filter: (\w+)/.exec(e.message);
      if (unknown && unknown[1] === name && JINJA2_FILTERS.has(name)) {
        throw new EngineUnsupported(`jinja2 filter '${name}' on a ${pyTypeName(operand)}`, e.message);
      }
      throw e;
    }
  }

  /** `generator|list`: a real list (the engine's list filter returns its operand itself). */
  private copyList(v: Value): Value {
    const out = toValue([]) as unknown as { value: Value[] };
    out.value.push(...(v as unknown as { value: Value[] }).value);
    return out as unknown as Value;
  }

  /** items / dictsort / tojson of a dict with non-string keys, as Python gives them. */
  private pyKeyedFilter(
    name: string,
    operand: Value,
    keys: Map<string, Value>,
    node: AnyNode,
    env: Environment,
  ): Value {
    const map = (operand as unknown as { value: Map<string, Value> }).value;
    const pairs = [...map.entries()].map(([k, v]) => [keys.get(k) ?? toValue(k), v] as [Value, Value]);
    if (name === 'tojson') {
      const plain = toValue({}) as unknown as { value: Map<string, Value> };
      for (const [k, v] of pairs)
        plain.value.set(k.type === 'StringValue' ? (k as { value: string }).value : jsonKey(k), v);
      return super.evaluate({ ...node, operand: pre(plain as unknown as Value) } as unknown as Node, env);
    }
    if (name === 'dictsort') {
      const num = (v: Value) =>
        v.type === 'BooleanValue' ? Number((v as { value: boolean }).value) : (v as { value: number }).value;
      const numeric = pairs.every(([k]) => ['IntegerValue', 'FloatValue', 'BooleanValue'].includes(k.type));
      if (!numeric && !pairs.every(([k]) => k.type === 'StringValue'))
        throw new PythonRuntimeError("TypeError: '<' not supported between instances of 'str' and 'int'");
      pairs.sort((a, b) =>
        numeric
          ? num(a[0]) - num(b[0])
          : (a[0] as { value: string }).value < (b[0] as { value: string }).value
            ? -1
            : 1,
      );
    }
    return this.tuples(pairs);
  }

  private tuples(pairs: Array<[Value, Value]>): Value {
    const list = toValue([]) as unknown as { value: Value[] };
    for (const [k, v] of pairs) {
      const t = toValue([]) as unknown as { value: Value[] };
      t.value.push(k, v);
      list.value.push(t as unknown as Value);
    }
    return list as unknown as Value;
  }

  private call(node: AnyNode, env: Environment): Value {
    const stripped = this.pyStripCall(node, env);
    if (stripped) return stripped;
    try {
      return super.evaluate(node as unknown as Node, env);
    } catch (e) {
      if (
        isOurs(e) ||
        !(e instanceof Error) ||
        !/Cannot call something that is not a function: got UndefinedValue/.test(e.message)
      )
        throw e;
      const callee = node.callee as AnyNode;
      // Only blame the engine when *this* callee is what the engine lacks (not an error from deeper inside).
      let fn: Value;
      try {
        fn = this.evaluate(callee as Node, env);
      } catch {
        throw e;
      }
      if (fn.type !== 'UndefinedValue') throw e;
      if (callee.type === 'Identifier' && JINJA2_GLOBALS.has(callee.value)) {
        throw new EngineUnsupported(`jinja2 global function ${callee.value}()`);
      }
      if (callee.type === 'MemberExpression' && !callee.computed && callee.property?.type === 'Identifier') {
        const method = callee.property.value as string;
        const object = this.evaluate(callee.object as Node, env);
        if (methodTable(object)?.has(method)) {
          // transformers renders in jinja2's ImmutableSandboxedEnvironment: methods that modify a list or dict raise
          if (UNSAFE_METHODS[pyTypeName(object)]?.has(method)) {
            throw new PythonRuntimeError(
              `SecurityError: access to attribute '${method}' of '${pyTypeName(object)}' object is unsafe.`,
            );
          }
          throw new EngineUnsupported(`Python method ${pyTypeName(object)}.${method}()`);
        }
      }
      throw e;
    }
  }

  /**
   * `s.strip(chars)`, `s.lstrip(chars)`, `s.rstrip(chars)` on a str, as Python does them: the engine's own ignore
   * their argument and strip JavaScript's whitespace (SmolLM3's `content.lstrip("\n")` dropped a leading space).
   * Null when the call is not one of these on a str.
   */
  private pyStripCall(node: AnyNode, env: Environment): Value | null {
    const callee = node.callee as AnyNode | undefined;
    if (callee?.type !== 'MemberExpression' || callee.computed || callee.property?.type !== 'Identifier') return null;
    const method = callee.property.value as string;
    if (method !== 'strip' && method !== 'lstrip' && method !== 'rstrip') return null;
    const object = this.evaluate(callee.object as Node, env) as Tagged;
    if (object.type !== 'StringValue')
      return super.evaluate({ ...node, callee: { ...callee, object: pre(object) } } as unknown as Node, env);
    const args = ((node.args as Node[] | undefined) ?? []).map((a) => this.evaluate(a, env));
    if (args.length > 1)
      throw new PythonRuntimeError(`TypeError: ${method} expected at most 1 argument, got ${args.length}`);
    const chars = args[0];
    if (chars && chars.type !== 'StringValue' && chars.type !== 'NullValue' && chars.type !== 'UndefinedValue')
      throw new PythonRuntimeError(`TypeError: ${method} arg must be None or str`);
    const set = chars?.type === 'StringValue' ? new Set(codePointsOf(chars.value as string)) : null;
    const strips = (cp: number) => (set ? set.has(cp) : cp <= 0xffff && isPySpace(cp));
    const cps = codePointsOf(object.value as string);
    let a = 0;
    let b = cps.length;
    if (method !== 'rstrip') while (a < b && strips(cps[a]!)) a++;
    if (method !== 'lstrip') while (b > a && strips(cps[b - 1]!)) b--;
    const out = String.fromCodePoint(...cps.slice(a, b));
    return object[MARKUP] ? markup(out) : toValue(out);
  }
}

function codePointsOf(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Compilation

/** Statement nodes that appear in blocks; anything else in a block is an `{{ expression }}` output. */
const STATEMENTS = new Set([
  'Program',
  'Set',
  'If',
  'For',
  'Macro',
  'CallStatement',
  'FilterStatement',
  'Break',
  'Continue',
  'Comment',
  'StringLiteral',
]);
const BLOCK_FIELDS = ['body', 'alternate', 'defaultBlock'];

/** Wrap every `{{ expression }}` in an output node, so it prints Python's str() of its value. */
function wrapOutputs(node: AnyNode): void {
  for (const field of BLOCK_FIELDS) {
    const block = node[field];
    if (!Array.isArray(block)) continue;
    node[field] = block.map((stmt: AnyNode) => {
      if (!stmt || typeof stmt !== 'object') return stmt;
      if (STATEMENTS.has(stmt.type)) {
        wrapOutputs(stmt);
        return stmt;
      }
      return { type: OUT, expr: stmt };
    });
  }
}

export interface CompiledTemplate {
  source: string;
  /** The parsed program, output nodes wrapped. */
  program: Node;
  /** Every string literal and text block of the template (its own text, for format-example checks). */
  literals: string[];
}

function collectLiterals(node: unknown, out: string[], depth = 0): void {
  if (!node || typeof node !== 'object' || depth > 500) return;
  if (Array.isArray(node)) {
    for (const x of node) collectLiterals(x, out, depth + 1);
    return;
  }
  const n = node as AnyNode;
  if (n.type === 'StringLiteral' && typeof n.value === 'string') out.push(n.value);
  for (const [k, v] of Object.entries(n)) {
    if (k !== 'type' && v && typeof v === 'object') collectLiterals(v, out, depth + 1);
  }
}

/**
 * jinja2 reads string literals with Python's unicode-escape: a backslash before a newline is a line continuation
 * (both vanish). The engine's lexer refuses it ("Unexpected escaped character"), so it is removed here, inside
 * string literals of `{{ }}` and `{% %}` tags only (Mistral-Small-3.1's default system message is written so).
 */
export function joinContinuationLines(source: string): string {
  if (!source.includes('\\\n') && !source.includes('\\\r\n')) return source;
  let out = '';
  let i = 0;
  const n = source.length;
  while (i < n) {
    const open = source.indexOf('{', i);
    if (open < 0 || open + 1 >= n) break;
    const kind = source[open + 1];
    if (kind !== '{' && kind !== '%' && kind !== '#') {
      out += source.slice(i, open + 1);
      i = open + 1;
      continue;
    }
    out += source.slice(i, open + 2);
    i = open + 2;
    if (kind === '#') {
      const end = source.indexOf('#}', i);
      const stop = end < 0 ? n : end + 2;
      out += source.slice(i, stop);
      i = stop;
      continue;
    }
    if (kind === '%' && /^-?\s*raw\s*-?%\}/.test(source.slice(i, i + 40))) {
      const re = /\{%-?\s*endraw\s*-?%\}/g;
      re.lastIndex = i;
      const m = re.exec(source);
      const stop = m ? m.index + m[0].length : n;
      out += source.slice(i, stop);
      i = stop;
      continue;
    }
    const close = kind === '{' ? '}}' : '%}';
    let quote: string | null = null;
    while (i < n) {
      const c = source[i]!;
      if (quote) {
        if (c === '\\') {
          if (source[i + 1] === '\n') {
            i += 2;
            continue;
          }
          if (source[i + 1] === '\r' && source[i + 2] === '\n') {
            i += 3;
            continue;
          }
          out += source.slice(i, i + 2);
          i += 2;
          continue;
        }
        if (c === quote) quote = null;
        out += c;
        i++;
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (source.startsWith(close, i)) {
        out += close;
        i += 2;
        break;
      }
      out += c;
      i++;
    }
  }
  return out + source.slice(i);
}

const cache = new Map<string, CompiledTemplate | TemplateError>();

/** Parse a template (cached by source). Throws TemplateError (`unparseable` or `engine_unsupported`). */
export function compileTemplate(source: string): CompiledTemplate {
  const hit = cache.get(source);
  if (hit instanceof TemplateError) throw hit;
  if (hit) return hit;
  let result: CompiledTemplate | TemplateError;
  try {
    const parsed = new Template(joinContinuationLines(source)).parsed as unknown as AnyNode;
    const literals: string[] = [];
    collectLiterals(parsed, literals);
    wrapOutputs(parsed);
    result = { source, program: parsed as unknown as Node, literals };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const stmt = /Unknown statement type: (\w+)/.exec(message);
    result =
      stmt && JINJA2_STATEMENTS.has(stmt[1]!)
        ? new TemplateError('engine_unsupported', message, `jinja2 statement {% ${stmt[1]} %}`)
        : new TemplateError('unparseable', `syntax error: ${message}`);
  }
  if (cache.size > 256) cache.delete(cache.keys().next().value!);
  cache.set(source, result);
  if (result instanceof TemplateError) throw result;
  return result;
}

/**
 * Run a compiled template with the given variables (which must include the globals: see render.ts).
 * Every failure becomes a TemplateError of the right kind.
 */
export function runTemplate(
  compiled: CompiledTemplate,
  variables: Record<string, unknown>,
  allowance?: RenderAllowance,
): string {
  const env = new Environment();
  for (const [k, v] of Object.entries(variables)) {
    if (v !== undefined) env.set(k, v);
  }
  let out: string;
  try {
    const result = new FaithfulInterpreter(env, allowance).run(compiled.program as never) as { value: unknown };
    out = String(result.value);
  } catch (e) {
    throw classifyRuntimeError(e);
  }
  // Any "[object Map]" is a dict the engine stringified with JavaScript's toString (join, replace, …).
  if (/\[object (?:Map|Object)\]/.test(out) && !/\[object (?:Map|Object)\]/.test(JSON.stringify(variables))) {
    throw new TemplateError(
      'engine_unsupported',
      'a dict was converted to text as "[object Map]"',
      'dict converted to text by a filter',
    );
  }
  return out;
}

export function classifyRuntimeError(e: unknown): TemplateError {
  if (e instanceof TemplateError) return e;
  if (e instanceof BudgetExceeded) return new TemplateError('budget_exceeded', e.message);
  if (e instanceof TemplateRaise) return new TemplateError('raised', e.message);
  if (e instanceof EngineUnsupported) return new TemplateError('engine_unsupported', e.message, e.construct);
  if (e instanceof PythonRuntimeError) return new TemplateError('render_error', e.message);
  const message = e instanceof Error ? e.message : String(e);
  const op = /Unknown operator "(.+?)" between (\w+) and (\w+)/.exec(message);
  if (
    op &&
    (op[2] === 'BooleanValue' || op[3] === 'BooleanValue') &&
    ['+', '-', '*', '/', '//', '%', '<', '>', '<=', '>='].includes(op[1]!)
  ) {
    // Python treats bools as ints in arithmetic and comparisons.
    return new TemplateError('engine_unsupported', message, 'arithmetic on booleans');
  }
  if (e instanceof RangeError && /call stack/i.test(message))
    return new TemplateError('render_error', `recursion too deep: ${message}`);
  return new TemplateError('render_error', message);
}

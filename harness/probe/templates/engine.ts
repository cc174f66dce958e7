import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { EngineUnsupported, PythonRuntimeError, TemplateError, TemplateRaise } from './errors.ts';

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
    case 'StringValue': return reprString(value as string);
    case 'BooleanValue': return value ? 'True' : 'False';
    case 'NullValue': return 'None';
    case 'UndefinedValue': return '';
    case 'IntegerValue': case 'FloatValue': return v.toString();
    case 'TupleValue': {
      const items = (value as Value[]).map(pyRepr);
      return `(${items.join(', ')}${items.length === 1 ? ',' : ''})`;
    }
    case 'ArrayValue': return `[${(value as Value[]).map(pyRepr).join(', ')}]`;
    case 'ObjectValue': case 'KeywordArgumentsValue':
      return `{${[...(value as Map<string, Value>)].map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`).join(', ')}}`;
    case 'NamespaceValue':
      return `<Namespace {${[...(value as Map<string, Value>)].map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`).join(', ')}}>`;
    case 'FunctionValue': return '<function>';
    default: return v.toString();
  }
}

export function pyStr(v: Value): string {
  if (v.type === 'StringValue') return (v as { value: string }).value;
  return pyRepr(v);
}

function pyTypeName(v: Value): string {
  switch (v.type) {
    case 'StringValue': return 'str';
    case 'IntegerValue': return 'int';
    case 'FloatValue': return 'float';
    case 'BooleanValue': return 'bool';
    case 'NullValue': return 'NoneType';
    case 'ArrayValue': return 'list';
    case 'TupleValue': return 'tuple';
    case 'ObjectValue': case 'KeywordArgumentsValue': return 'dict';
    case 'UndefinedValue': return 'Undefined';
    default: return v.type;
  }
}

// ---------------------------------------------------------------------------------------------------------
// What jinja2 (as configured by transformers) has and the engine may lack

/** jinja2's builtin filters: an "unknown filter" error for one of these is the engine's gap, not the template's. */
const JINJA2_FILTERS = new Set(
  ('abs attr batch capitalize center count d default dictsort e escape filesizeformat first float forceescape format ' +
    'groupby indent int items join last length list lower map max min pprint random reject rejectattr replace reverse ' +
    'round safe select selectattr slice sort string striptags sum title tojson trim truncate unique upper urlencode ' +
    'urlize wordcount wordwrap xmlattr').split(' '),
);
/** Filters that coerce their operand with str() in Python, so they work on None and numbers. */
const STR_COERCING_FILTERS = new Set('capitalize center e escape format indent lower replace string striptags title trim truncate upper wordcount wordwrap'.split(' '));
/** Globals jinja2 provides that the engine does not. */
const JINJA2_GLOBALS = new Set(['dict', 'cycler', 'joiner', 'lipsum']);
const PY_METHODS: Record<string, Set<string>> = {
  str: new Set(
    ('capitalize casefold center count encode endswith expandtabs find format format_map index isalnum isalpha isascii ' +
      'isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower lstrip ' +
      'partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split splitlines ' +
      'startswith strip swapcase title translate upper zfill').split(' '),
  ),
  list: new Set('append clear copy count extend index insert pop remove reverse sort'.split(' ')),
  dict: new Set('clear copy fromkeys get items keys pop popitem setdefault update values'.split(' ')),
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
  e instanceof TemplateRaise || e instanceof EngineUnsupported || e instanceof PythonRuntimeError || e instanceof TemplateError;

// ---------------------------------------------------------------------------------------------------------

/**
 * Evaluation steps one render may take: a template looping over huge ranges is refused, never left hanging.
 * The real templates need under 1,000 steps for the probe conversation and about 50,000 for 32 nested tools
 * (functionary); 200,000 steps take about a second.
 */
const MAX_STEPS = 200_000;

class FaithfulInterpreter extends Interpreter {
  private steps = 0;

  override evaluate(statement: Parameters<Interpreter['evaluate']>[0], environment: Environment): Value {
    if (++this.steps > MAX_STEPS) throw new EngineUnsupported(`a render longer than ${MAX_STEPS} evaluation steps (refused)`);
    if (!statement) return super.evaluate(statement, environment);
    const node = statement as unknown as AnyNode;
    switch (node.type) {
      case PRE:
        return node.value as Value;
      case OUT:
        return toValue(pyStr(this.evaluate(node.expr as Node, environment)));
      case 'BinaryExpression':
        if (['+', '~', '*', '%'].includes(node.operator.value)) return this.binary(node, environment);
        break;
      case 'For':
        return this.forLoop(node, environment);
      case 'FilterExpression':
        return this.filter(node, environment);
      case 'CallExpression':
        return this.call(node, environment);
      case 'MemberExpression':
        if (node.computed && (node.property as AnyNode | undefined)?.type !== 'SliceExpression') return this.subscript(node, environment);
        break;
    }
    return super.evaluate(statement, environment);
  }

  private binary(node: AnyNode, env: Environment): Value {
    const op = node.operator.value as string;
    const left = this.evaluate(node.left as Node, env);
    const right = this.evaluate(node.right as Node, env);
    const isStr = (v: Value) => v.type === 'StringValue';
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
    if (key.type === 'UndefinedValue' && (object.type === 'ObjectValue' || object.type === 'ArrayValue' || object.type === 'UndefinedValue')) {
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
    const patched = { ...node, iterable: select ? { ...node.iterable, lhs: pre(iterable) } : pre(iterable) };
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
    const operand = this.evaluate(node.operand as Node, env);
    if (name === 'string') return toValue(pyStr(operand));
    try {
      return super.evaluate({ ...node, operand: pre(operand) } as unknown as Node, env);
    } catch (e) {
      if (isOurs(e) || !(e instanceof Error) || !name) throw e;
      const applied = /Cannot apply filter "(\w+)" to type: (\w+)/.exec(e.message);
      if (applied && applied[1] === name) {
        const type = applied[2];
        if (type === 'UndefinedValue') {
          throw new EngineUnsupported(`filter '${name}' on an undefined value (jinja2 treats undefined as empty)`, e.message);
        }
        if (STR_COERCING_FILTERS.has(name)) {
          throw new EngineUnsupported(`filter '${name}' on a ${pyTypeName(operand)} (jinja2 coerces with str())`, e.message);
        }
      }
      const unknown = /Unknown (?:\w+ )?filter: (\w+)/.exec(e.message);
      if (unknown && unknown[1] === name && JINJA2_FILTERS.has(name)) {
        throw new EngineUnsupported(`jinja2 filter '${name}' on a ${pyTypeName(operand)}`, e.message);
      }
      throw e;
    }
  }

  private call(node: AnyNode, env: Environment): Value {
    try {
      return super.evaluate(node as unknown as Node, env);
    } catch (e) {
      if (isOurs(e) || !(e instanceof Error) || !/Cannot call something that is not a function: got UndefinedValue/.test(e.message)) throw e;
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
          throw new EngineUnsupported(`Python method ${pyTypeName(object)}.${method}()`);
        }
      }
      throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Compilation

/** Statement nodes that appear in blocks; anything else in a block is an `{{ expression }}` output. */
const STATEMENTS = new Set(['Program', 'Set', 'If', 'For', 'Macro', 'CallStatement', 'FilterStatement', 'Break', 'Continue', 'Comment', 'StringLiteral']);
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

const cache = new Map<string, CompiledTemplate | TemplateError>();

/** Parse a template (cached by source). Throws TemplateError (`unparseable` or `engine_unsupported`). */
export function compileTemplate(source: string): CompiledTemplate {
  const hit = cache.get(source);
  if (hit instanceof TemplateError) throw hit;
  if (hit) return hit;
  let result: CompiledTemplate | TemplateError;
  try {
    const parsed = new Template(source).parsed as unknown as AnyNode;
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
export function runTemplate(compiled: CompiledTemplate, variables: Record<string, unknown>): string {
  const env = new Environment();
  for (const [k, v] of Object.entries(variables)) {
    if (v !== undefined) env.set(k, v);
  }
  let out: string;
  try {
    const result = new FaithfulInterpreter(env).run(compiled.program as never) as { value: unknown };
    out = String(result.value);
  } catch (e) {
    throw classifyRuntimeError(e);
  }
  // Any "[object Map]" is a dict the engine stringified with JavaScript's toString (join, replace, …).
  if (/\[object (?:Map|Object)\]/.test(out) && !/\[object (?:Map|Object)\]/.test(JSON.stringify(variables))) {
    throw new TemplateError('engine_unsupported', 'a dict was converted to text as "[object Map]"', 'dict converted to text by a filter');
  }
  return out;
}

export function classifyRuntimeError(e: unknown): TemplateError {
  if (e instanceof TemplateError) return e;
  if (e instanceof TemplateRaise) return new TemplateError('raised', e.message);
  if (e instanceof EngineUnsupported) return new TemplateError('engine_unsupported', e.message, e.construct);
  if (e instanceof PythonRuntimeError) return new TemplateError('render_error', e.message);
  const message = e instanceof Error ? e.message : String(e);
  const op = /Unknown operator "(.+?)" between (\w+) and (\w+)/.exec(message);
  if (op && (op[2] === 'BooleanValue' || op[3] === 'BooleanValue') && ['+', '-', '*', '/', '//', '%', '<', '>', '<=', '>='].includes(op[1]!)) {
    // Python treats bools as ints in arithmetic and comparisons.
    return new TemplateError('engine_unsupported', message, 'arithmetic on booleans');
  }
  if (e instanceof RangeError && /call stack/i.test(message)) return new TemplateError('render_error', `recursion too deep: ${message}`);
  return new TemplateError('render_error', message);
}

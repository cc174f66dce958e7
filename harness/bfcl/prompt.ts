// What a model is shown for a BFCL case, as BFCL shows it (bfcl_eval/utils.py and model_handler/utils.py at the
// pinned commit): function docs with the language hint (Java/JavaScript parameters become strings described in
// words), OpenAI tools for FC mode (BFCL's type mapping; dots in names become underscores), the default system
// prompt for prompt mode, the user message that returns held-out functions (miss_func), and the user message
// that returns execution results in prompt mode. Pure; the kit's runner uses these.
import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import { pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import { categoryOfId, isJava, isJs } from './categories.ts';
import type { FunctionDoc } from './checker/ast.ts';
import { clonePlain, PyFloat } from '../core/pyliteral/pyjson.ts';
import { floatRepr } from '../core/pyliteral/index.ts';

/** GORILLA_TO_OPENAPI. */
export const GORILLA_TO_OPENAPI: Record<string, string> = {
  integer: 'integer',
  number: 'number',
  float: 'number',
  string: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  dict: 'object',
  object: 'object',
  tuple: 'array',
  any: 'string',
  byte: 'integer',
  short: 'integer',
  long: 'integer',
  double: 'number',
  char: 'string',
  ArrayList: 'array',
  Array: 'array',
  HashMap: 'object',
  Hashtable: 'object',
  Queue: 'array',
  Stack: 'array',
  Any: 'string',
  String: 'string',
  Bigint: 'integer',
};

type Json = Record<string, unknown>;
const clone = <T>(x: T): T => clonePlain(x);

/** _get_language_specific_hint. */
function languageHint(category: string): string {
  if (isJava(category)) return ' Note that the provided function is in Java 8 SDK syntax.';
  if (isJs(category)) return ' Note that the provided function is in JavaScript syntax.';
  return ' Note that the provided function is in Python 3 syntax.';
}

/** add_language_specific_hint_to_function_doc for one entry: the docs the model sees (the checker keeps the raw ones). */
export function modelFacingDocs(id: string, docs: readonly FunctionDoc[]): FunctionDoc[] {
  const category = categoryOfId(id);
  const out = clone(docs) as FunctionDoc[];
  for (const item of out) {
    item.description = `${item.description ?? ''}${languageHint(category)}`;
    const props = item.parameters.properties as Record<string, Json>;
    if (isJava(category)) {
      for (const value of Object.values(props)) {
        if (value.type === 'any')
          value.description = `${value.description ?? ''} This parameter can be of any type of Java object in string representation.`;
        else
          value.description = `${value.description ?? ''} This is Java ${String(value.type)} type parameter in string representation.`;
        if (value.type === 'ArrayList' || value.type === 'Array') {
          value.description = `${String(value.description)} The list elements are of type ${String((value.items as Json).type)}; they are not in string representation.`;
          delete value.items;
        }
        value.type = 'string';
      }
    } else if (isJs(category)) {
      for (const value of Object.values(props)) {
        if (value.type === 'any')
          value.description = `${value.description ?? ''} This parameter can be of any type of JavaScript object in string representation.`;
        else
          value.description = `${value.description ?? ''} This is JavaScript ${String(value.type)} type parameter in string representation.`;
        if (value.type === 'array') {
          value.description = `${String(value.description)} The list elements are of type ${String((value.items as Json).type)}; they are not in string representation.`;
          delete value.items;
        }
        if (value.type === 'dict' && 'properties' in value) {
          value.description = `${String(value.description)} The dictionary entries have the following schema; they are not in string representation. ${pythonJsonDumps(value.properties)}`;
          delete value.properties;
        }
        value.type = 'string';
      }
    }
  }
  return out;
}

/** _cast_to_openai_type with GORILLA_TO_OPENAPI. */
function castProperties(properties: Record<string, Json>): Record<string, Json> {
  for (const value of Object.values(properties)) {
    if (!('type' in value)) value.type = 'string';
    else {
      const t = String(value.type);
      if (t === 'float') {
        value.format = 'float';
        value.description = `${String(value.description)} This is a float type value.`;
      }
      value.type = GORILLA_TO_OPENAPI[t] ?? 'string';
    }
    if (value.type === 'array' || value.type === 'object') {
      if ('properties' in value) value.properties = castProperties(value.properties as Record<string, Json>);
      else if ('items' in value) {
        const items = value.items as Json;
        items.type = GORILLA_TO_OPENAPI[String(items.type)];
        if (items.type === 'array' && 'items' in items)
          (items.items as Json).type = GORILLA_TO_OPENAPI[String((items.items as Json).type)];
        else if (items.type === 'object' && 'properties' in items)
          items.properties = castProperties(items.properties as Record<string, Json>);
      }
    }
  }
  return properties;
}

/**
 * convert_to_tool for OpenAI-style chat completions: `{type: "function", function: doc}` with BFCL's type mapping,
 * `parameters.type = "object"`, and dots in names replaced by underscores (the OpenAI name pattern refuses dots).
 */
export function toOpenAiTools(docs: readonly FunctionDoc[], opts: { underscores?: boolean } = {}): OpenAITool[] {
  return toOpenAiToolsInPlace(clone(docs) as FunctionDoc[], opts);
}

/** toOpenAiTools on docs the caller owns (a copy of its own, such as modelFacingDocs returns): changed in place. */
export function toOpenAiToolsInPlace(docs: FunctionDoc[], opts: { underscores?: boolean } = {}): OpenAITool[] {
  return docs.map((item) => {
    const doc = item as unknown as Json & { name: string; parameters: Json };
    if ((opts.underscores ?? true) && doc.name.includes('.')) doc.name = doc.name.replace(/\./g, '_');
    doc.parameters.type = 'object';
    doc.parameters.properties = castProperties(doc.parameters.properties as Record<string, Json>);
    return { type: 'function', function: doc } as OpenAITool;
  });
}

// ---------------------------------------------------------------------------------------------------------
// prompt mode

/**
 * Python's json.dumps(x, indent=4) (ensure_ascii, `, ` / `: ` separators with newlines) for JSON-like values.
 * Numbers come from JSON.parse here, so a float written `5.0` in the data prints as `5` — the docs BFCL prints
 * hold no such numbers except defaults, which the prompt shows as text anyway.
 */
export function pythonJsonDumps(v: unknown, indent?: number, level = 0): string {
  const nl = indent === undefined ? '' : `\n${' '.repeat(indent * (level + 1))}`;
  const end = indent === undefined ? '' : `\n${' '.repeat(indent * level)}`;
  const sep = indent === undefined ? ', ' : ',';
  if (v === null) return 'null';
  if (typeof v === 'string') return asciiJson(v);
  if (v instanceof PyFloat)
    return Number.isNaN(v.value)
      ? 'NaN'
      : v.value === Infinity
        ? 'Infinity'
        : v.value === -Infinity
          ? '-Infinity'
          : floatRepr(v.value);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v))
    return v.length ? `[${nl}${v.map((x) => pythonJsonDumps(x, indent, level + 1)).join(sep + nl)}${end}]` : '[]';
  if (typeof v === 'object') {
    const entries = Object.entries(v as Json);
    return entries.length
      ? `{${nl}${entries.map(([k, x]) => `${asciiJson(k)}: ${pythonJsonDumps(x, indent, level + 1)}`).join(sep + nl)}${end}}`
      : '{}';
  }
  return 'null';
}

function asciiJson(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const OUTPUT_FORMAT_PYTHON =
  '[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]';

/** BFCL's default system prompt (ret_fmt=python, no tag, JSON docs, plaintext, classic style). */
export function defaultSystemPrompt(docs: readonly FunctionDoc[]): string {
  const persona = 'You are an expert in composing functions.';
  const task =
    'You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.';
  const toolCallFormat = `You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of ${OUTPUT_FORMAT_PYTHON}.  You SHOULD NOT include any other text in the response.`;
  const multiturn =
    "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.";
  const tools = `Here is a list of functions in json format that you can invoke.\n${pythonJsonDumps(docs, 4)}\n`;
  return `${persona}${task}\n\n${toolCallFormat}\n\n${multiturn}\n\n${tools}`;
}

/** system_prompt_pre_processing_chat_model: prepend to an existing system message, or insert one. */
export function withSystemPrompt(messages: readonly ChatMessage[], docs: readonly FunctionDoc[]): ChatMessage[] {
  const system = defaultSystemPrompt(docs);
  const out = messages.map((m) => ({ ...m }));
  if (out[0]?.role === 'system') out[0].content = `${system}\n\n${out[0].content ?? ''}`;
  else out.unshift({ role: 'system', content: system });
  return out;
}

export const HOLDOUT_MESSAGE_FC = 'I have updated some more functions you can choose from. What about now?';

/** The user message of a miss_func holdout turn: FC mode (tools are recompiled), prompt mode (docs in the text). */
export function holdoutMessage(mode: 'fc' | 'prompt', docs: readonly PyValue[]): ChatMessage {
  if (mode === 'fc') return { role: 'user', content: HOLDOUT_MESSAGE_FC };
  return { role: 'user', content: `${pyRepr({ t: 'list', items: [...docs] })}\n${HOLDOUT_MESSAGE_FC}` };
}

/** format_execution_results_prompting: one user message with the repr of the tool results. */
export function executionResultsMessage(decodedCalls: readonly string[], results: readonly string[]): ChatMessage {
  const items: PyValue[] = results.map((content, i) => ({
    t: 'dict',
    entries: [
      [
        { t: 'str', v: 'role' },
        { t: 'str', v: 'tool' },
      ],
      [
        { t: 'str', v: 'name' },
        { t: 'str', v: decodedCalls[i] ?? '' },
      ],
      [
        { t: 'str', v: 'content' },
        { t: 'str', v: content },
      ],
    ],
  }));
  return {
    role: 'user',
    content: pyRepr({ t: 'list', items: items.slice(0, Math.min(results.length, decodedCalls.length)) }),
  };
}

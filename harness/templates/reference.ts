/**
 * toolgauge's reference chat templates, one per tool-call family the parsers support. Used for counterfactual
 * checks (re-render a case with a template that has no defect and see whether the outcome flips) and to verify
 * family detection. Every reference template: renders every tool with its description, writes prior calls in
 * the family's native format (dict arguments; string arguments are written as they are), keeps them in every
 * standard message shape, accepts any role order, injects no date and never raises. Self-written.
 *
 * hermes, llama_json and mistral have hand-written files in ./reference/; the others are built here from a
 * dialect: the family's turn markup plus a Jinja snippet that writes its calls. Each is checked against Python's
 * jinja2 (differential.test.ts) and round-trips through the family's parser (reference.test.ts).
 */
import { readFileSync } from 'node:fs';
import { FAMILIES, renderToolCalls, type Family } from '../parse/index.ts';

interface Dialect {
  /** written once at the start */
  bos?: string;
  /** the system turn around the system text and the tool list */
  system: [open: string, close: string];
  /** a user (or other non-assistant, non-tool) turn; `{role}` is replaced by the role */
  user: [open: string, close: string];
  assistant: [open: string, close: string];
  /** a tool result turn */
  tool: [open: string, close: string];
  /** the generation prompt */
  generation: string;
  /** Jinja statements that write the calls of `message` (variables: call, fn, args set per call) */
  calls: string;
  /** the tool-format instruction after the tool list (an example call is appended) */
  howTo: string;
  /** what goes around the listed tools */
  toolsOpen?: string;
  toolsClose?: string;
}

/** A Jinja string literal holding `s` (both engines read these escapes the same way). */
function lit(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

const out = (s: string) => `{{- ${lit(s)} -}}`;

/** Per call: `fn` (name, arguments) and `args` (the arguments, dict or the string as given). */
const EACH_CALL_OPEN = `{%- for call in message.tool_calls -%}{%- set fn = call.function if call.function is defined else call -%}{%- set args = fn.arguments -%}`;
const EACH_CALL_CLOSE = `{%- endfor -%}`;
/** `args` as JSON (a string is already JSON). */
const ARGS_JSON = `{%- if args is string -%}{{- args -}}{%- else -%}{{- args | tojson -}}{%- endif -%}`;

/** Macros shared by the built templates: Python literals (pythonic families) and Gemma 4 values. */
const MACROS = `{%- macro pyval(v) -%}
{%- if v is string -%}{{- v | tojson -}}
{%- elif v is boolean -%}{{- 'True' if v else 'False' -}}
{%- elif v is none -%}{{- 'None' -}}
{%- elif v is mapping -%}{{- '{' -}}{%- for k, x in v.items() -%}{{- k | tojson -}}{{- ': ' -}}{{- pyval(x) -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}{%- endfor -%}{{- '}' -}}
{%- elif v is iterable -%}{{- '[' -}}{%- for x in v -%}{{- pyval(x) -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}{%- endfor -%}{{- ']' -}}
{%- else -%}{{- v | tojson -}}
{%- endif -%}
{%- endmacro -%}
{%- macro gemval(v) -%}
{%- if v is string -%}{{- '<|"|>' + v + '<|"|>' -}}
{%- elif v is boolean -%}{{- 'true' if v else 'false' -}}
{%- elif v is none -%}{{- 'null' -}}
{%- elif v is mapping -%}{{- '{' -}}{%- for k, x in v.items() -%}{{- '<|"|>' + k + '<|"|>:' -}}{{- gemval(x) -}}{%- if not loop.last -%}{{- ',' -}}{%- endif -%}{%- endfor -%}{{- '}' -}}
{%- elif v is iterable -%}{{- '[' -}}{%- for x in v -%}{{- gemval(x) -}}{%- if not loop.last -%}{{- ',' -}}{%- endif -%}{%- endfor -%}{{- ']' -}}
{%- else -%}{{- v | tojson -}}
{%- endif -%}
{%- endmacro -%}
{%- macro textval(v) -%}{%- if v is string -%}{{- v -}}{%- else -%}{{- v | tojson -}}{%- endif -%}{%- endmacro -%}`;

/** Key/value families: `each(k, v)` writes one parameter; a string `args` is written whole. */
function kvCalls(open: string, each: string, close: string, between = ''): string {
  return `${EACH_CALL_OPEN}${open}{%- if args is mapping -%}{%- for k, v in args.items() -%}${each}{%- endfor -%}{%- else -%}{{- args -}}{%- endif -%}${close}{%- if not loop.last -%}${out(between)}{%- endif -%}${EACH_CALL_CLOSE}`;
}

/** A JSON list of `{name, <key>: args}` objects between `open` and `close`. */
function jsonListCalls(open: string, close: string, key = 'arguments', extra = ''): string {
  return `${out(open)}${EACH_CALL_OPEN}{{- '{' + ${extra ? `${extra} + ` : ''}'"name": ' + (fn.name | tojson) + ', "${key}": ' -}}${ARGS_JSON}{{- '}' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}${EACH_CALL_CLOSE}${out(close)}`;
}

const CHATML: Pick<Dialect, 'system' | 'user' | 'assistant' | 'tool' | 'generation'> = {
  system: ['<|im_start|>system\n', '<|im_end|>\n'],
  user: ['<|im_start|>{role}\n', '<|im_end|>\n'],
  assistant: ['<|im_start|>assistant\n', '<|im_end|>\n'],
  tool: ['<|im_start|>tool\n', '<|im_end|>\n'],
  generation: '<|im_start|>assistant\n',
};
const LLAMA3: Pick<Dialect, 'bos' | 'system' | 'user' | 'assistant' | 'tool' | 'generation'> = {
  bos: '<|begin_of_text|>',
  system: ['<|start_header_id|>system<|end_header_id|>\n\n', '<|eot_id|>'],
  user: ['<|start_header_id|>{role}<|end_header_id|>\n\n', '<|eot_id|>'],
  assistant: ['<|start_header_id|>assistant<|end_header_id|>\n\n', '<|eot_id|>'],
  tool: ['<|start_header_id|>ipython<|end_header_id|>\n\n', '<|eot_id|>'],
  generation: '<|start_header_id|>assistant<|end_header_id|>\n\n',
};
const DEEPSEEK: Pick<Dialect, 'bos' | 'system' | 'user' | 'assistant' | 'tool' | 'generation'> = {
  bos: '<｜begin▁of▁sentence｜>',
  system: ['', '\n\n'],
  user: ['<｜User｜>', ''],
  assistant: ['<｜Assistant｜>', '<｜end▁of▁sentence｜>'],
  tool: ['<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>', '<｜tool▁output▁end｜><｜tool▁outputs▁end｜>'],
  generation: '<｜Assistant｜>',
};

const D = '｜DSML｜';

const DIALECTS: Partial<Record<Family, Dialect>> = {
  qwen3_xml: {
    ...CHATML,
    calls: kvCalls(
      `{{- '<tool_call>\\n<function=' + fn.name + '>\\n' -}}`,
      `{{- '<parameter=' + k + '>\\n' -}}{{- textval(v) -}}{{- '\\n</parameter>\\n' -}}`,
      `{{- '</function>\\n</tool_call>' -}}`,
      '\n',
    ),
    howTo: 'To call a function, write the XML below (one <tool_call> block per call, one <parameter> per argument):',
  },
  llama_pythonic: {
    ...LLAMA3,
    calls: `${out('[')}${EACH_CALL_OPEN}{{- fn.name + '(' -}}{%- if args is mapping -%}{%- for k, v in args.items() -%}{{- k + '=' -}}{{- pyval(v) -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}{%- endfor -%}{%- else -%}{{- args -}}{%- endif -%}{{- ')' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}${EACH_CALL_CLOSE}${out(']')}`,
    howTo: 'To call functions, reply with only a Python list of calls with keyword arguments, like:',
  },
  granite: {
    bos: '',
    system: ['<|start_of_role|>system<|end_of_role|>', '<|end_of_text|>\n'],
    user: ['<|start_of_role|>{role}<|end_of_role|>', '<|end_of_text|>\n'],
    assistant: ['<|start_of_role|>assistant<|end_of_role|>', '<|end_of_text|>\n'],
    tool: ['<|start_of_role|>tool_response<|end_of_role|>', '<|end_of_text|>\n'],
    generation: '<|start_of_role|>assistant<|end_of_role|>',
    calls: jsonListCalls('<|tool_call|>[', ']'),
    howTo: 'To call functions, write <|tool_call|> followed by a JSON list of calls:',
  },
  gemma4: {
    bos: '<bos>',
    system: ['<|turn>system\n', '<turn|>\n'],
    user: ['<|turn>user\n', '<turn|>\n'],
    assistant: ['<|turn>model\n', '<turn|>\n'],
    tool: ['<|turn>user\n<|tool_response>', '<tool_response|><turn|>\n'],
    generation: '<|turn>model\n',
    calls: `${EACH_CALL_OPEN}{{- '<|tool_call>call:' + fn.name -}}{%- if args is mapping -%}{{- gemval(args) -}}{%- else -%}{{- args -}}{%- endif -%}{{- '<tool_call|>' -}}${EACH_CALL_CLOSE}`,
    howTo: 'To call a function, write:',
  },
  deepseek: {
    ...DEEPSEEK,
    calls: `${out('<｜tool▁calls▁begin｜>')}${EACH_CALL_OPEN}{{- '<｜tool▁call▁begin｜>' + fn.name + '<｜tool▁sep｜>' -}}${ARGS_JSON}{{- '<｜tool▁call▁end｜>' -}}${EACH_CALL_CLOSE}${out('<｜tool▁calls▁end｜>')}`,
    howTo: 'To call functions, write:',
  },
  functionary: {
    ...LLAMA3,
    generation: '<|start_header_id|>assistant<|end_header_id|>\n\n>>>',
    assistant: ['<|start_header_id|>assistant<|end_header_id|>\n\n', '<|eot_id|>'],
    calls: `${EACH_CALL_OPEN}{{- '>>>' + fn.name + '\\n' -}}${ARGS_JSON}${EACH_CALL_CLOSE}`,
    howTo: 'Address each function call to its recipient, then write its JSON arguments:',
  },
  gpt_oss: {
    system: ['<|start|>developer<|message|>', '<|end|>'],
    user: ['<|start|>{role}<|message|>', '<|end|>'],
    assistant: ['<|start|>assistant<|channel|>final<|message|>', '<|end|>'],
    tool: ['<|start|>functions.tool to=assistant<|channel|>commentary<|message|>', '<|end|>'],
    generation: '<|start|>assistant',
    calls: `${EACH_CALL_OPEN}{{- '<|start|>assistant to=functions.' + fn.name + '<|channel|>commentary json<|message|>' -}}${ARGS_JSON}{{- '<|call|>' -}}${EACH_CALL_CLOSE}`,
    howTo: 'Call a function by addressing a commentary message to functions.NAME with JSON arguments:',
  },
  glm: {
    bos: '[gMASK]<sop>',
    system: ['<|system|>\n', ''],
    user: ['<|{role}|>\n', ''],
    assistant: ['<|assistant|>\n', ''],
    tool: ['<|observation|>\n<tool_response>\n', '\n</tool_response>'],
    generation: '<|assistant|>\n',
    calls: kvCalls(
      `{{- '<tool_call>' + fn.name + '\\n' -}}`,
      `{{- '<arg_key>' + k + '</arg_key>\\n<arg_value>' -}}{{- textval(v) -}}{{- '</arg_value>\\n' -}}`,
      `{{- '</tool_call>' -}}`,
      '\n',
    ),
    howTo: 'For each function call, write the name and the arguments in this XML format:',
  },
  kimi_k2: {
    system: ['<|im_system|>system<|im_middle|>', '<|im_end|>'],
    user: ['<|im_user|>{role}<|im_middle|>', '<|im_end|>'],
    assistant: ['<|im_assistant|>assistant<|im_middle|>', '<|im_end|>'],
    tool: ['<|im_system|>tool<|im_middle|>', '<|im_end|>'],
    generation: '<|im_assistant|>assistant<|im_middle|>',
    calls: `${out('<|tool_calls_section_begin|>')}${EACH_CALL_OPEN}{{- '<|tool_call_begin|>functions.' + fn.name + ':' + (loop.index0 | string) + '<|tool_call_argument_begin|>' -}}${ARGS_JSON}{{- '<|tool_call_end|>' -}}${EACH_CALL_CLOSE}${out('<|tool_calls_section_end|>')}`,
    howTo: 'To call functions, write a tool-calls section:',
  },
  deepseek_dsml: {
    ...DEEPSEEK,
    tool: ['<function_results>\n', '\n</function_results>'],
    calls: `${out(`\n\n<${D}function_calls>\n`)}${kvCalls(
      `{{- '<${D}invoke name="' + fn.name + '">\\n' -}}`,
      `{%- if v is string -%}{{- '<${D}parameter name="' + k + '" string="true">' + v -}}{%- else -%}{{- '<${D}parameter name="' + k + '" string="false">' + (v | tojson) -}}{%- endif -%}{{- '</${D}parameter>\\n' -}}`,
      `{{- '</${D}invoke>\\n' -}}`,
    )}${out(`</${D}function_calls>`)}`,
    howTo: 'You can invoke functions by writing a block like:',
  },
  minimax: {
    system: [']~!b[]~b]system\n', '[e~[\n'],
    user: [']~b]{role}\n', '[e~[\n'],
    assistant: [']~b]ai\n', '[e~[\n'],
    tool: [']~b]tool\n<response>', '</response>[e~[\n'],
    generation: ']~b]ai\n',
    calls: `${out('<minimax:tool_call>\n')}${kvCalls(`{{- '<invoke name="' + fn.name + '">\\n' -}}`, `{{- '<parameter name="' + k + '">' -}}{{- textval(v) -}}{{- '</parameter>\\n' -}}`, `{{- '</invoke>\\n' -}}`)}${out('</minimax:tool_call>')}`,
    howTo: 'When making tool calls, use this XML format:',
  },
  seed_oss: {
    system: ['<seed:bos>system\n', '<seed:eos>'],
    user: ['<seed:bos>{role}\n', '<seed:eos>'],
    assistant: ['<seed:bos>assistant\n', '<seed:eos>'],
    tool: ['<seed:bos>tool\n', '<seed:eos>'],
    generation: '<seed:bos>assistant\n',
    calls: kvCalls(
      `{{- '<seed:tool_call>\\n<function=' + fn.name + '>\\n' -}}`,
      `{{- '<parameter=' + k + '>' -}}{{- textval(v) -}}{{- '</parameter>\\n' -}}`,
      `{{- '</function>\\n</seed:tool_call>' -}}`,
      '\n',
    ),
    howTo: 'Write function calls in this format:',
  },
  lfm2: {
    bos: '<|startoftext|>',
    ...CHATML,
    tool: ['<|im_start|>tool\n<|tool_response_start|>', '<|tool_response_end|><|im_end|>\n'],
    toolsOpen: 'List of tools: <|tool_list_start|>[',
    toolsClose: ']<|tool_list_end|>',
    calls: `${out('<|tool_call_start|>[')}${EACH_CALL_OPEN}{{- fn.name + '(' -}}{%- if args is mapping -%}{%- for k, v in args.items() -%}{{- k + '=' -}}{{- pyval(v) -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}{%- endfor -%}{%- else -%}{{- args -}}{%- endif -%}{{- ')' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}${EACH_CALL_CLOSE}${out(']<|tool_call_end|>')}`,
    howTo: 'To call tools, write a Python list of calls between <|tool_call_start|> and <|tool_call_end|>:',
  },
  apertus: {
    system: ['<|system_start|>', '<|system_end|>'],
    user: ['<|user_start|>', '<|user_end|>'],
    assistant: ['<|assistant_start|>', '<|assistant_end|>'],
    tool: ['<|tools_prefix|>', '<|tools_suffix|>'],
    generation: '<|assistant_start|>',
    calls: `${out('<|tools_prefix|>[')}${EACH_CALL_OPEN}{{- '{' + (fn.name | tojson) + ': ' -}}${ARGS_JSON}{{- '}' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}${EACH_CALL_CLOSE}${out(']<|tools_suffix|>')}`,
    howTo: 'To call functions, write a JSON list with one {"function name": arguments} object per call:',
  },
  minicpm: {
    ...CHATML,
    calls: kvCalls(
      `{{- '<function name="' + fn.name + '">' -}}`,
      `{%- set s = textval(v) -%}{{- '<param name="' + k + '">' -}}{%- if '<' in s or '&' in s or '\\n' in s -%}{{- '<![CDATA[' + s + ']]>' -}}{%- else -%}{{- s -}}{%- endif -%}{{- '</param>' -}}`,
      `{{- '</function>' -}}`,
      '\n',
    ),
    howTo: 'To call a function, write:',
  },
  command_r: {
    bos: '<BOS_TOKEN>',
    system: ['<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>', '<|END_OF_TURN_TOKEN|>'],
    user: ['<|START_OF_TURN_TOKEN|><|USER_TOKEN|>', '<|END_OF_TURN_TOKEN|>'],
    assistant: ['<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>', '<|END_OF_TURN_TOKEN|>'],
    tool: ['<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|><|START_TOOL_RESULT|>', '<|END_TOOL_RESULT|><|END_OF_TURN_TOKEN|>'],
    generation: '<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>',
    calls: `${out('<|START_ACTION|>[')}${EACH_CALL_OPEN}{{- '{"tool_call_id": "' + (loop.index0 | string) + '", "tool_name": ' + (fn.name | tojson) + ', "parameters": ' -}}${ARGS_JSON}{{- '}' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}${EACH_CALL_CLOSE}${out(']<|END_ACTION|>')}`,
    howTo: 'To use tools, write <|START_ACTION|> followed by a JSON list of actions and <|END_ACTION|>:',
  },
  nemotron: {
    system: ['<extra_id_0>System\n', '\n'],
    user: ['<extra_id_1>User\n', '\n'],
    assistant: ['<extra_id_1>Assistant\n', '\n'],
    tool: ['<extra_id_1>Tool\n<TOOL_RESPONSE>', '</TOOL_RESPONSE>\n'],
    generation: '<extra_id_1>Assistant\n',
    calls: jsonListCalls('<TOOLCALL>[', ']</TOOLCALL>'),
    howTo: 'To call functions, write a JSON list between <TOOLCALL> and </TOOLCALL>:',
  },
  xlam: {
    ...CHATML,
    calls: jsonListCalls('[', ']'),
    howTo: 'To call functions, reply with only a JSON list of calls:',
  },
  firefunction: {
    ...LLAMA3,
    calls: jsonListCalls(' functools[', ']'),
    howTo: 'Prefix function calls with functools and write them as one JSON list:',
  },
  phi4_mini: {
    system: ['<|system|>', '<|end|>'],
    user: ['<|{role}|>', '<|end|>'],
    assistant: ['<|assistant|>', '<|end|>'],
    tool: ['<|tool_response|>', '<|end|>'],
    generation: '<|assistant|>',
    toolsOpen: '<|tool|>[',
    toolsClose: ']<|/tool|>',
    calls: `${EACH_CALL_OPEN}{{- '<|tool_call|>{"name": ' + (fn.name | tojson) + ', "arguments": ' -}}${ARGS_JSON}{{- '}<|/tool_call|>' -}}${EACH_CALL_CLOSE}`,
    howTo: 'To use a tool, respond in this format:',
  },
  jamba: {
    bos: '<|startoftext|>',
    system: ['<|bom|><|system|> ', '<|eom|>'],
    user: ['<|bom|><|{role}|> ', '<|eom|>'],
    assistant: ['<|bom|><|assistant|> ', '<|eom|>'],
    tool: ['<|bom|><|tool|> ', '<|eom|>'],
    generation: '<|bom|><|assistant|> ',
    calls: jsonListCalls('<tool_calls>[', ']</tool_calls>'),
    howTo: 'To call tools, write a JSON list between <tool_calls> and </tool_calls>:',
  },
  internlm: {
    ...CHATML,
    tool: ['<|im_start|>environment name=<|plugin|>\n', '<|im_end|>\n'],
    calls: `${EACH_CALL_OPEN}{{- '<|action_start|><|plugin|>\\n{"name": ' + (fn.name | tojson) + ', "parameters": ' -}}${ARGS_JSON}{{- '}<|action_end|>' -}}{%- if not loop.last -%}{{- '\\n' -}}{%- endif -%}${EACH_CALL_CLOSE}`,
    howTo: 'To call a plugin, write:',
  },
};

/** Families with a hand-written file. */
const FILES: Partial<Record<Family | 'generic', string>> = {
  hermes: 'hermes.jinja',
  llama_json: 'llama3.jinja',
  mistral: 'mistral.jinja',
  generic: 'generic.jinja',
};

const EXAMPLE = [{ name: 'function_name', arguments: { argument_name: 'value' } }];

function build(family: Family, d: Dialect): string {
  const turn = (pair: [string, string], role = false) =>
    role ? [lit(pair[0]).replace('{role}', "' + message.role + '"), lit(pair[1])] : [lit(pair[0]), lit(pair[1])];
  const [sysOpen, sysClose] = turn(d.system);
  const [userOpen, userClose] = turn(d.user, true);
  const [astOpen, astClose] = turn(d.assistant);
  const [toolOpen, toolClose] = turn(d.tool);
  const example = renderToolCalls(EXAMPLE, family);
  return `{#- toolgauge reference template (${family}): self-written for counterfactual checks. Renders every tool, writes prior
    calls in the ${family} format, keeps them in every message shape, accepts any role order, injects no date. -#}
${MACROS}
{%- if messages and messages[0].role == 'system' -%}
    {%- set system_text = messages[0].content -%}
    {%- set rest = messages[1:] -%}
{%- else -%}
    {%- set system_text = '' -%}
    {%- set rest = messages -%}
{%- endif -%}
${d.bos ? out(d.bos) : ''}
{%- if system_text or tools -%}
    {{- ${sysOpen} -}}
    {%- if system_text -%}
        {{- system_text -}}
        {%- if tools -%}{{- '\\n\\n' -}}{%- endif -%}
    {%- endif -%}
    {%- if tools -%}
        {{- ${lit(`You can call the functions below. ${d.toolsOpen ?? 'The available functions, as JSON schemas:'}`)} -}}
        {%- for tool in tools -%}
            {{- ${d.toolsOpen ? "('' if loop.first else ', ')" : "'\\n'"} + (tool | tojson) -}}
        {%- endfor -%}
        {{- ${lit(`${d.toolsClose ?? ''}\n\n${d.howTo}\n${example}`)} -}}
    {%- endif -%}
    {{- ${sysClose} -}}
{%- endif -%}
{%- for message in rest -%}
    {%- if message.role == 'assistant' -%}
        {{- ${astOpen} -}}
        {%- if message.content -%}
            {{- message.content -}}
        {%- endif -%}
        {%- if message.tool_calls -%}
            ${d.calls}
        {%- endif -%}
        {{- ${astClose} -}}
    {%- elif message.role == 'tool' -%}
        {{- ${toolOpen} + (message.content | string) + ${toolClose} -}}
    {%- else -%}
        {{- ${userOpen} + (message.content | string) + ${userClose} -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- ${lit(d.generation)} -}}
{%- endif -%}
`;
}

const cache = new Map<string, string>();

/** The families (plus `generic`) that have a reference template: all of them. */
export const REFERENCE_FAMILIES: ReadonlyArray<Family | 'generic'> = [...FAMILIES, 'generic'];
export type ReferenceFamily = Family | 'generic';

/** Old names still accepted (probe configs and tests use them). */
const ALIASES: Record<string, ReferenceFamily> = {
  qwen: 'hermes',
  'qwen2.5': 'hermes',
  qwen2: 'hermes',
  llama3: 'llama_json',
  'llama3.1': 'llama_json',
  'llama3.2': 'llama_json',
  llama: 'llama_json',
};

/** The reference template of a family (or alias), or null for an unknown name. */
export function referenceTemplate(family: string): string | null {
  const key = (ALIASES[family.toLowerCase()] ?? family.toLowerCase()) as ReferenceFamily;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let text: string | null = null;
  const file = FILES[key];
  if (file) text = readFileSync(new URL(`./reference/${file}`, import.meta.url), 'utf8');
  else if (key !== 'generic' && DIALECTS[key]) text = build(key, DIALECTS[key]);
  if (text !== null) cache.set(key, text);
  return text;
}

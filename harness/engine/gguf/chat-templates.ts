// The chat templates test models carry (`tokenizer.chat_template`), with the special tokens each needs.
// Real Jinja that renders `tools`: the server and the probe render them exactly as they would a real model's.

export interface TestTemplate {
  /** Jinja text written to `tokenizer.chat_template`. */
  jinja: string;
  /** `tokenizer.ggml.pre`: llama.cpp's pre-tokenizer for the vocabulary. */
  pre: string;
  /** Special tokens typed CONTROL (chat structure, end of generation). */
  control: string[];
  /** Special tokens typed USER_DEFINED (text-level markers such as `<tool_call>`). */
  userDefined: string[];
  bos: string;
  eos: string;
  /** llama.cpp prepends BOS when tokenizing; false when the template writes it itself or the family has none. */
  addBos: boolean;
}

/** ChatML with Hermes/Qwen2.5-style tool calls: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`. */
const HERMES = String.raw`{#- toolgauge test-model template: ChatML with Hermes/Qwen2.5-style tool calls (<tool_call>{json}</tool_call>). -#}
{%- if messages and messages[0].role == 'system' -%}
    {%- set system_text = messages[0].content -%}
    {%- set rest = messages[1:] -%}
{%- else -%}
    {%- set system_text = '' -%}
    {%- set rest = messages -%}
{%- endif -%}
{%- if tools -%}
    {{- '<|im_start|>system\n' -}}
    {%- if system_text -%}
        {{- system_text + '\n\n' -}}
    {%- endif -%}
    {{- 'You can call functions to help with the request. The available functions are listed as JSON inside <tools></tools>:\n<tools>' -}}
    {%- for tool in tools -%}
        {{- '\n' + (tool | tojson) -}}
    {%- endfor -%}
    {{- '\n</tools>\n\nTo call a function, write one JSON object per call inside <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <arguments-object>}\n</tool_call><|im_end|>\n' -}}
{%- elif system_text -%}
    {{- '<|im_start|>system\n' + system_text + '<|im_end|>\n' -}}
{%- endif -%}
{%- for message in rest -%}
    {%- if message.role == 'assistant' -%}
        {{- '<|im_start|>assistant' -}}
        {%- if message.content -%}
            {{- '\n' + message.content -}}
        {%- endif -%}
        {%- for call in message.tool_calls or [] -%}
            {%- set fn = call.function if call.function is defined else call -%}
            {{- '\n<tool_call>\n{"name": "' + fn.name + '", "arguments": ' -}}
            {%- if fn.arguments is string -%}
                {{- fn.arguments -}}
            {%- else -%}
                {{- fn.arguments | tojson -}}
            {%- endif -%}
            {{- '}\n</tool_call>' -}}
        {%- endfor -%}
        {{- '<|im_end|>\n' -}}
    {%- elif message.role == 'tool' -%}
        {%- if loop.first or loop.previtem.role != 'tool' -%}
            {{- '<|im_start|>user' -}}
        {%- endif -%}
        {{- '\n<tool_response>\n' + (message.content | string) + '\n</tool_response>' -}}
        {%- if loop.last or loop.nextitem.role != 'tool' -%}
            {{- '<|im_end|>\n' -}}
        {%- endif -%}
    {%- else -%}
        {{- '<|im_start|>' + message.role + '\n' + (message.content | string) + '<|im_end|>\n' -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- '<|im_start|>assistant\n' -}}
{%- endif -%}
`;

/** Llama 3.x headers with JSON tool calls (`{"name": …, "parameters": …}`) and `ipython` tool results. */
const LLAMA3 = String.raw`{#- toolgauge test-model template: Llama 3.x headers with JSON tool calls ({"name": …, "parameters": …}). -#}
{{- bos_token -}}
{%- if messages and messages[0].role == 'system' -%}
    {%- set system_text = messages[0].content -%}
    {%- set rest = messages[1:] -%}
{%- else -%}
    {%- set system_text = '' -%}
    {%- set rest = messages -%}
{%- endif -%}
{%- if tools or system_text -%}
    {{- '<|start_header_id|>system<|end_header_id|>\n\n' -}}
    {%- if tools -%}
        {{- 'Environment: ipython\n\n' -}}
        {{- 'You have access to the functions below. To call one, reply with only a JSON object of the form {"name": function name, "parameters": dictionary of argument names and their values}.\n\n' -}}
        {%- for tool in tools -%}
            {{- (tool | tojson(indent=4)) + '\n\n' -}}
        {%- endfor -%}
    {%- endif -%}
    {{- system_text -}}
    {{- '<|eot_id|>' -}}
{%- endif -%}
{%- for message in rest -%}
    {%- if message.role == 'assistant' and message.tool_calls -%}
        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
        {%- if message.content -%}
            {{- message.content + '\n' -}}
        {%- endif -%}
        {%- for call in message.tool_calls -%}
            {%- set fn = call.function if call.function is defined else call -%}
            {{- '{"name": "' + fn.name + '", "parameters": ' -}}
            {%- if fn.arguments is string -%}
                {{- fn.arguments -}}
            {%- else -%}
                {{- fn.arguments | tojson -}}
            {%- endif -%}
            {{- '}' -}}
            {%- if not loop.last -%}
                {{- '\n' -}}
            {%- endif -%}
        {%- endfor -%}
        {{- '<|eot_id|>' -}}
    {%- elif message.role == 'tool' -%}
        {{- '<|start_header_id|>ipython<|end_header_id|>\n\n' + (message.content | string) + '<|eot_id|>' -}}
    {%- else -%}
        {{- '<|start_header_id|>' + message.role + '<|end_header_id|>\n\n' + (message.content | string) + '<|eot_id|>' -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
{%- endif -%}
`;

export const TEST_TEMPLATES = {
  hermes: {
    jinja: HERMES,
    pre: 'qwen2',
    control: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'],
    userDefined: ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<tools>', '</tools>'],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    addBos: false,
  },
  llama3: {
    jinja: LLAMA3,
    pre: 'llama-bpe',
    control: [
      '<|begin_of_text|>',
      '<|end_of_text|>',
      '<|start_header_id|>',
      '<|end_header_id|>',
      '<|eot_id|>',
      '<|eom_id|>',
      '<|python_tag|>',
    ],
    userDefined: [],
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    addBos: false,
  },
} as const satisfies Record<string, TestTemplate>;

export type TestTemplateName = keyof typeof TEST_TEMPLATES;
export const TEST_TEMPLATE_NAMES = Object.keys(TEST_TEMPLATES) as TestTemplateName[];

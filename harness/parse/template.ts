/**
 * Guess a model's tool-call family from its chat template source (or a prompt rendered with it), by the markers
 * it writes or describes. A fallback: harness/templates detects the family from what the template renders
 * (detectTemplateFamily) and uses this only when nothing renders. Checked most specific first: Gemma 4's
 * `<|tool_call>`, Phi-4-mini's `<|tool_call|>…<|/tool_call|>` and Granite's `<|tool_call|>` share a prefix;
 * GLM, Qwen3.5's XML and Hermes all write `<tool_call>`; Functionary v3.1 also mentions `<|python_tag|>`.
 */
import type { Family } from './types.ts';

const RULES: Array<[Family, (t: string) => boolean]> = [
  ['gpt_oss', (t) => t.includes('<|channel|>') && t.includes('functions.')],
  ['kimi_k2', (t) => t.includes('tool_calls_section_begin') || t.includes('tool_call_begin')],
  ['deepseek_dsml', (t) => t.includes('DSML')],
  ['deepseek', (t) => /tool▁calls?▁begin/.test(t)],
  ['minimax', (t) => t.includes('minimax:tool_call')],
  ['seed_oss', (t) => t.includes('seed:tool_call')],
  ['lfm2', (t) => t.includes('tool_call_start') || t.includes('tool_list_start')],
  ['apertus', (t) => t.includes('tools_prefix')],
  ['command_r', (t) => t.includes('START_ACTION') || (t.includes('Action:') && t.includes('tool_name'))],
  ['nemotron', (t) => t.includes('<TOOLCALL>')],
  ['internlm', (t) => t.includes('action_start')],
  ['jamba', (t) => t.includes('<tool_calls>')],
  ['gemma4', (t) => t.includes('<|tool_call>') || t.includes('<tool_call|>') || t.includes('<|"|>')],
  ['phi4_mini', (t) => t.includes('<|/tool_call|>')],
  ['granite', (t) => t.includes('<|tool_call|>')],
  ['mistral', (t) => t.includes('[TOOL_CALLS]')],
  ['glm', (t) => t.includes('<arg_key>')],
  ['qwen3_xml', (t) => t.includes('<function=') && t.includes('<parameter=')],
  ['minicpm', (t) => /<function name=/.test(t) && t.includes('<param name=')],
  ['functionary', (t) => (t.includes('>>>') && /recipient|>>>all/.test(t)) || t.includes('<function=')],
  ['firefunction', (t) => t.includes('functools[')],
  ['hermes', (t) => t.includes('<tool_call>')],
  ['llama_pythonic', (t) => t.includes('<|python_start|>') || /\[func_name1\(|\[func_name\(|func_name1\(param/.test(t)],
  ['llama_json', (t) => t.includes('<|python_tag|>') || /"parameters": dictionary of argument name/.test(t)],
];

export function familyOfTemplate(templateSource: string): Family | null {
  for (const [family, test] of RULES) if (test(templateSource)) return family;
  return null;
}

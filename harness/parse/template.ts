/**
 * Guess a model's tool-call family from its chat template source, by the markers the template writes or
 * describes. Checked most specific first: Gemma 4's `<|tool_call>` and Granite's `<|tool_call|>` share a
 * prefix, Qwen3.5's XML template also contains `<tool_call>`, Functionary v3.1 also mentions `<|python_tag|>`.
 */
import type { Family } from './types.ts';

const RULES: Array<[Family, (t: string) => boolean]> = [
  ['deepseek', (t) => /tool▁calls?▁begin/.test(t)],
  ['gemma4', (t) => t.includes('<|tool_call>') || t.includes('<tool_call|>') || t.includes('<|"|>')],
  ['granite', (t) => t.includes('<|tool_call|>')],
  ['mistral', (t) => t.includes('[TOOL_CALLS]')],
  ['qwen3_xml', (t) => t.includes('<function=') && t.includes('<parameter=')],
  ['functionary', (t) => (t.includes('>>>') && /recipient|>>>all/.test(t)) || t.includes('<function=')],
  ['hermes', (t) => t.includes('<tool_call>')],
  [
    'llama_pythonic',
    (t) => t.includes('<|python_start|>') || /\[func_name1\(|\[func_name\(|func_name1\(param/.test(t),
  ],
  ['llama_json', (t) => t.includes('<|python_tag|>') || /"parameters": dictionary of argument name/.test(t)],
];

export function familyOfTemplate(templateSource: string): Family | null {
  for (const [family, test] of RULES) if (test(templateSource)) return family;
  return null;
}

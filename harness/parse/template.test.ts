import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { familyOfTemplate } from './index.ts';

const DIR = fileURLToPath(new URL('../../../shared/data/templates/', import.meta.url));

describe.skipIf(!existsSync(DIR))('familyOfTemplate on the real chat templates (needs ../shared/data)', () => {
  const expected: Record<string, string> = {
    'DeepSeek-V3.1.jinja': 'deepseek',
    'Hermes-2-Pro-Llama-3-8B.tool_use.jinja': 'hermes',
    'Llama-3.1-8B-Instruct.jinja': 'llama_json',
    'Llama-3.2-3B-Instruct.jinja': 'llama_json',
    'Mistral-Nemo-Instruct-2407.jinja': 'mistral',
    'Qwen2.5-7B-Instruct.jinja': 'hermes',
    'Qwen3-0.6B.jinja': 'hermes',
    'functionary-medium-v3.2.jinja': 'functionary',
  };
  for (const [file, family] of Object.entries(expected)) {
    it(`${file} → ${family}`, () => {
      expect(familyOfTemplate(readFileSync(DIR + file, 'utf8'))).toBe(family);
    });
  }
});

describe('familyOfTemplate on marker snippets', () => {
  const cases: Array<[string, string | null]> = [
    ['{{- "<|tool_call>call:" + name + "{" }}…{{- "<tool_call|>" }}', 'gemma4'],
    ['{{- "<|tool_call|>" + tool_calls | tojson }}', 'granite'],
    [
      '<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>',
      'qwen3_xml',
    ],
    ['{{- "<tool_call>\\n" + tool_call | tojson + "\\n</tool_call>" }}', 'hermes'],
    ['Use the format [func_name1(params_name1=params_value1, params_name2=params_value2...)]', 'llama_pythonic'],
    ['{{- "<|python_start|>" }}', 'llama_pythonic'],
    ['{{- "<function=" + tool.name + ">" + args + "</function>" }}', 'functionary'],
    ['{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}', null],
  ];
  for (const [src, family] of cases) {
    it(`${JSON.stringify(src).slice(0, 50)} → ${family}`, () => expect(familyOfTemplate(src)).toBe(family));
  }
});

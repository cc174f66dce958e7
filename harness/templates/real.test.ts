import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { checkTemplate, type TemplateCheck } from './check.ts';
import { detectTemplateFamily } from './family.ts';

// Real templates (fixtures/templates, see PROVENANCE.md; ../shared/data/templates; TOOLGAUGE_EXTRA_TEMPLATES):
// which family each writes, and the findings the checker must (and must not) report on them.
const STORED = fromRoot('fixtures', 'templates');
const SHARED = fromRoot('..', 'shared', 'data', 'templates');
const EXTRA = process.env.TOOLGAUGE_EXTRA_TEMPLATES;

function locate(file: string): string | null {
  for (const dir of [STORED, SHARED, EXTRA]) if (dir && existsSync(join(dir, file))) return join(dir, file);
  return null;
}
const read = (file: string) => readFileSync(locate(file)!, 'utf8');

/** template file → the family it writes, and whether it is read back from a rendered call (else markers) */
const FAMILY: Array<[string, string | null, 'rendered' | 'markers' | 'none']> = [
  ['Qwen3-Coder.jinja', 'qwen3_xml', 'rendered'],
  ['Qwen-QwQ-32B.jinja', 'hermes', 'rendered'],
  ['GLM-4.6.jinja', 'glm', 'rendered'],
  ['moonshotai-Kimi-K2.jinja', 'kimi_k2', 'rendered'],
  ['Kimi-K2-Instruct.jinja', 'kimi_k2', 'markers'], // its history path raises in jinja2's sandbox (list.append)
  ['Kimi-K2-Thinking.jinja', 'kimi_k2', 'markers'],
  ['deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja', 'deepseek', 'rendered'],
  ['deepseek-ai-DeepSeek-V3.2.jinja', 'deepseek_dsml', 'rendered'],
  ['ByteDance-Seed-OSS.jinja', 'seed_oss', 'rendered'],
  ['openai-gpt-oss-120b.jinja', 'gpt_oss', 'rendered'],
  ['MiniMax-M2.jinja', 'minimax', 'rendered'],
  ['ibm-granite-granite-3.3-2B-Instruct.jinja', 'granite', 'markers'], // drops prior calls: nothing to read back
  ['ibm-granite-granite-4.0.jinja', 'hermes', 'rendered'], // Granite 4 writes Hermes blocks
  ['Apertus-8B-Instruct.jinja', 'apertus', 'rendered'],
  ['Mistral-Small-3.2-24B-Instruct-2506.jinja', 'mistral', 'rendered'],
  ['mistralai-Mistral-Small-3.1-24B-Instruct-2503.jinja', 'mistral', 'rendered'],
  ['meetkai-functionary-medium-v3.1.jinja', 'functionary', 'rendered'],
  ['llama-cpp-microsoft-Phi-4-mini-instruct.jinja', 'phi4_mini', 'rendered'],
  ['llama-cpp-lfm2.jinja', 'lfm2', 'markers'], // LFM2's own template drops calls from the history
  ['llama-cpp-deepseek-r1.jinja', 'deepseek', 'markers'],
  ['HuggingFaceTB-SmolLM3-3B.jinja', null, 'none'],
  // ../shared/data
  ['Qwen3-0.6B.jinja', 'hermes', 'rendered'],
  ['Llama-3.1-8B-Instruct.jinja', 'llama_json', 'rendered'],
  ['functionary-medium-v3.2.jinja', 'functionary', 'rendered'],
  ['DeepSeek-V3.1.jinja', 'deepseek', 'rendered'],
  // TOOLGAUGE_EXTRA_TEMPLATES (licences keep them out of the repository)
  ['google-gemma-4-31B-it.jinja', 'gemma4', 'rendered'],
  ['LFM2.5-8B-A1B.jinja', 'lfm2', 'rendered'],
  ['Qwen3.5-4B.jinja', 'qwen3_xml', 'rendered'],
  ['NVIDIA-Nemotron-Nano-v2.jinja', 'nemotron', 'rendered'],
  ['NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja', 'qwen3_xml', 'rendered'],
  ['CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja', 'command_r', 'rendered'],
  ['GLM-4.7-Flash.jinja', 'glm', 'rendered'],
  ['fireworks-ai-llama-3-firefunction-v2.jinja', 'firefunction', 'markers'],
];

describe('family detection on real templates: by what they render', () => {
  for (const [file, family, how] of FAMILY) {
    it.skipIf(!locate(file))(
      `${file} → ${family ?? 'none'} (${how})${locate(file) ? '' : ' (template not present)'}`,
      () => {
        const d = detectTemplateFamily(read(file));
        expect(d.family).toBe(family);
        expect(d.how).toBe(how);
        if (family) expect(d.verified).toBe(true);
      },
    );
  }
});

const ids = (c: TemplateCheck) => c.findings.map((f) => f.id);
const detailOf = (c: TemplateCheck, id: string) =>
  c.findings
    .filter((f) => f.id === id)
    .map((f) => f.detail)
    .join('\n');

describe('template checks on real templates', () => {
  it('Seed-OSS: its int-keyed dict literal renders; its real failure is on string (JSON) arguments, a jinja2 TypeError', () => {
    const c = checkTemplate(read('ByteDance-Seed-OSS.jinja'));
    expect(c.engineLimitations).toEqual([]);
    expect(detailOf(c, 'raises_on_standard_shape')).toMatch(
      /string \(JSON\) arguments: error `TypeError: Can only get item pairs from a mapping/,
    );
    expect(detailOf(c, 'raises_on_standard_shape')).not.toMatch(/Object keys must be strings/);
    // only its persona sentence changes with a system message; the call-format instructions stay
    expect(ids(c)).not.toContain('system_prompt_drops_tool_instructions');
  });

  it('Qwen3-Coder: failing on string arguments is a template finding (jinja2 raises too), not an engine limitation', () => {
    const c = checkTemplate(read('Qwen3-Coder.jinja'));
    expect(c.engineLimitations).toEqual([]);
    expect(detailOf(c, 'raises_on_standard_shape')).toMatch(/string \(JSON\) arguments/);
    expect(ids(c)).not.toContain('system_prompt_drops_tool_instructions');
  });

  it('Mistral-Small-3.1: a backslash-newline inside a string literal parses (no template_unparseable)', () => {
    const c = checkTemplate(read('mistralai-Mistral-Small-3.1-24B-Instruct-2503.jinja'));
    expect(ids(c)).not.toContain('template_unparseable');
    expect(ids(c)).toContain('injected_date');
    expect(ids(c)).not.toContain('system_prompt_drops_tool_instructions');
  });

  it('Granite 3.3: a user system message does drop its call-format instruction, and that is reported', () => {
    const c = checkTemplate(read('ibm-granite-granite-3.3-2B-Instruct.jinja'));
    expect(detailOf(c, 'system_prompt_drops_tool_instructions')).toMatch(/JSON list of tools/);
  });

  it('Kimi-K2-Instruct: list.append on the history raises in the immutable sandbox: a finding, not an engine limitation', () => {
    const c = checkTemplate(read('Kimi-K2-Instruct.jinja'));
    expect(c.engineLimitations).toEqual([]);
    expect(detailOf(c, 'raises_on_standard_shape')).toMatch(/SecurityError: access to attribute 'append'/);
  });

  it.skipIf(!locate('Llama-3.1-8B-Instruct.jinja'))(
    'Llama-3.1: replacing the default persona is not reported (needs ../shared/data)',
    () => {
      const c = checkTemplate(read('Llama-3.1-8B-Instruct.jinja'));
      expect(ids(c)).not.toContain('system_prompt_drops_tool_instructions');
    },
  );

  it.skipIf(!locate('NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja'))(
    'Hermes-3: a parameter without description renders (undefined|trim is empty) (needs TOOLGAUGE_EXTRA_TEMPLATES)',
    () => {
      const c = checkTemplate(read('NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja'));
      expect(c.engineLimitations).toEqual([]);
    },
  );
});

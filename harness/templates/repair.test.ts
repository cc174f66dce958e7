import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkTemplate, type FindingId } from './check.ts';
import { detectFamily } from './family.ts';
import { REFERENCE_FAMILIES, referenceTemplate, repairTemplate } from './repair.ts';

const TEMPLATES = fileURLToPath(new URL('../../../shared/data/templates/', import.meta.url));
const real = (name: string): string => readFileSync(`${TEMPLATES}${name}.jinja`, 'utf8');
const isReference = (s: string | null): boolean => s !== null && s.startsWith('{#- toolgauge reference template');

function repaired(source: string): { before: FindingId[]; after: FindingId[]; fixed: string | null } {
  const before = checkTemplate(source).findings;
  const fixed = repairTemplate(source, before);
  return {
    before: before.map((f) => f.id),
    after: fixed === null ? [] : checkTemplate(fixed).findings.map((f) => f.id),
    fixed,
  };
}

describe('referenceTemplate', () => {
  it('has one template per supported family, detected as that family', () => {
    for (const family of REFERENCE_FAMILIES) {
      const t = referenceTemplate(family);
      expect(isReference(t), family).toBe(true);
      // the generic one has no family of its own (its CALL lines read as JSON calls)
      if (family !== 'generic') expect(detectFamily(t!), family).toBe(family);
    }
  });

  it('maps aliases and refuses unknown families', () => {
    expect(referenceTemplate('qwen2.5')).toBe(referenceTemplate('hermes'));
    expect(referenceTemplate('Llama3.1')).toBe(referenceTemplate('llama3'));
    expect(referenceTemplate('functionary')).toContain('>>>');
    expect(referenceTemplate('nope')).toBeNull();
  });
});

describe('repairTemplate', () => {
  const hermes = referenceTemplate('hermes')!;

  it('returns the source itself when there is nothing to repair', () => {
    expect(repairTemplate(hermes, [])).toBe(hermes);
  });

  it('removes a date injection in place (targeted repair)', () => {
    const dated = `{{- 'Today is ' + strftime_now('%d %B %Y') + ', or 26 Jul 2024.\\n' -}}${hermes}`;
    const r = repaired(dated);
    expect(r.before).toEqual(['injected_date']);
    expect(r.after).toEqual([]);
    expect(isReference(r.fixed)).toBe(false);
    expect(r.fixed).toContain("'Today is '");
  });

  it('un-doubles the braces of a format example in place', () => {
    for (const broken of [
      hermes.replace('{"name": <function-name>', '{{"name": <function-name>'),
      hermes.replace('<arguments-object>}', '<arguments-object>}}'),
    ]) {
      expect(broken).not.toBe(hermes);
      const r = repaired(broken);
      expect(r.before).toEqual(['doubled_braces']);
      expect(r.after).toEqual([]);
      expect(r.fixed).toBe(hermes);
    }
  });

  it('drops a raise_exception on a standard shape when that is enough', () => {
    const strict = `{%- for m in messages -%}{%- if not loop.first and m.role == 'user' and loop.previtem.role == 'user' -%}{{- raise_exception('roles must alternate') -}}{%- endif -%}{%- endfor -%}${hermes}`;
    const r = repaired(strict);
    expect(r.before).toEqual(['raises_on_standard_shape']);
    expect(r.after).toEqual([]);
    expect(isReference(r.fixed)).toBe(false);
  });

  it("falls back to the family's reference template when no targeted edit works", () => {
    const noCalls = hermes.replace(/\{%- for call in message\.tool_calls[\s\S]*?\{%- endfor -%\}/, '');
    expect(repaired(noCalls)).toMatchObject({ before: ['prior_tool_call_dropped'], after: [], fixed: hermes });
    const llama = referenceTemplate('llama3')!;
    expect(repaired(`${llama}{% if x %}`).fixed).toBe(llama);
  });

  it("uses the generic reference for an unknown format, and the family's own reference otherwise", () => {
    expect(
      repairTemplate('{{ messages[0].content }}', [
        { id: 'tools_not_rendered', detail: '', repro: { messages: [], addGenerationPrompt: true } },
      ]),
    ).toBe(referenceTemplate('generic'));
    expect(
      repairTemplate('>>>all {{ messages }}', [
        { id: 'tools_not_rendered', detail: '', repro: { messages: [], addGenerationPrompt: true } },
      ]),
    ).toBe(referenceTemplate('functionary'));
  });
});

describe.skipIf(!existsSync(TEMPLATES))('repairTemplate on real templates (needs ../shared/data)', () => {
  it.each([
    ['Llama-3.2-3B-Instruct', 'targeted'],
    ['Llama-3.1-8B-Instruct', 'targeted'],
    ['Hermes-2-Pro-Llama-3-8B.tool_use', 'targeted'],
    ['Mistral-Nemo-Instruct-2407', 'reference'],
    ['Qwen3-0.6B', 'reference'],
  ])('%s: %s repair, and the repaired template has no findings', (name, how) => {
    const r = repaired(real(name));
    expect(r.before.length).toBeGreaterThan(0);
    expect(r.fixed).not.toBeNull();
    expect(isReference(r.fixed)).toBe(how === 'reference');
    expect(r.after).toEqual([]);
  });

  it("DeepSeek and functionary are repaired with their own family's reference template", () => {
    expect(repaired(real('DeepSeek-V3.1')).fixed).toBe(referenceTemplate('deepseek'));
    expect(repaired(real('functionary-medium-v3.2')).fixed).toBe(referenceTemplate('functionary'));
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.ts';
import { DEFAULT_NOW, renderChat } from './render.ts';
import type { TemplateError } from './errors.ts';
import { PROBE_TOOL, PROBE_TOOL_PLAIN, standardHistory, userMessage, SYSTEM_PROMPT } from './fixtures.ts';
import { applyShape, SHAPES } from './shapes.ts';
import { referenceTemplate, REFERENCE_FAMILIES } from './reference.ts';
import type { ChatMessage, OpenAITool } from './types.ts';

// Differential test against Python's jinja2, configured as transformers renders chat templates
// (jinja2_render.py): wherever our engine renders, its text must equal jinja2's byte for byte; where it cannot
// render faithfully it must say so (engine_unsupported); a template that raises in Python must not render quietly
// here, and one that renders in Python must not raise here. No silent divergence.
//
// Real templates: fixtures/templates (redistributable, see PROVENANCE.md), ../shared/data/templates, and any
// folder named by TOOLGAUGE_EXTRA_TEMPLATES (templates whose licences keep them out of the repository).
const PYTHON = process.env.TOOLGAUGE_PYTHON ?? '/usr/bin/python3';
const ORACLE = fromRoot('harness', 'probe', 'templates', 'jinja2_render.py');
const hasJinja2 = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import jinja2'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const STORED = fromRoot('fixtures', 'templates');
const SHARED = fromRoot('..', 'shared', 'data', 'templates');
const EXTRA = process.env.TOOLGAUGE_EXTRA_TEMPLATES;

interface Case {
  name: string;
  template: string;
  messages: ChatMessage[];
  tools?: OpenAITool[];
}

function conversations(): Array<{ label: string; messages: ChatMessage[]; tools?: OpenAITool[] }> {
  const out: Array<{ label: string; messages: ChatMessage[]; tools?: OpenAITool[] }> = [
    { label: 'single turn, tools', messages: [userMessage()], tools: [PROBE_TOOL] },
    { label: 'system + single turn, tools', messages: [{ role: 'system', content: SYSTEM_PROMPT }, userMessage()], tools: [PROBE_TOOL] },
    { label: 'single turn, no tools', messages: [userMessage()] },
    { label: 'tool without descriptions', messages: [userMessage()], tools: [PROBE_TOOL_PLAIN] },
  ];
  for (const shape of SHAPES) out.push({ label: `history, ${JSON.stringify(shape)}`, messages: applyShape(standardHistory(), shape), tools: [PROBE_TOOL] });
  return out;
}

function pythonRender(cases: Case[]): Array<{ ok: boolean; text?: string; error?: string }> {
  const input = cases.map((c) => ({
    template: c.template,
    now: DEFAULT_NOW.toISOString(),
    vars: {
      messages: JSON.parse(JSON.stringify(c.messages)),
      ...(c.tools ? { tools: c.tools } : {}),
      add_generation_prompt: true,
      bos_token: '<s>',
      eos_token: '</s>',
      date_string: renderChat('{{ date_string }}', { messages: [] }),
    },
  }));
  return JSON.parse(execFileSync(PYTHON, [ORACLE], { input: JSON.stringify(input), maxBuffer: 64 * 2 ** 20 }).toString());
}

function compare(templates: Array<{ name: string; source: string }>) {
  const cases: Case[] = templates.flatMap((t) => conversations().map((c) => ({ name: `${t.name} · ${c.label}`, template: t.source, messages: c.messages, tools: c.tools })));
  const py = pythonRender(cases);
  const tally = { identical: 0, bothRaise: 0, engineUnsupported: 0 };
  const mismatches: string[] = [];
  cases.forEach((c, i) => {
    const p = py[i]!;
    let ours: { ok: true; text: string } | { ok: false; error: TemplateError };
    try {
      ours = { ok: true, text: renderChat(c.template, { messages: c.messages, tools: c.tools, addGenerationPrompt: true, bosToken: '<s>', eosToken: '</s>' }) };
    } catch (e) {
      ours = { ok: false, error: e as TemplateError };
    }
    if (!ours.ok && ours.error.kind === 'engine_unsupported') tally.engineUnsupported++;
    else if (ours.ok && p.ok) {
      if (ours.text === p.text) tally.identical++;
      else mismatches.push(`${c.name}: text differs at ${firstDiff(ours.text, p.text!)}`);
    } else if (!ours.ok && !p.ok) tally.bothRaise++;
    else mismatches.push(`${c.name}: ${ours.ok ? 'renders here' : `fails here (${ours.error.kind}: ${ours.error.message.slice(0, 80)})`} but jinja2 ${p.ok ? 'renders' : `raises ${p.error!.slice(0, 80)}`}`);
  });
  return { tally, mismatches, total: cases.length };
}

function firstDiff(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `${i}: ours ${JSON.stringify(a.slice(i, i + 40))} vs jinja2 ${JSON.stringify(b.slice(i, i + 40))}`;
}

function templatesIn(dir: string | undefined): Array<{ name: string; source: string }> {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jinja'))
    .sort()
    .map((f) => ({ name: f, source: readFileSync(join(dir, f), 'utf8') }));
}

describe.skipIf(!hasJinja2)(`templates render exactly as Python's jinja2 (${PYTHON} with jinja2)`, () => {
  it('the reference templates of every family: identical text for every conversation and message shape', () => {
    const r = compare(REFERENCE_FAMILIES.map((f) => ({ name: `reference/${f}`, source: referenceTemplate(f)! })));
    expect(r.mismatches).toEqual([]);
    expect(r.tally.identical).toBe(r.total);
  });

  it('the real templates in fixtures/templates (and ../shared/data, TOOLGAUGE_EXTRA_TEMPLATES when there): no silent divergence', () => {
    const byName = new Map<string, { name: string; source: string }>();
    for (const t of [...templatesIn(STORED), ...templatesIn(SHARED), ...templatesIn(EXTRA)]) byName.set(t.name, t);
    const templates = [...byName.values()];
    // the issue's bar: at least 20 real templates (23 are stored in the repository)
    expect(templates.length).toBeGreaterThanOrEqual(20);
    const r = compare(templates);
    expect(r.mismatches).toEqual([]);
    // Most renders are exact; the rest are known engine limits, reported as such (e.g. functionary's tuple loops).
    expect(r.tally.identical).toBeGreaterThan(r.total / 2);
    console.log(
      `jinja2 differential over ${templates.length} real templates (${templatesIn(STORED).length} stored, ${existsSync(SHARED) ? templatesIn(SHARED).length : 'no'} shared, ${EXTRA ? templatesIn(EXTRA).length : 'no'} extra), ${r.total} renders: ${JSON.stringify(r.tally)}`,
    );
  });

  it.skipIf(!EXTRA)('TOOLGAUGE_EXTRA_TEMPLATES names a folder of .jinja files', () => {
    expect(templatesIn(EXTRA).length).toBeGreaterThan(0);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkTemplate, FINDING_IDS, type Finding, type FindingId, type TemplateCheck } from './check.ts';
import type { TemplateError } from './errors.ts';
import { PROBE_TOOL_DESCRIPTION, PROBE_TOOL_NAME } from './fixtures.ts';
import { renderChat } from './render.ts';
import { REFERENCE_FAMILIES, referenceTemplate } from './repair.ts';
import { priorCallOutcome } from './shapes.ts';

const TEMPLATES = fileURLToPath(new URL('../../../shared/data/templates/', import.meta.url));
const haveReal = existsSync(TEMPLATES);
const real = (name: string): string => readFileSync(`${TEMPLATES}${name}.jinja`, 'utf8');
const ids = (c: TemplateCheck): FindingId[] => [...new Set(c.findings.map((f) => f.id))].sort();

/** Apply a string edit and insist it changed something (an edit that silently misses would prove nothing). */
function edit(source: string, from: string | RegExp, to: string): string {
  const out = source.replace(from, to);
  if (out === source) throw new Error(`edit did not apply: ${String(from)}`);
  return out;
}

/** Re-render a finding's repro and check that it still shows the defect. */
function expectReproShows(source: string, f: Finding): void {
  const { messages, tools, addGenerationPrompt } = f.repro;
  const render = (now?: Date, dateVars = true) =>
    renderChat(source, {
      messages,
      tools,
      addGenerationPrompt,
      now,
      extra: dateVars ? undefined : { date_string: undefined },
    });
  const failure = (): TemplateError | null => {
    try {
      render();
      return null;
    } catch (e) {
      return e as TemplateError;
    }
  };
  switch (f.id) {
    case 'template_unparseable':
      expect(failure()?.kind).toBe('unparseable');
      break;
    case 'raises_on_standard_shape':
      expect(['raised', 'render_error']).toContain(failure()?.kind);
      break;
    case 'tools_not_rendered': {
      expect(tools).toBeDefined();
      const out = render();
      expect(out.includes(PROBE_TOOL_NAME) && out.includes(PROBE_TOOL_DESCRIPTION)).toBe(false);
      break;
    }
    case 'prior_tool_call_dropped':
      expect(messages.some((m) => m.tool_calls?.length)).toBe(true);
      expect(priorCallOutcome(render())).toBe('dropped');
      break;
    case 'injected_date': {
      const other = new Date('2033-03-03T03:03:00Z');
      const changes = render() !== render(other) || render(undefined, false) !== render(other, false);
      expect(changes || /\d{1,2} [A-Z][a-z]{2} \d{4}|\d{4}-\d{2}-\d{2}/.test(render(undefined, false))).toBe(true);
      break;
    }
    case 'doubled_braces':
      expect(render()).toMatch(/\{\{|\}\}/);
      break;
    case 'system_prompt_drops_tool_instructions':
      expect(messages[0]?.role).toBe('system');
      expect(tools).toBeDefined();
      break;
  }
  expect(f.repro.rendered === undefined).toBe(f.id === 'raises_on_standard_shape' || f.id === 'template_unparseable');
}

function checked(source: string): TemplateCheck {
  const c = checkTemplate(source);
  for (const f of c.findings) {
    expect(FINDING_IDS).toContain(f.id);
    expectReproShows(source, f);
  }
  return c;
}

describe('reference templates', () => {
  it.each([...REFERENCE_FAMILIES])('%s: zero findings, no engine limitation', (family) => {
    const c = checked(referenceTemplate(family)!);
    expect(c.findings).toEqual([]);
    expect(c.engineLimitations).toEqual([]);
    expect(c.shape).not.toBeNull();
  });
});

// Buggy variants of the reference templates, one defect each, by string edits.
const PREPEND = {
  clock: "{{- 'Today is ' + strftime_now('%d %B %Y') + '.\\n' -}}",
  literal: "{{- 'Knowledge date: 26 Jul 2024\\n' -}}",
  rejectNullContent:
    "{%- for m in messages -%}{%- if m.role == 'assistant' and m.tool_calls and m.content is none -%}{{- raise_exception('content must not be null') -}}{%- endif -%}{%- endfor -%}",
  rejectDictArguments:
    "{%- for m in messages -%}{%- for c in m.tool_calls or [] -%}{%- if c.function.arguments is mapping -%}{{- raise_exception('arguments must be a JSON string') -}}{%- endif -%}{%- endfor -%}{%- endfor -%}",
  requireIds:
    "{%- for m in messages -%}{%- for c in m.tool_calls or [] -%}{%- if c.id is not defined -%}{{- raise_exception('tool call ids are required') -}}{%- endif -%}{%- endfor -%}{%- endfor -%}",
  alternate:
    "{%- for m in messages -%}{%- if not loop.first and m.role == 'user' and loop.previtem.role == 'user' -%}{{- raise_exception('roles must alternate') -}}{%- endif -%}{%- endfor -%}",
};

interface Variant {
  name: string;
  expect: FindingId;
  detail?: RegExp;
  make: (source: string, family: string) => string | null;
}

const VARIANTS: Variant[] = [
  {
    name: 'tool_calls rendering removed',
    expect: 'prior_tool_call_dropped',
    make: (s) => edit(s, /\{%- for call in message\.tool_calls[\s\S]*?\{%- endfor -%\}/, ''),
  },
  {
    name: 'tools block removed',
    expect: 'tools_not_rendered',
    make: (s, family) =>
      family === 'mistral'
        ? edit(s, '(tools | tojson)', "'[]'")
        : edit(s, /\{%- for tool in tools -%\}[\s\S]*?\{%- endfor -%\}/, ''),
  },
  { name: 'strftime_now added', expect: 'injected_date', detail: /strftime_now/, make: (s) => PREPEND.clock + s },
  { name: 'a literal date added', expect: 'injected_date', detail: /26 Jul 2024/, make: (s) => PREPEND.literal + s },
  {
    name: "format example's { doubled",
    expect: 'doubled_braces',
    make: (s, family) =>
      family === 'mistral' ? null : edit(s, /\{"name": (<function-name>|function name|tool name)/, '{{"name": $1'),
  },
  {
    name: "format example's } doubled",
    expect: 'doubled_braces',
    make: (s, family) =>
      family === 'mistral' ? null : edit(s, /(<arguments-object>|their values|argument values)\}/, '$1}}'),
  },
  {
    name: 'system branch replaces the tool instructions',
    expect: 'system_prompt_drops_tool_instructions',
    make: (s) =>
      edit(s, /\{%- if tools( and loop\.index0 == ns\.last_user)? -%\}/, '{%- if tools and not system_text$1 -%}'),
  },
  {
    name: 'raise on content null',
    expect: 'raises_on_standard_shape',
    detail: /content null/,
    make: (s) => PREPEND.rejectNullContent + s,
  },
  {
    name: 'raise on dict arguments',
    expect: 'raises_on_standard_shape',
    detail: /dict arguments/,
    make: (s) => PREPEND.rejectDictArguments + s,
  },
  {
    name: 'raise on missing call ids',
    expect: 'raises_on_standard_shape',
    detail: /missing call ids/,
    make: (s) => PREPEND.requireIds + s,
  },
  {
    name: 'raise on consecutive user messages',
    expect: 'raises_on_standard_shape',
    detail: /consecutive user/,
    make: (s) => PREPEND.alternate + s,
  },
  { name: 'syntax error', expect: 'template_unparseable', make: (s) => `${s}{%- if tools -%}never closed` },
];

/** The edits above are written against the hand-written reference files; the built ones get the prepended defects. */
const HAND_WRITTEN = ['hermes', 'llama_json', 'mistral', 'generic'];
const PREPENDED = new Set([
  'strftime_now added',
  'a literal date added',
  'raise on content null',
  'raise on dict arguments',
  'raise on missing call ids',
  'raise on consecutive user messages',
  'syntax error',
]);

describe('buggy variants of the reference templates', () => {
  const cases = REFERENCE_FAMILIES.flatMap((family) =>
    VARIANTS.filter((v) => HAND_WRITTEN.includes(family) || PREPENDED.has(v.name)).map(
      (v) => [family, v.name, v] as const,
    ),
  );
  it.each(cases)('%s, %s → exactly its defect', (family, _name, variant) => {
    const source = variant.make(referenceTemplate(family)!, family);
    if (source === null) return; // mistral's template has no format example to break
    const c = checked(source);
    expect(ids(c)).toEqual([variant.expect]);
    expect(c.engineLimitations).toEqual([]);
    if (variant.detail) expect(c.findings.map((f) => f.detail).join('\n')).toMatch(variant.detail);
  });

  it('repros are minimal', () => {
    const hermes = referenceTemplate('hermes')!;
    const roles = (s: string, id: FindingId) =>
      checkTemplate(s)
        .findings.find((f) => f.id === id)!
        .repro.messages.map((m) => m.role);
    expect(roles(PREPEND.rejectNullContent + hermes, 'raises_on_standard_shape')).toEqual(['assistant']);
    expect(roles(PREPEND.alternate + hermes, 'raises_on_standard_shape')).toEqual(['user', 'user']);
    expect(roles(PREPEND.clock + hermes, 'injected_date')).toEqual(['user']);
    const dropped = checkTemplate(edit(hermes, /\{%- for call in message\.tool_calls[\s\S]*?\{%- endfor -%\}/, ''))
      .findings[0]!;
    expect(dropped.repro.messages.map((m) => m.role)).toEqual(['assistant']);
    expect(dropped.shape).toBeDefined();
  });
});

describe('checkTemplate never throws', () => {
  it.each([
    ['empty', ''],
    ['plain text', 'hello'],
    ['unclosed', '{% for m in messages %}'],
    ['raises always', "{{ raise_exception('no') }}"],
    ['engine-unsupported everywhere', '{% for a, b in [(1, 2)] %}{% endfor %}'],
    ['huge range', '{% for i in range(100000000) %}{% endfor %}'],
    ['long nested loops', '{% for i in range(5000) %}{% for j in range(5000) %}{{ j }}{% endfor %}{% endfor %}'],
    ['recursion', '{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}'],
    ['non-string input', 42 as unknown as string],
  ])('%s', (_label, source) => {
    const c = checkTemplate(source);
    expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Array.isArray(c.findings)).toBe(true);
  });

  it('stops a template that stays under the per-render budget once all renders together pass the total budget', () => {
    const slow =
      '{% for i in range(3000) %}{% endfor %}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}';
    const capped = checkTemplate(slow, { budget: { steps: 20_000, ms: 600_000 } });
    const stop = capped.findings.find((f) => f.id === 'render_budget_exceeded');
    expect(stop?.detail).toMatch(/more than 20000 evaluation steps in total/);
    // The same template under the default total budget: each render is fine, and so is the check.
    expect(checkTemplate(slow).findings.map((f) => f.id)).not.toContain('render_budget_exceeded');
  });

  it('reports an unparseable template and nothing else', () => {
    const c = checkTemplate('{% if x %}');
    expect(c.findings.map((f) => f.id)).toEqual(['template_unparseable']);
  });

  it('engine limitations are not defects', () => {
    const c = checkTemplate("{% for a, b in [('x', 'y')] %}{{ a }}{% endfor %}{{ messages[0].content }}");
    expect(c.findings).toEqual([]);
    expect(c.engineLimitations.join()).toMatch(/tuple unpacking/);
  });

  it('a template that raises on everything gets one finding, on the simplest message', () => {
    const c = checkTemplate("{{ raise_exception('no') }}");
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]).toMatchObject({ id: 'raises_on_standard_shape', repro: { messages: [{ role: 'user' }] } });
  });
});

// What each real template yields (recorded in the test output as annotations), and why we are sure of it.
const REAL: Record<string, { findings: FindingId[]; limitation?: RegExp; details?: RegExp[]; why: string }> = {
  'DeepSeek-V3.1': {
    findings: ['raises_on_standard_shape', 'tools_not_rendered'],
    details: [/dict arguments: error `TypeError: can only concatenate str/],
    why: 'the template never reads `tools`; it joins arguments with `+`, a TypeError in jinja2 for dict arguments',
  },
  'Hermes-2-Pro-Llama-3-8B.tool_use': {
    findings: ['doubled_braces'],
    details: [/"type": "object"\}\}/],
    why: 'the pydantic FunctionCall schema example closes one brace too many',
  },
  'Llama-3.1-8B-Instruct': {
    findings: ['injected_date'],
    details: [/26 Jul 2024/, /date_string/],
    why: '"Today Date: " + date_string, default "26 Jul 2024"',
  },
  'Llama-3.2-3B-Instruct': {
    findings: ['injected_date'],
    details: [/strftime_now/],
    why: '"Today Date: " + strftime_now("%d %b %Y")',
  },
  'Mistral-Nemo-Instruct-2407': {
    findings: ['raises_on_standard_shape'],
    details: [/missing call ids.*length 9/, /consecutive user messages.*roles must alternate/],
    why: 'raise_exception on call ids that are not 9 characters, and on user turns without an assistant reply between',
  },
  'Qwen2.5-7B-Instruct': { findings: [], why: 'no defect found' },
  'Qwen3-0.6B': {
    findings: ['raises_on_standard_shape'],
    details: [/content null next to tool calls/],
    why: "`'</think>' in message.content` is a TypeError in jinja2 when content is None",
  },
  'functionary-medium-v3.2': {
    findings: ['raises_on_standard_shape'],
    limitation: /tuple unpacking/,
    details: [/dict arguments: error `TypeError/],
    why: 'tuple unpacking in a for loop (engine limitation, checked with a plain tool); arguments joined with `+`',
  },
};

describe.skipIf(!haveReal)('real templates (needs ../shared/data)', () => {
  it.for(Object.keys(REAL))('%s', async (name, { annotate }) => {
    const source = real(name);
    let c: TemplateCheck | undefined;
    expect(() => (c = checked(source))).not.toThrow();
    const result = c!;
    const expected = REAL[name]!;
    await annotate(
      `${name}: findings [${result.findings.map((f) => `${f.id}: ${f.detail}`).join(' | ') || 'none'}]; ` +
        `engine limitations [${result.engineLimitations.join(' | ') || 'none'}]; shape ${JSON.stringify(result.shape)}; ${expected.why}`,
    );
    expect(ids(result)).toEqual([...expected.findings].sort());
    if (expected.limitation) expect(result.engineLimitations.join('\n')).toMatch(expected.limitation);
    else expect(result.engineLimitations).toEqual([]);
    for (const d of expected.details ?? []) expect(result.findings.map((f) => f.detail).join('\n')).toMatch(d);
    expect(result.findings.some((f) => f.id === 'template_unparseable')).toBe(false);
  });

  it('Hermes and Qwen2.5 keep prior tool calls; Llama 3.2 injects a date at any injected clock', () => {
    for (const name of ['Hermes-2-Pro-Llama-3-8B.tool_use', 'Qwen2.5-7B-Instruct']) {
      expect(ids(checkTemplate(real(name)))).not.toContain('prior_tool_call_dropped');
    }
    const c = checkTemplate(real('Llama-3.2-3B-Instruct'), { now: new Date('2030-02-02T00:00:00Z') });
    expect(c.findings.find((f) => f.id === 'injected_date')?.repro.rendered).toContain('Today Date: 02 Feb 2030');
  });

  // Buggy variants of the real templates.
  const REAL_VARIANTS: Array<[string, string, FindingId, (s: string) => string]> = [
    [
      'Qwen2.5-7B-Instruct',
      'tool_calls loop removed',
      'prior_tool_call_dropped',
      (s) => edit(s, /\{%- for tool_call in message\.tool_calls %\}[\s\S]*?\{%- endfor %\}/, ''),
    ],
    [
      'Qwen2.5-7B-Instruct',
      'tools loop removed',
      'tools_not_rendered',
      (s) => edit(s, /\{%- for tool in tools %\}[\s\S]*?\{%- endfor %\}/, ''),
    ],
    [
      'Qwen2.5-7B-Instruct',
      'strftime_now added',
      'injected_date',
      (s) =>
        edit(
          s,
          "You are a helpful assistant.' }}",
          "You are a helpful assistant. Today is ' + strftime_now('%Y-%m-%d') + '.' }}",
        ),
    ],
    [
      'Qwen2.5-7B-Instruct',
      'format example brace doubled',
      'doubled_braces',
      (s) => edit(s, '{\\"name\\": <function-name>', '{{\\"name\\": <function-name>'),
    ],
    [
      'Qwen2.5-7B-Instruct',
      'system replaces tools',
      'system_prompt_drops_tool_instructions',
      (s) => edit(s, '{%- if tools %}', "{%- if tools and messages[0]['role'] != 'system' %}"),
    ],
    [
      'Qwen2.5-7B-Instruct',
      'raise on content null',
      'raises_on_standard_shape',
      (s) =>
        edit(
          s,
          "{{- '<|im_start|>' + message.role }}",
          "{%- if message.content is none %}{{ raise_exception('content is null') }}{%- endif %}{{- '<|im_start|>' + message.role }}",
        ),
    ],
    [
      'Hermes-2-Pro-Llama-3-8B.tool_use',
      'raise on dict arguments',
      'raises_on_standard_shape',
      (s) =>
        edit(
          s,
          '{%- if tool_call.arguments is string %}',
          "{%- if tool_call.arguments is mapping %}{{ raise_exception('dict arguments') }}{%- endif %}{%- if tool_call.arguments is string %}",
        ),
    ],
    [
      'Hermes-2-Pro-Llama-3-8B.tool_use',
      'tool_calls loop removed',
      'prior_tool_call_dropped',
      (s) => edit(s, /\{%- for tool_call in message\.tool_calls %\}[\s\S]*?\{%- endfor %\}/, ''),
    ],
    [
      'Llama-3.1-8B-Instruct',
      'call rendering removed',
      'prior_tool_call_dropped',
      (s) =>
        edit(s, '{{- \'{"name": "\' + tool_call.name + \'", \' }}', '').replace(
          '{{- tool_call.arguments | tojson }}',
          '',
        ),
    ],
    ['Mistral-Nemo-Instruct-2407', 'syntax error', 'template_unparseable', (s) => edit(s, /\{%- endfor %\}\s*$/, '')],
  ];
  it.each(REAL_VARIANTS)('%s, %s → %s (and the original has not)', (name, _what, expected, make) => {
    const original = ids(checkTemplate(real(name)));
    expect(original).not.toContain(expected);
    const c = checked(make(real(name)));
    expect(ids(c)).toContain(expected);
    if (expected === 'raises_on_standard_shape')
      expect(c.findings.some((f) => /content null|dict arguments/.test(f.detail))).toBe(true);
  });
});

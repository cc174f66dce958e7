import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTemplate, FINDING_IDS } from './check.ts';
import { TemplateError } from './errors.ts';
import { PROBE_TOOL, standardHistory } from './fixtures.ts';
import { renderChat } from './render.ts';

// Templates built from jinja fragments: mostly broken, some parseable, some that render. Whatever they are,
// checkTemplate returns a result and renderChat fails only with a TemplateError.

const EXPRESSIONS = [
  'messages',
  'messages[0]',
  'messages[0].content',
  'message.content',
  'message.role',
  "message['tool_calls']",
  'message.tool_calls[0].function.arguments',
  'tools',
  'tools[0]',
  'tool.function.name',
  'undefined_var',
  'none',
  'true',
  '1',
  '2.5',
  "'text'",
  '"{\\"a\\": 1}"',
  '[1, 2]',
  "{'k': 'v'}",
  "('a', 'b')",
  'loop.index',
  'loop.last',
  'add_generation_prompt',
  'bos_token',
  'ns.x',
  "strftime_now('%d %b %Y')",
  'date_string',
  'range(3)',
];
const OPERATORS = [' + ', ' ~ ', ' * ', ' % ', ' == ', ' != ', ' and ', ' or ', ' in ', ' not in ', ' if ', ' else '];
const FILTERS = [
  '|tojson',
  '|trim',
  '|length',
  '|string',
  '|items',
  '|first',
  '|join(", ")',
  '|default("d")',
  '|upper',
  '|frobnicate',
  '',
];
const CALLS = [
  '.strip()',
  ".startswith('<')",
  '.split(",")',
  '.append(1)',
  '.get("a")',
  '.items()',
  '.zfill(2)',
  '',
  '',
];

const expression = fc
  .tuple(
    fc.constantFrom(...EXPRESSIONS),
    fc.constantFrom(...CALLS),
    fc.constantFrom(...FILTERS),
    fc.option(fc.tuple(fc.constantFrom(...OPERATORS), fc.constantFrom(...EXPRESSIONS))),
  )
  .map(([e, c, f, rest]) => `${e}${c}${f}${rest ? rest[0] + rest[1] : ''}`);

const statement: fc.Arbitrary<string> = fc.oneof(
  expression.map((e) => `{{ ${e} }}`),
  expression.map((e) => `{%- set ns = namespace(x=${e}) -%}`),
  fc.tuple(expression, expression).map(([a, b]) => `{% if ${a} %}{{ ${b} }}{% elif ${b} %}x{% else %}y{% endif %}`),
  expression.map((e) => `{% for message in messages %}{{ ${e} }}{% endfor %}`),
  expression.map((e) => `{% for k, v in ${e} %}{{ k }}{% endfor %}`),
  expression.map((e) => `{% for tool in tools %}{{ tool|tojson }}{{ ${e} }}{% endfor %}`),
  expression.map((e) => `{% macro m(a) %}{{ a ~ ${e} }}{% endmacro %}{{ m(1) }}`),
  expression.map((e) => `{{ raise_exception(${e}) }}`),
  fc.constantFrom(
    '<|im_start|>',
    '[TOOL_CALLS]',
    '<tool_call>{"name": <name>}}',
    '{{"a": 1}}',
    '26 Jul 2024',
    '\n',
    'text',
  ),
);

/** Well-formed-ish templates, and raw soup of fragments (mostly unparseable). */
const template = fc.oneof(
  fc.array(statement, { minLength: 1, maxLength: 6 }).map((xs) => xs.join('')),
  fc
    .array(
      fc.constantFrom(
        '{{',
        '}}',
        '{%',
        '%}',
        '{#',
        '#}',
        'if',
        'endif',
        'for',
        'in',
        'endfor',
        ' ',
        'x',
        '(',
        ')',
        "'",
        '"',
        '|',
        '-',
      ),
      { maxLength: 25 },
    )
    .map((xs) => xs.join('')),
  fc.string({ maxLength: 40 }),
);

describe('fuzz: jinja fragments', () => {
  it('checkTemplate never throws and returns well-formed results', () => {
    fc.assert(
      fc.property(template, (source) => {
        const c = checkTemplate(source);
        expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
        for (const f of c.findings) {
          expect(FINDING_IDS).toContain(f.id);
          expect(Array.isArray(f.repro.messages)).toBe(true);
        }
        expect(c.notes.filter((n) => /failed internally|aborted/.test(n))).toEqual([]);
      }),
      { numRuns: 150, seed: 20260115 },
    );
  });

  it('renderChat fails only with a TemplateError', () => {
    fc.assert(
      fc.property(template, fc.boolean(), (source, withTools) => {
        try {
          renderChat(source, {
            messages: standardHistory(),
            tools: withTools ? [PROBE_TOOL] : undefined,
            addGenerationPrompt: true,
          });
        } catch (e) {
          expect(e).toBeInstanceOf(TemplateError);
        }
      }),
      { numRuns: 400, seed: 7 },
    );
  });
});

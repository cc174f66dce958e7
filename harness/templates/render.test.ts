import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TemplateError, type TemplateErrorKind } from './errors.ts';
import { PROBE_TOOL } from './fixtures.ts';
import { DEFAULT_NOW, renderChat } from './render.ts';
import { strftime } from './strftime.ts';
import type { ChatMessage } from './types.ts';

const TEMPLATES = fileURLToPath(new URL('../../../shared/data/templates/', import.meta.url));
const real = (name: string): string => readFileSync(`${TEMPLATES}${name}.jinja`, 'utf8');

const user: ChatMessage[] = [{ role: 'user', content: 'hi' }];
const r = (source: string, vars: Record<string, unknown> = {}, messages = user) =>
  renderChat(source, { messages, extra: vars });

function errorOf(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateError);
    return e as TemplateError;
  }
  throw new Error('expected a TemplateError, got a render');
}
const kindOf = (source: string, vars: Record<string, unknown> = {}): TemplateErrorKind =>
  errorOf(() => r(source, vars)).kind;

describe('renderChat: Python jinja2 semantics', () => {
  it('prints values as Python str() does', () => {
    expect(r('{{ none }}|{{ true }}|{{ false }}|{{ 1.0 }}|{{ 3 }}')).toBe('None|True|False|1.0|3');
    expect(r('{{ d }}', { d: { a: 1, b: 'q', c: [true, null] } })).toBe("{'a': 1, 'b': 'q', 'c': [True, None]}");
    expect(r('{{ s }}', { s: "it's" })).toBe("it's");
    expect(r('{{ [s] }}', { s: "it's" })).toBe(`["it's"]`);
    expect(r('[{{ undefined_thing }}]')).toBe('[]');
  });

  it('`~` and |string use str(), `+` of str and non-str raises TypeError like Python', () => {
    expect(r("{{ 'x' ~ d }}", { d: { a: 1 } })).toBe("x{'a': 1}");
    expect(r("{{ 'x' ~ n ~ u }}", { n: null })).toBe('xNone');
    expect(r('{{ n|string }}|{{ d|string }}', { n: null, d: { a: 'b' } })).toBe("None|{'a': 'b'}");
    const e = errorOf(() => r("{{ 'x' + d }}", { d: { a: 1 } }));
    expect(e.kind).toBe('render_error');
    expect(e.message).toMatch(/can only concatenate str \(not "dict"\) to str/);
    expect(kindOf("{{ 'x' + 1 }}")).toBe('render_error');
    expect(r("{{ 'ab' + 'cd' }}|{{ 1 + 2 }}|{{ [1] + [2] }}")).toBe('abcd|3|[1, 2]');
  });

  it('strip, lstrip and rstrip take the characters to strip, and strip only Python whitespace without them', () => {
    // Python: ' \nx \n'.lstrip('\n') keeps the leading space; 'xxaxx'.strip('x') is 'a'; '\x1c'.strip() is ''.
    expect(r('[{{ s.lstrip("\\n") }}]', { s: ' \nx \n' })).toBe('[ \nx \n]');
    expect(r('[{{ s.rstrip("\\n") }}]', { s: ' \nx \n' })).toBe('[ \nx ]');
    expect(r('[{{ s.strip("x") }}|{{ s.lstrip("x") }}|{{ s.rstrip("x") }}]', { s: 'xxaxx' })).toBe('[a|axx|xxa]');
    expect(r('[{{ s.strip() }}|{{ s.strip(none) }}]', { s: '\x1c\u00a0 a \u00a0\x1c' })).toBe('[a|a]');
    expect(r('[{{ s.strip() }}]', { s: '\ufeffa\ufeff' })).toBe('[\ufeffa\ufeff]');
  });

  it('repeats strings and lists with *', () => {
    expect(r("{{ '-' * 3 }}|{{ 2 * 'ab' }}|{{ [0] * 2 }}")).toBe('---|abab|[0, 0]');
  });

  it('iterates an undefined value as empty (the else block runs), but not None', () => {
    expect(r('{% for t in tools %}{{ t }}{% else %}none{% endfor %}!')).toBe('none!');
    expect(r('{% for t in tools if t %}{{ t }}{% endfor %}!')).toBe('!');
    expect(kindOf('{% for t in n %}{% endfor %}', { n: null })).toBe('render_error');
  });

  it('drops message keys whose value is undefined (Python never sees them)', () => {
    expect(r("{{ 'content' in messages[0] }}", {}, [{ role: 'user', content: undefined }])).toBe('False');
    expect(r("{{ 'content' in messages[0] }}", {}, [{ role: 'user', content: null }])).toBe('True');
  });

  it('passes tools, add_generation_prompt and the special tokens', () => {
    const out = renderChat('{{ bos_token }}{{ tools[0].function.name }}{{ add_generation_prompt }}{{ eos_token }}', {
      messages: user,
      tools: [PROBE_TOOL],
      addGenerationPrompt: true,
      bosToken: '<B>',
      eosToken: '<E>',
    });
    expect(out).toBe('<B>get_weatherTrue<E>');
    expect(r('{{ tools is defined }}')).toBe('False');
  });
});

describe('renderChat: typed errors', () => {
  it('raise_exception → raised, with the template message', () => {
    const e = errorOf(() => r("{{ raise_exception('Only user and assistant roles!') }}"));
    expect(e.kind).toBe('raised');
    expect(e.message).toBe('Only user and assistant roles!');
  });

  it('syntax errors → unparseable', () => {
    expect(kindOf('{% if x %}no end')).toBe('unparseable');
    expect(kindOf('{{ x ')).toBe('unparseable');
    expect(kindOf('{% frobnicate %}')).toBe('unparseable');
  });

  it('constructs the engine cannot render faithfully → engine_unsupported', () => {
    expect(kindOf("{% for a, b in [('x', 'y')] %}{{ a }}{% endfor %}")).toBe('engine_unsupported');
    expect(kindOf('{{ n|trim }}', { n: null })).toBe('engine_unsupported');
    expect(kindOf('{% with a = 1 %}{{ a }}{% endwith %}')).toBe('engine_unsupported');
    expect(r('{% generation %}x{% endgeneration %}')).toBe('x'); // transformers' extension: the engine has it
    expect(kindOf("{{ 'x'.zfill(3) }}")).toBe('engine_unsupported');
    expect(kindOf("{{ '%s!' % 'x' }}")).toBe('engine_unsupported');
    expect(kindOf('{{ dict(a=1) }}')).toBe('engine_unsupported');
    expect(kindOf("{{ l|join(', ') }}", { l: [{ a: 1 }] })).toBe('engine_unsupported');
  });

  it("jinja2's Undefined is empty: trim gives '', length 0, list [], `in` False (Hermes' templates on a parameter without description)", () => {
    expect(r('[{{ missing|trim }}]')).toBe('[]');
    expect(r('{{ missing|length }}')).toBe('0');
    expect(r('{{ missing|list|length }}')).toBe('0');
    expect(r("{{ missing in ['a'] }}|{{ missing not in {'a': 1} }}")).toBe('False|True');
    expect(r('{{ missing|selectattr("x")|list|length }}|{{ none|map("x")|list|length }}')).toBe('0|0');
  });

  it('a dict literal with int keys works as in Python (Seed-OSS), including dictsort and lookups', () => {
    const t =
      '{%- set d = {0: 0, 512: 128, 16384: 1024, 2048: 512} -%}{% for k, v in d|dictsort %}{{ k }}={{ v }},{% endfor %}|{{ d[512] }}|{{ 2048 in d }}|{{ "512" in d }}|{{ d|tojson }}';
    expect(r(t)).toBe(
      '0=0,512=128,2048=512,16384=1024,|128|True|False|{"0": 0, "512": 128, "16384": 1024, "2048": 512}',
    );
  });

  it('a backslash-newline inside a string literal continues the line (Mistral-Small-3.1), outside it stays', () => {
    expect(r('{%- set s = "a\\\nb" -%}{{ s }}|x\\\ny')).toBe('ab|x\\\ny');
  });

  it("markupsafe: Markup + str escapes the str (functionary v3.1's |safe), |e escapes", () => {
    expect(r(`{{ "<b>"|safe + '"x" & <y>' }}`)).toBe('<b>&#34;x&#34; &amp; &lt;y&gt;');
    expect(r(`{{ '"<'|e }}|{{ 'a' + 'b' }}`)).toBe('&#34;&lt;|ab');
  });

  it('generators (map/select…) are not lists: tojson and length raise, |list makes them lists', () => {
    const l = { l: [{ a: 'x' }, { a: 'y' }] };
    expect(kindOf('{{ l|map(attribute="a")|tojson }}', l)).toBe('render_error');
    expect(kindOf('{{ l|selectattr("a")|length }}', l)).toBe('render_error');
    expect(
      r(
        '{{ l|map(attribute="a")|list|length }}|{{ l|map(attribute="a")|join(",") }}|{{ l|map(attribute="a")|list|tojson }}',
        l,
      ),
    ).toBe('2|x,y|["x", "y"]');
    expect(kindOf('{{ [1, 2]|map("string")|join(",") }}')).toBe('engine_unsupported');
  });

  it("transformers renders in jinja2's immutable sandbox: list.append raises (Kimi-K2), tojson of Undefined raises", () => {
    expect(kindOf('{% set l = [] %}{{ l.append(1) }}')).toBe('render_error');
    expect(kindOf('{{ {"a": 1}.update({}) }}')).toBe('render_error');
    expect(kindOf('{{ missing|tojson }}')).toBe('render_error');
    expect(r('{{ none|tojson }}')).toBe('null');
  });

  it("'items' of a string raises in jinja2 too: a template defect, not an engine gap (Qwen3-Coder on string arguments)", () => {
    expect(kindOf("{{ 'x'|items }}")).toBe('render_error');
    expect(kindOf('{% for k, v in s|items %}{% endfor %}', { s: '{"a": 1}' })).toBe('render_error');
  });

  it('errors Python raises too stay render_error', () => {
    expect(kindOf("{{ missing + 'x' }}")).toBe('render_error');
    expect(kindOf("{{ missing.startswith('x') }}")).toBe('render_error');
    expect(kindOf("{{ 'a' in n }}", { n: null })).toBe('render_error');
    expect(kindOf('{{ n|length }}', { n: null })).toBe('render_error');
  });

  it('a supported method inside a macro is not blamed on the engine', () => {
    expect(kindOf("{% macro m(x) %}{{ x.nope() }}{% endmacro %}{{ m('a') }}")).toBe('render_error');
  });
});

describe('renderChat: the injected clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const clock = '{{ strftime_now("%Y-%m-%d %H:%M %A %d %b %Y") }}|{{ date_string }}';

  it('strftime_now and date_string come from `now`, in UTC', () => {
    const now = new Date('2031-08-27T18:45:00Z');
    expect(renderChat(clock, { messages: user, now })).toBe('2031-08-27 18:45 Wednesday 27 Aug 2031|27 Aug 2031');
    expect(renderChat(clock, { messages: user })).toBe('2026-01-15 09:30 Thursday 15 Jan 2026|15 Jan 2026');
    expect(DEFAULT_NOW.toISOString()).toBe('2026-01-15T09:30:00.000Z');
  });

  it('two renders at different real times are identical', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2019-03-01T00:00:00Z'));
    const first = renderChat(clock, { messages: user });
    vi.setSystemTime(new Date('2029-11-30T23:59:00Z'));
    const second = renderChat(clock, { messages: user });
    expect(second).toBe(first);
    expect(first).not.toContain('2019');
  });

  it('extra can remove date_string or override the clock function', () => {
    expect(renderChat('{{ date_string is defined }}', { messages: user, extra: { date_string: undefined } })).toBe(
      'False',
    );
    expect(renderChat('{{ strftime_now("%Y") }}', { messages: user, extra: { strftime_now: () => 'fixed' } })).toBe(
      'fixed',
    );
  });

  it('strftime supports the common directives', () => {
    const d = new Date('2024-07-06T05:04:03.120Z');
    expect(strftime(d, '%d %b %Y|%B %-d, %Y|%y %m %j %I%p %S.%f %Z %z %%|%Q')).toBe(
      '06 Jul 2024|July 6, 2024|24 07 188 05AM 03.120000 UTC +0000 %|%Q',
    );
  });
});

describe.skipIf(!existsSync(TEMPLATES))('renderChat on real templates (needs ../shared/data)', () => {
  it("Hermes' template renders a parameter without description as jinja2 does (undefined|trim is '')", () => {
    const tool = structuredClone(PROBE_TOOL);
    delete (tool.function.parameters!.properties as Record<string, Record<string, unknown>>).city!.description;
    const text = renderChat(real('Hermes-2-Pro-Llama-3-8B.tool_use'), { messages: user, tools: [tool] });
    expect(text).toContain('city');
    expect(text).toContain('get_weather');
  });

  it('functionary: tuple unpacking is an engine limitation', () => {
    const e = errorOf(() => renderChat(real('functionary-medium-v3.2'), { messages: user, tools: [PROBE_TOOL] }));
    expect(e.kind).toBe('engine_unsupported');
    expect(e.message).toMatch(/tuple unpacking/);
  });

  it('Mistral raises its own message on non-alternating roles', () => {
    const e = errorOf(() => renderChat(real('Mistral-Nemo-Instruct-2407'), { messages: [...user, ...user] }));
    expect(e.kind).toBe('raised');
    expect(e.message).toMatch(/roles must alternate/);
  });

  it('Llama 3.2 prints the injected date, whatever the real clock says', () => {
    const out = renderChat(real('Llama-3.2-3B-Instruct'), { messages: user, now: new Date('2027-05-09T12:00:00Z') });
    expect(out).toContain('Today Date: 09 May 2027');
  });
});

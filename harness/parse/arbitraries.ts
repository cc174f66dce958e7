/**
 * fast-check generators for parser properties (used by the tests and by bench.ts; fast-check is a dev
 * dependency, so nothing on the runtime path imports this file).
 *
 * Per-family constraints on generated calls (`callsFor`), each because the format cannot carry the value:
 *   - llama_pythonic: top-level argument names are keyword arguments, so Python identifiers (not keywords).
 *   - gemma4: no string anywhere (key or value) contains the string delimiter `<|"|>` — the format has no escape.
 *   - XML-style families (qwen3_xml, seed_oss, minimax, glm, deepseek_dsml, minicpm): top-level argument names
 *     are identifiers (they sit in a tag); string values do not contain the family's closing tag (no escape;
 *     for qwen3_xml/seed_oss also no line-starting `<parameter=`, which ends a value missing its close; for
 *     seed_oss, rendered without the newlines, no newline at either end, which the format trims); call names
 *     are unique within a list so one tool schema types each name's parameters (these formats are typed by the
 *     schema, so the round trip passes tools derived from the generated values: SCHEMA_TYPED).
 *   - lfm2: argument names are keyword arguments, like llama_pythonic.
 *   - functionary: no call is named `all` (that recipient means prose).
 * Every family: names from a safe identifier alphabet; no -0 (JSON has no negative zero).
 */
import fc from 'fast-check';
import { isPyIdentifier } from './pycall.ts';
import type { Family, ParsedCall, ToolSchema } from './types.ts';

const SPECIALS = [
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '\n',
  '\r',
  '\t',
  '\\',
  '/',
  '<',
  '>',
  '|',
  ':',
  ',',
  ';',
  '=',
  '`',
  ' ',
  'é',
  'ß',
  '東',
  '京',
  '🙂',
  '👩‍💻',
  '｜',
  '▁',
  '\u0000',
  '\u001f',
  '\u2028',
  '\ud800',
  '<|"|>',
  '</tool_call>',
  '>>>',
  '[ARGS]',
  '```',
  'True',
  'null',
];

/** Text with quotes, braces, newlines, escapes, markers and unicode (incl. astral and a lone surrogate). */
export const textArb = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
    { weight: 2, arbitrary: fc.constantFrom(...SPECIALS) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 24,
});

export const numberArb = fc
  .oneof(fc.integer(), fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
  .map((n) => (Object.is(n, -0) ? 0 : n));

export const identArb = fc.stringMatching(/^[a-z_][a-z0-9_]{0,11}$/).filter((s) => isPyIdentifier(s) && s !== 'all');

const { value: jsonValueArb } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    textArb,
    numberArb,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(textArb, tie('value'), { maxKeys: 4 }),
  ),
}));
export { jsonValueArb };

export const argsArb = (keyArb: fc.Arbitrary<string>) => fc.dictionary(keyArb, jsonValueArb, { maxKeys: 5 });

export const callArb = (keyArb: fc.Arbitrary<string> = textArb): fc.Arbitrary<ParsedCall> =>
  fc.record({ name: identArb, arguments: argsArb(keyArb) });

function everyString(v: unknown, ok: (s: string) => boolean): boolean {
  if (typeof v === 'string') return ok(v);
  if (Array.isArray(v)) return v.every((x) => everyString(x, ok));
  if (v && typeof v === 'object') return Object.entries(v).every(([k, x]) => ok(k) && everyString(x, ok));
  return true;
}

/** Families whose values are raw text typed by the tool schema: the round trip passes tools (toolsFromCalls). */
export const SCHEMA_TYPED: readonly Family[] = ['qwen3_xml', 'seed_oss', 'minimax', 'minicpm', 'glm'];

/** XML-style families: identifier parameter names, unique call names (one schema per name), no closing tag in strings. */
function xmlCalls(bad: (s: string) => boolean): fc.Arbitrary<ParsedCall[]> {
  return fc
    .array(callArb(identArb), { maxLength: 3 })
    .map((cs) => cs.map((c, i) => ({ ...c, name: `${c.name}_${i}` })))
    .filter((cs) => cs.every((c) => Object.values(c.arguments).every((v) => typeof v !== 'string' || !bad(v))));
}

/** Call lists a family's format can carry (see the header for why each constraint exists). */
export function callsFor(family: Family): fc.Arbitrary<ParsedCall[]> {
  switch (family) {
    case 'llama_pythonic':
    case 'lfm2':
      return fc.array(callArb(identArb), { maxLength: 3 });
    case 'gemma4':
      return fc
        .array(callArb(), { maxLength: 3 })
        .filter((cs) => cs.every((c) => everyString(c.arguments, (s) => !s.includes('<|"|>'))));
    case 'qwen3_xml':
      return xmlCalls((v) => v.includes('</parameter>') || /\n[ \t]*<\s*parameter\s*=/i.test(v));
    case 'seed_oss':
      return xmlCalls(
        (v) =>
          v.includes('</parameter>') || /\n[ \t]*<\s*parameter\s*=/i.test(v) || v.startsWith('\n') || v.endsWith('\n'),
      );
    case 'minimax':
      return xmlCalls((v) => v.includes('</parameter>'));
    case 'glm':
      return xmlCalls((v) => v.includes('</arg_value>'));
    case 'deepseek_dsml':
      return xmlCalls((v) => v.includes('</｜DSML｜parameter>'));
    case 'minicpm':
      return xmlCalls((v) => v.includes(']]>'));
    default:
      return fc.array(callArb(), { maxLength: 3 });
  }
}

function schemaOf(v: unknown): Record<string, unknown> {
  if (v === null) return { type: 'null' };
  if (Array.isArray(v)) return { type: 'array' };
  if (typeof v === 'object') return { type: 'object' };
  return { type: typeof v };
}

/** Tools whose parameter types match the generated values (qwen3_xml types raw text by schema). */
export function toolsFromCalls(calls: ParsedCall[]): ToolSchema[] {
  return calls.map((c) => ({
    name: c.name,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(c.arguments).map(([k, v]) => [k, schemaOf(v)])),
    },
  }));
}

/** Pieces of every family's syntax, for near-miss strings. */
export const NEAR_MISS_TOKENS = [
  '<tool_call>',
  '</tool_call>',
  '<tool_call',
  '< tool_call >',
  '<function=',
  '<function=f>',
  '</function>',
  '<parameter=',
  '<parameter=a>',
  '</parameter>',
  '<|python_tag|>',
  '<|python_start|>',
  '<|eom_id|>',
  '<|eot_id|>',
  '[TOOL_CALLS]',
  '[ARGS]',
  '[CALL_ID]',
  '<|tool_call|>',
  '<|tool_call>',
  '<tool_call|>',
  'call:',
  '<|"|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁sep｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁calls▁end｜>',
  '<|tool_calls_begin|>',
  'function',
  '>>>',
  '>>>all\n',
  '```',
  '```json\n',
  '{',
  '}',
  '{{',
  '}}',
  '[',
  ']',
  '(',
  ')',
  '"',
  "'",
  '\\',
  ':',
  ',',
  ';',
  '=',
  '\n',
  ' ',
  '"name"',
  "'name'",
  '"arguments"',
  '"parameters"',
  'name',
  'f',
  'get_weather',
  '1',
  '-',
  '1e',
  'True',
  'None',
  'null',
  'true',
  '"a"',
  'a=',
  "'x'",
  '"""',
  "'''",
  '\\u12',
  '\\x',
  '東',
  '🙂',
  '\ud800',
  // newer families and reasoning markers
  '<|channel|>',
  'analysis',
  'commentary',
  ' to=functions.f',
  '<|constrain|>json',
  '<|message|>',
  '<|call|>',
  '<|end|>',
  '<|start|>assistant',
  '<arg_key>',
  '</arg_key>',
  '<arg_value>',
  '</arg_value>',
  '<|tool_calls_section_begin|>',
  '<|tool_call_begin|>',
  'functions.f:0',
  '<|tool_call_argument_begin|>',
  '<|tool_call_end|>',
  '<｜DSML｜function_calls>',
  '<｜DSML｜invoke name="f">',
  '<｜DSML｜parameter name="a" string="true">',
  '</｜DSML｜parameter>',
  '</｜DSML｜invoke>',
  '<minimax:tool_call>',
  '<invoke name="f">',
  '<parameter name="a">',
  '</invoke>',
  '<seed:tool_call>',
  '</seed:tool_call>',
  '<|tool_call_start|>',
  '<|tools_prefix|>',
  '<|tools_suffix|>',
  '<function name="f">',
  '<param name="a">',
  '</param>',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '"tool_name"',
  '<TOOLCALL>',
  '</TOOLCALL>',
  '<tool_calls>',
  '</tool_calls>',
  'functools',
  '<|/tool_call|>',
  '<|action_start|><|plugin|>',
  '<|action_end|>',
  '<think>',
  '</think>',
  '[THINK]',
  '[/THINK]',
  '<seed:think>',
  '<|START_THINKING|>',
  '<|channel>thought',
  '<channel|>',
];

export const nearMissArb = fc.array(fc.constantFrom(...NEAR_MISS_TOKENS), { maxLength: 30 }).map((xs) => xs.join(''));

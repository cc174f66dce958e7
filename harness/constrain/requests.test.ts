import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderToolCalls, type ToolSchema } from '../parse/index.ts';
import { CONSTRAINABLE_FAMILIES as FAMILIES } from './families.ts';
import { acceptsLazy, acceptsTriggeredTags, compileGrammar } from './recognize.ts';
import { constraintFor, SERVERS, withConstraint, type Constraint } from './requests.ts';
import { strictToolSchema, unstrictArguments } from './strict.ts';

// The documented request shapes each server mode must produce, written from the servers' own sources (not from
// requests.ts). Captured bodies = the base request a transport sends, merged with the constraint's fields.

/**
 * llama.cpp server, POST /v1/completions (and /completion): fields read by `params_from_json_cmpl` in
 * tools/server/server-task.cpp (ggml-org/llama.cpp): `grammar` (string), `grammar_lazy` (bool),
 * `grammar_triggers` (array; each parsed by `server_grammar_trigger(json)`: `{type: int, value: string}` plus
 * `token` for type TOKEN; the int is common_grammar_trigger_type TOKEN=0, WORD=1, PATTERN=2, PATTERN_FULL=3),
 * `preserved_tokens` (array of strings). "Error: no triggers set for lazy grammar!" when lazy without triggers.
 * A WORD trigger that is one token must also be a preserved token ("Grammar trigger word should be marked as
 * preserved token"). README (tools/server/README.md, /completion options): `grammar`, `json_schema`, `n_predict`.
 */
const LlamaCppCompletion = z
  .object({
    prompt: z.string(),
    grammar: z.string().min(1),
    grammar_lazy: z.literal(true),
    grammar_triggers: z
      .array(
        z.union([
          z.object({ type: z.literal(1), value: z.string().min(1) }).strict(),
          z.object({ type: z.literal(0), value: z.string(), token: z.number().int() }).strict(),
          z.object({ type: z.union([z.literal(2), z.literal(3)]), value: z.string().min(1) }).strict(),
        ]),
      )
      .min(1),
    preserved_tokens: z.array(z.string()),
  })
  .loose()
  .refine((b) => !('json_schema' in b), 'json_schema and grammar are exclusive');

/**
 * vLLM, POST /v1/chat/completions and /v1/completions: docs/features/structured_outputs.md — "structural_tag ->
 * {"structured_outputs": {"structural_tag": ...}}", one extra parameter; StructuredOutputsParams takes exactly one
 * of json, regex, choice, grammar, json_object, structural_tag, and `structural_tag` is a string (JSON text).
 * The JSON is an xgrammar structural tag: {type: "structural_tag", format: {type: "triggered_tags", triggers,
 * tags: [{type: "tag", begin, content, end}]}} (xgrammar's structural tag format; vLLM's protocol keeps
 * `StructuralTagResponseFormat{type, format}` next to the legacy `{type, structures, triggers}`).
 */
const TriggeredTags = z
  .object({
    type: z.literal('structural_tag'),
    format: z
      .object({
        type: z.literal('triggered_tags'),
        triggers: z.array(z.string().min(1)).min(1),
        tags: z
          .array(
            z
              .object({
                type: z.literal('tag'),
                begin: z.string().min(1),
                content: z.object({ type: z.literal('grammar'), grammar: z.string().min(1) }).strict(),
                end: z.string(),
              })
              .strict(),
          )
          .min(1),
      })
      .strict()
      // xgrammar: each tag's begin starts with one of the triggers
      .refine(
        (f) => f.tags.every((t) => f.triggers.some((tr) => t.begin.startsWith(tr))),
        'a tag begin that no trigger starts',
      ),
  })
  .strict();
const StructuredOutputs = z
  .object({
    json: z.unknown(),
    regex: z.string(),
    choice: z.array(z.string()),
    grammar: z.string(),
    json_object: z.boolean(),
    structural_tag: z.string(),
  })
  .partial()
  .strict()
  .refine((o) => Object.keys(o).length === 1, 'exactly one structured-outputs constraint');
const VllmBody = z
  .object({ structured_outputs: StructuredOutputs })
  .loose()
  .refine(
    (b) =>
      !['guided_json', 'guided_regex', 'guided_choice', 'guided_grammar', 'guided_decoding_backend'].some(
        (k) => k in b,
      ),
    'guided_* fields were removed in vLLM 0.12',
  );

/**
 * SGLang, POST /v1/chat/completions: python/sglang/srt/entrypoints/openai/protocol.py —
 * `response_format: Union[ResponseFormat, StructuralTagResponseFormat]`, `StructuralTagResponseFormat =
 * Union[LegacyStructuralTagResponseFormat{type, structures, triggers}, xgrammar StructuralTag{type, format}]`.
 */
const SglangChat = z.object({ messages: z.array(z.unknown()), response_format: TriggeredTags }).loose();

/**
 * OpenAI chat completions, function calling in strict mode (platform.openai.com/docs/guides/function-calling,
 * "Strict mode"; structured-outputs "Supported schemas"): `tools[].function.strict: true`; every object
 * `additionalProperties: false` and every property in `required` (optional ones are made nullable);
 * `tool_choice` "auto" | "none" | "required" | {type: "function", function: {name}}.
 */
type S = Record<string, unknown>;
function strictModeProblems(s: unknown, path = '$'): string[] {
  if (typeof s !== 'object' || s === null) return [];
  const o = s as S;
  const out: string[] = [];
  const isObject = o.type === 'object' || (Array.isArray(o.type) && o.type.includes('object'));
  if (isObject) {
    if (o.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    const props = Object.keys((o.properties ?? {}) as S);
    const req = new Set((o.required ?? []) as string[]);
    for (const k of props) if (!req.has(k)) out.push(`${path}.${k}: not in required`);
  }
  for (const [k, v] of Object.entries((o.properties ?? {}) as S)) out.push(...strictModeProblems(v, `${path}.${k}`));
  if (o.items) out.push(...strictModeProblems(o.items, `${path}[]`));
  for (const [i, v] of ((o.anyOf ?? []) as unknown[]).entries()) out.push(...strictModeProblems(v, `${path}|${i}`));
  return out;
}
const OpenAIChat = z
  .object({
    messages: z.array(z.unknown()),
    tools: z
      .array(
        z
          .object({
            type: z.literal('function'),
            function: z
              .object({
                name: z.string(),
                description: z.string().optional(),
                parameters: z.record(z.string(), z.unknown()),
                strict: z.literal(true),
              })
              .strict(),
          })
          .strict(),
      )
      .min(1),
    tool_choice: z.union([
      z.enum(['auto', 'none', 'required']),
      z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ]),
  })
  .loose()
  .refine(
    (b) => b.tools.every((t) => strictModeProblems(t.function.parameters).length === 0),
    'strict-mode schema rules',
  );

// --- fixtures ----------------------------------------------------------------------------------------------

const TOOLS: ToolSchema[] = [
  {
    name: 'get_weather',
    description: 'Get the current weather',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string', minLength: 1 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['location'],
    },
  },
  {
    name: 'book_table',
    parameters: {
      type: 'object',
      properties: {
        guests: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string' } },
        contact: {
          type: 'object',
          properties: { phone: { type: 'string' }, email: { type: 'string' } },
          required: ['phone'],
        },
      },
      required: ['guests'],
    },
  },
];
const chatBase = {
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  tools: TOOLS.map((t) => ({ type: 'function', function: t })),
  tool_choice: 'auto',
  temperature: 0,
};
const completionBase = {
  model: 'm',
  prompt: '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
  temperature: 0,
  max_tokens: 512,
};

function ok(c: Constraint): Extract<Constraint, { ok: true }> {
  if (!c.ok) throw new Error(`refused: ${c.reason}`);
  return c;
}

describe('captured request bodies match each server’s documented shape', () => {
  it.each(FAMILIES)('llama.cpp completions, %s: lazy grammar with word triggers, every trigger preserved', (family) => {
    const c = ok(constraintFor('llamacpp', family, TOOLS, { transport: 'completions' }));
    const body = withConstraint(completionBase, c);
    expect(() => LlamaCppCompletion.parse(body)).not.toThrow();
    const triggers = (body.grammar_triggers as Array<{ value: string }>).map((t) => t.value);
    // single-token trigger words must be preserved tokens; every special-looking trigger is listed
    for (const t of triggers) if (/^<\|?[^<>]*\|?>$|^\[[A-Z_]+\]$/.test(t)) expect(body.preserved_tokens).toContain(t);
    expect(() => compileGrammar(body.grammar as string)).not.toThrow();
  });

  it('llama.cpp chat is refused with the server’s reason (custom grammar + tools is an error there)', () => {
    const c = constraintFor('llamacpp', 'hermes', TOOLS, { transport: 'chat' });
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.reason).toMatch(/Cannot use custom grammar constraints with tools/);
  });

  it.each(FAMILIES)('vLLM (chat and completions), %s: one structured_outputs.structural_tag string', (family) => {
    for (const transport of ['chat', 'completions'] as const) {
      const c = ok(constraintFor('vllm', family, TOOLS, { transport }));
      const body = withConstraint(transport === 'chat' ? chatBase : completionBase, c);
      expect(() => VllmBody.parse(body)).not.toThrow();
      const tag = TriggeredTags.parse(
        JSON.parse((body.structured_outputs as { structural_tag: string }).structural_tag),
      );
      for (const t of tag.format.tags) expect(() => compileGrammar(t.content.grammar)).not.toThrow();
    }
  });

  it.each(FAMILIES)('SGLang chat, %s: response_format structural tag', (family) => {
    const c = ok(constraintFor('sglang', family, TOOLS, { transport: 'chat' }));
    expect(() => SglangChat.parse(withConstraint(chatBase, c))).not.toThrow();
  });

  it('SGLang completions and OpenAI completions are refused with a reason', () => {
    for (const server of ['sglang', 'openai'] as const) {
      const c = constraintFor(server, 'hermes', TOOLS, { transport: 'completions' });
      expect(c.ok).toBe(false);
      if (!c.ok) expect(c.reason.length).toBeGreaterThan(40);
    }
  });

  it('OpenAI chat: strict tools replace the request’s tools, tool_choice stays auto (abstention possible)', () => {
    const c = ok(constraintFor('openai', null, TOOLS, { transport: 'chat' }));
    const body = withConstraint(chatBase, c);
    expect(() => OpenAIChat.parse(body)).not.toThrow();
    expect(body.tool_choice).toBe('auto');
    // the input schemas were not strict-mode valid, so the check above is not vacuous
    expect(strictModeProblems(TOOLS[1]!.parameters).length).toBeGreaterThan(0);
  });

  it('a server that constrains raw text needs the family; no tools means nothing to constrain', () => {
    for (const server of SERVERS.filter((s) => s !== 'openai'))
      expect(constraintFor(server, null, TOOLS, { transport: 'chat' }).ok).toBe(false);
    expect(constraintFor('vllm', 'hermes', [], { transport: 'chat' }).ok).toBe(false);
  });

  it('the header description names the mechanism, the triggers and the string bound', () => {
    const c = ok(constraintFor('llamacpp', 'hermes', TOOLS, { transport: 'completions', maxStringLength: 64 }));
    expect(c.description).toMatch(/lazy GBNF/);
    expect(c.description).toContain('<tool_call>');
    expect(c.description).toMatch(/≤ 64/);
    expect(ok(constraintFor('vllm', 'hermes', TOOLS, { transport: 'chat' })).description).toMatch(/unbounded/);
  });
});

describe('the constraint a server receives accepts the gold call and keeps abstention', () => {
  const call = { name: 'book_table', arguments: { guests: 4, contact: { phone: '+1 555 0100' } } };
  it.each(FAMILIES)('%s', (family) => {
    const text = renderToolCalls([call], family);
    const prose = 'No need for a tool, I can answer that.';
    const lc = ok(constraintFor('llamacpp', family, TOOLS, { transport: 'completions' }));
    const g = lc.body.grammar as string;
    const triggers = (lc.body.grammar_triggers as Array<{ value: string }>).map((t) => t.value);
    expect(acceptsLazy(g, triggers, text).accepted).toBe(true);
    expect(acceptsLazy(g, triggers, prose)).toEqual({ accepted: true, triggeredAt: null });
    const tag = TriggeredTags.parse(
      JSON.parse(
        (
          ok(constraintFor('vllm', family, TOOLS, { transport: 'chat' })).body.structured_outputs as {
            structural_tag: string;
          }
        ).structural_tag,
      ),
    );
    const tags = tag.format.tags.map((t) => ({ begin: t.begin, end: t.end, content: t.content.grammar }));
    expect(acceptsTriggeredTags(tags, tag.format.triggers, text)).toBe(true);
    expect(acceptsTriggeredTags(tags, tag.format.triggers, prose)).toBe(true);
  });
});

describe('strict schemas and back', () => {
  it('optional parameters become nullable and a null for them is dropped when scoring', () => {
    const s = strictToolSchema(TOOLS[0]!.parameters);
    expect(s.required).toEqual(['location', 'unit']);
    expect((s.properties as S).unit).toEqual({ type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] });
    expect((s.properties as S).location).toEqual({ type: 'string' });
    expect(unstrictArguments({ location: 'Oslo', unit: null }, TOOLS[0]!.parameters)).toEqual({ location: 'Oslo' });
    // a null for a required parameter is the model's value and stays (scoring will flag it)
    expect(unstrictArguments({ location: null, unit: 'celsius' }, TOOLS[0]!.parameters)).toEqual({
      location: null,
      unit: 'celsius',
    });
  });
});

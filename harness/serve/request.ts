/**
 * The request bodies `toolgauge serve` accepts, as zod schemas: the OpenAI fields plus the llama-server ones toolgauge
 * sends (grammar, lazy grammar triggers, json_schema, repeat_penalty …). A field the server does not implement and
 * that would change the result is refused with a 400 naming it — a silently ignored field would make a run measure
 * something other than what it asked for. Fields that cannot change the output (`user`, `cache_prompt`, …) are
 * accepted and ignored.
 */
import { z } from 'zod';

/** An answer with an HTTP status and an OpenAI-style error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = status >= 500 ? 'server_error' : 'invalid_request_error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const TextPart = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
const Content = z.union([z.string(), z.null(), z.array(TextPart)]);

const ToolCall = z
  .object({
    id: z.string().optional(),
    type: z.literal('function').optional(),
    function: z
      .object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) })
      .passthrough(),
  })
  .passthrough();

// Messages pass through: a template may read fields beyond these (reasoning_content, …).
const Message = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: Content.optional(),
    tool_calls: z.array(ToolCall).optional(),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
  })
  .passthrough();

const Tool = z.object({
  type: z.literal('function'),
  function: z
    .object({
      name: z.string().min(1),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().optional(),
    })
    .passthrough(),
});

const ToolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

/** llama.cpp's trigger types: 0 token, 1 word, 2 pattern, 3 pattern_full (numbers, or their names). */
const Trigger = z.object({
  type: z.union([z.number().int().min(0).max(3), z.enum(['token', 'word', 'pattern', 'pattern_full'])]),
  value: z.string().min(1),
  token: z.number().int().optional(),
});

const ResponseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object'), schema: z.record(z.string(), z.unknown()).optional() }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z
      .object({
        name: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().optional(),
        description: z.string().optional(),
      })
      .passthrough(),
  }),
]);

/** Sampling and constraint fields shared by both endpoints. */
const common = {
  model: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  repeat_penalty: z.number().positive().optional(),
  repetition_penalty: z.number().positive().optional(),
  max_tokens: z.number().int().min(1).optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(16)])
    .nullable()
    .optional(),
  n: z.number().int().optional(),
  stream: z.literal(false, { message: 'streaming is not supported by toolgauge serve: send stream false' }).optional(),
  grammar: z.string().optional(),
  grammar_lazy: z.boolean().optional(),
  grammar_triggers: z.array(Trigger).optional(),
  json_schema: z.record(z.string(), z.unknown()).optional(),
  response_format: ResponseFormat.optional(),
  // Token ids as keys (the OpenAI form). -100 forbids the token.
  logit_bias: z
    .record(z.string().regex(/^\d+$/, 'logit_bias keys must be token ids'), z.number().min(-100).max(100))
    .optional(),
  frequency_penalty: z.literal(0, { message: 'frequency_penalty is not supported (only 0)' }).optional(),
  presence_penalty: z.literal(0, { message: 'presence_penalty is not supported (only 0)' }).optional(),
  // Accepted and ignored: they cannot change the output.
  user: z.string().optional(),
  cache_prompt: z.boolean().optional(),
  preserved_tokens: z.array(z.string()).optional(),
};

export const ChatBody = z
  .object({
    ...common,
    messages: z.array(Message).min(1),
    tools: z.array(Tool).optional(),
    tool_choice: ToolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    logprobs: z.boolean().optional(),
    top_logprobs: z.number().int().min(0).max(20).optional(),
    max_completion_tokens: z.number().int().min(1).optional(),
    chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ChatBody = z.infer<typeof ChatBody>;

export const CompletionBody = z
  .object({
    ...common,
    // Not empty: the engine has nothing to continue from (and is not asked to check the request again, sampling.ts).
    prompt: z.union([
      z.string().min(1, 'the prompt is empty'),
      z.array(z.string().min(1, 'the prompt is empty')).length(1, 'prompt: only one prompt per request'),
    ]),
    logprobs: z.number().int().min(0).max(20).nullable().optional(),
    echo: z.literal(false, { message: 'echo is not supported' }).optional(),
  })
  .strict();
export type CompletionBody = z.infer<typeof CompletionBody>;

export const TokenizeBody = z
  .object({ content: z.string(), parse_special: z.boolean().optional(), add_special: z.literal(false).optional() })
  .strict();
export const DetokenizeBody = z.object({ tokens: z.array(z.number().int().min(0)) }).strict();

/** Parse a body or throw a 400 naming the first bad field (an unknown field: "not supported"). */
export function parseBody<S extends z.ZodType>(schema: S, json: unknown): z.infer<S> {
  const r = schema.safeParse(json);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    throw new HttpError(
      400,
      `unsupported field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k}'`).join(', ')}: toolgauge serve does not implement ${keys.length > 1 ? 'them' : 'it'}, and ignoring ${keys.length > 1 ? 'them' : 'it'} could change the result`,
    );
  }
  const path = issue.path.join('.') || '(body)';
  throw new HttpError(400, `invalid field '${path}': ${issue.message}`);
}

/** Checks across fields (the schema checks each alone). */
export function checkCommon(b: {
  n?: number | undefined;
  grammar_lazy?: boolean | undefined;
  grammar?: string | undefined;
  grammar_triggers?: unknown[] | undefined;
}): void {
  if (b.n !== undefined && b.n !== 1)
    throw new HttpError(
      400,
      `invalid field 'n': toolgauge serve generates one choice per request (n must be 1, got ${b.n})`,
    );
  if (b.grammar_lazy && !b.grammar)
    throw new HttpError(400, "invalid field 'grammar_lazy': a lazy grammar needs 'grammar'");
  if (b.grammar_lazy && !b.grammar_triggers?.length)
    throw new HttpError(400, "invalid field 'grammar_triggers': a lazy grammar needs at least one trigger");
  if (!b.grammar_lazy && b.grammar_triggers?.length)
    throw new HttpError(400, "invalid field 'grammar_triggers': triggers apply only with grammar_lazy true");
}

/**
 * `--decode constrained`: what to add to a request so that the server constrains the model's tool call to the
 * case's tools, in the model family's native format, while the model can still decline (trigger-gated).
 *
 * | server   | transport   | mechanism                                                                          |
 * |----------|-------------|------------------------------------------------------------------------------------|
 * | llamacpp | completions | `grammar` (GBNF) + `grammar_lazy: true` + `grammar_triggers` (words) + `preserved_tokens` |
 * | llamacpp | completions, `required` | `grammar` (GBNF, not lazy: binds the output from its first token; one call) + `preserved_tokens` |
 * | llamacpp | chat        | refused: llama-server rejects a custom grammar with `tools` and already applies its own lazy tool grammar |
 * | vllm     | both        | `structured_outputs: {structural_tag: "<JSON>"}` — xgrammar triggered tags, grammar content |
 * | sglang   | chat        | `response_format: {type: "structural_tag", format: {...}}` (same triggered tags)   |
 * | sglang   | completions | refused: its completions constraints (json_schema / regex / ebnf) bind the whole output, so abstention would go |
 * | openai   | chat        | the tools with `strict: true` (strict-mode schemas) and `tool_choice: "auto"`      |
 * | openai   | completions | refused: no tool or grammar constraint on that endpoint                            |
 *
 * The documented request shapes, with their sources, are in requests.test.ts. Pure: no I/O.
 */
import type { Family, ToolSchema } from '../parse/index.ts';
import { callFormat, CONSTRAINABLE_FAMILIES, lazyGbnf, tagGbnf, type CallFormat } from './families.ts';
import { strictToolSchema } from './strict.ts';

export const SERVERS = ['vllm', 'sglang', 'llamacpp', 'openai'] as const;
export type Server = (typeof SERVERS)[number];
export type Transport = 'chat' | 'completions';

/** llama.cpp's common_grammar_trigger_type: TOKEN = 0, WORD = 1, PATTERN = 2, PATTERN_FULL = 3. */
export const LLAMACPP_TRIGGER_WORD = 1;

export interface ConstraintOptions {
  transport: Transport;
  /** Bound on every free string in the arguments (`--max-string-length`); default: unbounded. */
  maxStringLength?: number;
  /** A call is required: the grammar binds the whole output (no trigger, no abstention). llama.cpp only. */
  required?: boolean;
}

/** What the simulator (and the recognizer) needs to know about the constraint in force. */
export interface ConstraintSpec {
  mode: 'lazy_grammar' | 'triggered_tags' | 'strict_tools';
  family: Family | null;
  tools: ToolSchema[];
  maxStringLength: number | null;
  /** lazy_grammar: the GBNF text and its trigger words. */
  grammar?: string;
  triggers?: string[];
  /** triggered_tags: begin / end literals with the content grammar of each. */
  tags?: Array<{ begin: string; content: string; end: string }>;
}

export type Constraint =
  | {
      ok: true;
      server: Server;
      transport: Transport;
      mechanism:
        | 'llamacpp_lazy_grammar'
        | 'llamacpp_grammar'
        | 'vllm_structural_tag'
        | 'sglang_structural_tag'
        | 'openai_strict_tools';
      /** Fields to merge into the request body, after the client's own (they replace `tools` for openai). */
      body: Record<string, unknown>;
      /** One line for the report header. */
      description: string;
      spec: ConstraintSpec;
    }
  | { ok: false; server: Server; transport: Transport; reason: string };

/** The xgrammar structural tag (triggered tags with grammar content) for a call format. */
export function structuralTag(f: CallFormat): Record<string, unknown> {
  return {
    type: 'structural_tag',
    format: {
      type: 'triggered_tags',
      triggers: [...new Set(f.tags.map((t) => t.begin))],
      tags: f.tags.map((t) => ({
        type: 'tag',
        begin: t.begin,
        content: { type: 'grammar', grammar: tagGbnf(f, t) },
        end: t.end,
      })),
    },
  };
}

const bound = (o: ConstraintOptions) =>
  o.maxStringLength === undefined ? 'strings unbounded' : `strings ≤ ${o.maxStringLength} chars`;

export function constraintFor(
  server: Server,
  family: Family | null,
  tools: readonly ToolSchema[],
  opts: ConstraintOptions,
): Constraint {
  const { transport } = opts;
  const refuse = (reason: string): Constraint => ({ ok: false, server, transport, reason });
  if (tools.length === 0) return refuse('the case offers no tools: there is nothing to constrain a call to');
  const maxStringLength = opts.maxStringLength ?? null;
  if (opts.required && server !== 'llamacpp')
    return refuse(
      `a required call (--decode required) is written for --server llamacpp (a grammar binding the whole output) only; --server ${server} has no such request here`,
    );

  if (server === 'openai') {
    if (transport !== 'chat')
      return refuse("OpenAI's completions endpoint has no tool or grammar constraint; use --transport chat");
    const strict = tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: strictToolSchema(t.parameters),
        strict: true,
      },
    }));
    return {
      ok: true,
      server,
      transport,
      mechanism: 'openai_strict_tools',
      body: { tools: strict, tool_choice: 'auto' },
      description: `OpenAI strict function schemas (${tools.length} tools, tool_choice auto: the model may still answer in prose); optional parameters become nullable and nulls are dropped before scoring`,
      spec: { mode: 'strict_tools', family, tools: [...tools], maxStringLength },
    };
  }

  if (family === null)
    return refuse(
      `--server ${server} constrains the model's own output text, so it needs the model family (give --template or --family)`,
    );
  if (server === 'llamacpp' && transport === 'chat')
    return refuse(
      "llama-server refuses a custom grammar together with tools ('Cannot use custom grammar constraints with tools.'), and with --jinja it already applies its own lazy tool-call grammar whenever tools are sent, so free and constrained decoding cannot be told apart on the chat transport; use --transport completions",
    );
  if (server === 'sglang' && transport === 'completions')
    return refuse(
      "SGLang's completions constraints (json_schema, regex, ebnf) bind the whole output, which would take abstention away; its structural tags are documented for chat completions' response_format: use --transport chat",
    );

  if (!CONSTRAINABLE_FAMILIES.includes(family))
    return refuse(
      `no call grammar for the ${family} format yet (constrainable: ${CONSTRAINABLE_FAMILIES.join(', ')}); use --server openai or --decode free`,
    );
  const f = callFormat(family, tools, {
    ...(opts.maxStringLength === undefined ? {} : { maxStringLength: opts.maxStringLength }),
    ...(opts.required ? { singleCall: true } : {}),
  });
  if (server === 'llamacpp' && opts.required) {
    const grammar = lazyGbnf(f);
    return {
      ok: true,
      server,
      transport,
      mechanism: 'llamacpp_grammar',
      body: { grammar, preserved_tokens: f.preservedTokens },
      description: `llama.cpp GBNF grammar binding the whole output (one call required: no abstention, no parallel calls), ${family} format; ${bound(opts)}`,
      spec: { mode: 'lazy_grammar', family, tools: [...tools], maxStringLength, grammar, triggers: [] },
    };
  }
  if (server === 'llamacpp') {
    const grammar = lazyGbnf(f);
    return {
      ok: true,
      server,
      transport,
      mechanism: 'llamacpp_lazy_grammar',
      body: {
        grammar,
        grammar_lazy: true,
        grammar_triggers: f.triggers.map((value) => ({ type: LLAMACPP_TRIGGER_WORD, value })),
        preserved_tokens: f.preservedTokens,
      },
      description: `llama.cpp lazy GBNF grammar, ${family} format, triggers ${f.triggers.map((t) => JSON.stringify(t)).join(', ')}; ${bound(opts)}`,
      spec: { mode: 'lazy_grammar', family, tools: [...tools], maxStringLength, grammar, triggers: f.triggers },
    };
  }
  const tag = structuralTag(f);
  const tags = f.tags.map((t) => ({ begin: t.begin, content: tagGbnf(f, t), end: t.end }));
  const spec: ConstraintSpec = {
    mode: 'triggered_tags',
    family,
    tools: [...tools],
    maxStringLength,
    tags,
    triggers: [...new Set(f.tags.map((t) => t.begin))],
  };
  if (server === 'vllm')
    return {
      ok: true,
      server,
      transport,
      mechanism: 'vllm_structural_tag',
      body: { structured_outputs: { structural_tag: JSON.stringify(tag) } },
      description: `vLLM structural tag (xgrammar triggered tags), ${family} format, triggers ${spec.triggers!.map((t) => JSON.stringify(t)).join(', ')}; ${bound(opts)}`,
      spec,
    };
  return {
    ok: true,
    server,
    transport,
    mechanism: 'sglang_structural_tag',
    body: { response_format: tag },
    description: `SGLang structural tag response_format (xgrammar triggered tags), ${family} format, triggers ${spec.triggers!.map((t) => JSON.stringify(t)).join(', ')}; ${bound(opts)}`,
    spec,
  };
}

/** The request body with the constraint's fields merged in (the constraint wins, e.g. strict `tools`). */
export function withConstraint<T extends Record<string, unknown>>(body: T, c: Constraint): T & Record<string, unknown> {
  return c.ok ? { ...body, ...c.body } : body;
}

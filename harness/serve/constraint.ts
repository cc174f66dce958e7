/**
 * Which grammar a request decodes under, built with toolgauge's own grammar builders (harness/constrain) and compiled
 * by llama.cpp: a raw `grammar` (eager or lazy with word triggers), `json_schema`, `response_format` json_object /
 * json_schema, or — on chat — the call grammar `tool_choice: "required"` or a named function enforces. At most one
 * source per request: two would have to be intersected, which neither llama-server nor this server does. Pure.
 */
import { callFormat, CONSTRAINABLE_FAMILIES, lazyGbnf, type CallFormat } from '../constrain/families.ts';
import { alt, lit, RuleSet, seq } from '../constrain/gbnf.ts';
import { SchemaGrammar } from '../constrain/schema-gbnf.ts';
import { oversizedSchema, unenforcedSchema } from '../constrain/schema-support.ts';
import type { Family, ToolSchema } from '../parse/index.ts';
import { checkGrammarSize } from './limits.ts';
import { HttpError, type ChatBody, type CompletionBody } from './request.ts';

export interface Constraint {
  /** The GBNF grammar; undefined: free decoding. */
  grammar?: string;
  /** A lazy grammar: free text until one of these words appears, then the grammar from the word on. */
  triggers?: string[];
  /** Where the grammar came from (for messages). */
  source: string;
}

/**
 * GBNF for one JSON value of `schema` (any JSON object for json_object), whitespace allowed after it. A schema the
 * grammar cannot enforce keyword by keyword is a 400 naming `field` and the keyword (schema-support.ts).
 */
export function jsonSchemaGbnf(schema: Record<string, unknown>, field = 'json_schema'): string {
  const why = unenforcedSchema(schema, field);
  if (why) throw schemaRefusal(why);
  const rules = new RuleSet();
  const g = new SchemaGrammar(rules);
  const value = g.value(schema, 'json');
  return rules.toGbnf(seq(value, g.ws()));
}

/** `path: reason` as the server's one-line 400. */
const schemaRefusal = (why: string) => new HttpError(400, `invalid field ${why.replace(/^(.+?): /, "'$1': ")}`);

const TRIGGER_NAMES = ['token', 'word', 'pattern', 'pattern_full'] as const;

/** The grammar fields every endpoint shares: grammar (+ lazy), json_schema, response_format. */
function rawConstraint(
  b: Pick<CompletionBody, 'grammar' | 'grammar_lazy' | 'grammar_triggers' | 'json_schema' | 'response_format'>,
): Constraint[] {
  const out: Constraint[] = [];
  if (b.grammar !== undefined) {
    checkGrammarSize('grammar', b.grammar);
    if (b.grammar_lazy) {
      const triggers = (b.grammar_triggers ?? []).map((t, i) => {
        const type = typeof t.type === 'number' ? TRIGGER_NAMES[t.type]! : t.type;
        // A token trigger names its token by its text too; both match the generated text.
        if (type === 'pattern' || type === 'pattern_full')
          throw new HttpError(
            400,
            `invalid field 'grammar_triggers.${i}.type': ${type} triggers are not supported by toolgauge serve (word and token triggers are)`,
          );
        return t.value;
      });
      out.push({ grammar: b.grammar, triggers, source: 'grammar (lazy)' });
    } else out.push({ grammar: b.grammar, source: 'grammar' });
  }
  if (b.json_schema !== undefined) out.push({ grammar: jsonSchemaGbnf(b.json_schema), source: 'json_schema' });
  const rf = b.response_format;
  if (rf?.type === 'json_object')
    out.push({
      grammar: jsonSchemaGbnf(rf.schema ?? { type: 'object' }, 'response_format.schema'),
      source: 'response_format',
    });
  if (rf?.type === 'json_schema')
    out.push({
      grammar: jsonSchemaGbnf(rf.json_schema.schema ?? { type: 'object' }, 'response_format.json_schema.schema'),
      source: 'response_format',
    });
  return out;
}

function one(cs: Constraint[]): Constraint {
  if (cs.length > 1)
    throw new HttpError(
      400,
      `conflicting constraints: ${cs.map((c) => `'${c.source}'`).join(' and ')} each constrain the output; send one`,
    );
  return cs[0] ?? { source: 'none' };
}

export function completionConstraint(b: CompletionBody): Constraint {
  return one(rawConstraint(b));
}

export const toolSchemas = (b: Pick<ChatBody, 'tools'>): ToolSchema[] =>
  (b.tools ?? []).map((t) => ({
    name: t.function.name,
    ...(t.function.description !== undefined ? { description: t.function.description } : {}),
    ...(t.function.parameters ? { parameters: t.function.parameters } : {}),
  }));

/**
 * A chat request's constraint. `tool_choice` required / named forces a call in the template's own format from the
 * first generated token (the family's call grammar, the same one `--decode constrained` sends llama-server lazily).
 */
export function chatConstraint(b: ChatBody, family: Family | null): Constraint {
  const cs = rawConstraint(b);
  const choice = b.tool_choice ?? 'auto';
  const tools = toolSchemas(b);
  if (choice !== 'auto' && choice !== 'none') {
    if (!tools.length)
      throw new HttpError(400, "invalid field 'tool_choice': it asks for a tool call but the request has no 'tools'");
    const named = typeof choice === 'object' ? choice.function.name : null;
    const chosen = named === null ? tools : tools.filter((t) => t.name === named);
    if (!chosen.length)
      throw new HttpError(400, `invalid field 'tool_choice.function.name': no tool named '${named}' in 'tools'`);
    if (family === null)
      throw new HttpError(
        400,
        "invalid field 'tool_choice': the model's chat template writes no tool-call format toolgauge recognises, so a call cannot be enforced; use tool_choice auto",
      );
    if (!CONSTRAINABLE_FAMILIES.includes(family))
      throw new HttpError(
        400,
        `invalid field 'tool_choice': no call grammar for the ${family} format yet (constrainable: ${CONSTRAINABLE_FAMILIES.join(', ')}); use tool_choice auto`,
      );
    // The tools' parameters become the call grammar: bounded in size first (nesting, enum values).
    for (const [i, t] of (b.tools ?? []).entries()) {
      const why = oversizedSchema(t.function.parameters ?? {}, `tools.${i}.function.parameters`);
      if (why) throw schemaRefusal(why);
    }
    const f = callFormat(family, chosen);
    cs.push({
      grammar: (b.parallel_tool_calls === false ? singleCallGbnf(f) : null) ?? lazyGbnf(f),
      source: 'tool_choice',
    });
  }
  return one(cs);
}

/**
 * Exactly one call (`parallel_tool_calls: false`): a call's begin, content and end, for families whose calls are
 * closed by an end marker (Hermes `</tool_call>`, …). Null for the others: their grammar may then write more calls,
 * and the reply keeps the first.
 */
export function singleCallGbnf(f: CallFormat): string | null {
  if (!f.tags.length || f.tags.some((t) => t.end === '')) return null;
  return f.rules.toGbnf(alt(f.tags.map((t) => seq(lit(t.begin), t.content, lit(t.end)))));
}

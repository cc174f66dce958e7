/**
 * The constraint a request carries, read back from its body — what a server would enforce. The simulator uses it
 * to play a constrained decoder for whichever server shape toolgauge sent (constraintFor builds the body; this
 * reads any body of those shapes, from toolgauge or anyone else). Pure.
 *
 * - llama.cpp completions: `grammar` + `grammar_lazy` + `grammar_triggers` (WORD triggers) → lazy_grammar;
 * - vLLM: `structured_outputs.structural_tag` (a JSON string) → triggered_tags;
 * - SGLang: `response_format: {type: "structural_tag", format: {type: "triggered_tags", …}}` → triggered_tags;
 * - OpenAI: any `tools[].function.strict === true` → strict_tools (the tools' strict schemas).
 *
 * `tools` are the schemas the constrained call must fit when the body does not carry them (completions).
 */
import type { Family, ToolSchema } from '../parse/index.ts';
import { LLAMACPP_TRIGGER_WORD, type ConstraintSpec } from './requests.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Triggered tags (xgrammar's structural tag) → the spec's tags and triggers; null when the shape is not that. */
function triggeredTags(tag: unknown): Pick<ConstraintSpec, 'tags' | 'triggers'> | null {
  if (!isObj(tag) || tag.type !== 'structural_tag' || !isObj(tag.format) || tag.format.type !== 'triggered_tags')
    return null;
  const f = tag.format;
  if (!Array.isArray(f.tags) || !Array.isArray(f.triggers)) return null;
  const tags: NonNullable<ConstraintSpec['tags']> = [];
  for (const t of f.tags) {
    if (
      !isObj(t) ||
      typeof t.begin !== 'string' ||
      typeof t.end !== 'string' ||
      !isObj(t.content) ||
      t.content.type !== 'grammar' ||
      typeof t.content.grammar !== 'string'
    )
      return null;
    tags.push({ begin: t.begin, content: t.content.grammar, end: t.end });
  }
  return { tags, triggers: f.triggers.filter((x): x is string => typeof x === 'string') };
}

/**
 * The bound on free strings a grammar enforces (what `--max-string-length` wrote into it): the largest `{m,N}` on a
 * string-character rule, or null when some free string is unbounded (`*`) or the grammar has none. The simulated
 * decoder needs it to let a looping string close at the bound.
 */
export function stringBoundOf(grammars: readonly string[]): number | null {
  let bound: number | null = null;
  for (const g of grammars) {
    if (/-char(?:-sq|-dq)?\*/.test(g)) return null;
    for (const m of g.matchAll(/-char(?:-sq|-dq)?\{\d+,(\d+)\}/g)) bound = Math.max(bound ?? 0, Number(m[1]));
  }
  return bound;
}

export function constraintOfRequest(
  body: Obj,
  family: Family | null,
  tools: readonly ToolSchema[],
): ConstraintSpec | null {
  if (typeof body.grammar === 'string' && body.grammar !== '') {
    const triggers = Array.isArray(body.grammar_triggers)
      ? body.grammar_triggers
          .filter(
            (t): t is { type: number; value: string } =>
              isObj(t) && t.type === LLAMACPP_TRIGGER_WORD && typeof t.value === 'string',
          )
          .map((t) => t.value)
      : [];
    // A grammar that is not lazy binds the whole output from the first token: triggers then mean nothing.
    return {
      mode: 'lazy_grammar',
      family,
      tools: [...tools],
      maxStringLength: stringBoundOf([body.grammar]),
      grammar: body.grammar,
      triggers: body.grammar_lazy === true ? triggers : [],
    };
  }
  // A structural tag, as vLLM's structured_outputs carries it (JSON text) or as SGLang's response_format does.
  const triggered = (tag: unknown): ConstraintSpec | null => {
    const t = triggeredTags(tag);
    if (!t) return null;
    return {
      mode: 'triggered_tags',
      family,
      tools: [...tools],
      maxStringLength: stringBoundOf(t.tags!.map((x) => x.content)),
      ...t,
    };
  };
  const so = isObj(body.structured_outputs) ? body.structured_outputs : null;
  if (so && typeof so.structural_tag === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(so.structural_tag);
    } catch {
      return null;
    }
    const c = triggered(parsed);
    if (c) return c;
  }
  if (isObj(body.response_format)) {
    const c = triggered(body.response_format);
    if (c) return c;
  }
  if (Array.isArray(body.tools)) {
    const fns = body.tools.map((t) => (isObj(t) && isObj(t.function) ? t.function : null));
    if (fns.some((f) => f?.strict === true)) {
      const strictTools = fns
        .filter((f): f is Obj => f !== null && typeof f.name === 'string')
        .map((f) => ({
          name: f.name as string,
          ...(typeof f.description === 'string' ? { description: f.description } : {}),
          ...(isObj(f.parameters) ? { parameters: f.parameters } : {}),
        }));
      return { mode: 'strict_tools', family, tools: strictTools, maxStringLength: null };
    }
  }
  return null;
}

import { parseToolCalls, type Family, type ParsedCall, type ParseResult, type ToolSchema } from '../../parse/index.ts';
import type { TierObservation } from '../../calls/score/index.ts';
import type { Tier } from '../../calls/attribute/index.ts';

/**
 * What each parser tier recovers from one model output. Pure.
 *
 * - completions: toolgauge parses the raw text itself — the strict tier with the family's native format only,
 *   the lenient tier rescuing whatever is recoverable.
 * - chat: the server already parsed. The strict tier is exactly the server's `tool_calls` (arguments must be
 *   a JSON object); the lenient tier repairs malformed `tool_calls` arguments and, when the server returned
 *   no `tool_calls`, rescues calls from the message `content` — such a rescue is a framework parser gap.
 */

export interface TierParse extends TierObservation {
  /** Which tier of the parser produced the calls ('strict' | 'lenient' | 'none'), or 'server' for tool_calls. */
  tier: 'strict' | 'lenient' | 'none' | 'server';
  format: string | null;
  notes: string[];
}

export interface Observation {
  strict: TierParse;
  lenient: TierParse;
  /** The lowest tier that recovered a call: 'strict' (or the server), 'lenient', or 'none'. */
  parseTier: 'strict' | 'lenient' | 'none';
}

export interface ChatOutput {
  content: string | null;
  tool_calls: Array<{ name: string; arguments: string }>;
  finish_reason: string | null;
}

export interface ObserveOptions {
  family: Family | null;
  tools: ToolSchema[];
}

function fromParse(r: ParseResult, truncatedByEndpoint: boolean): TierParse {
  return {
    calls: r.calls,
    attempted: r.attempted || r.calls.length > 0,
    truncated: r.truncated || (truncatedByEndpoint && r.attempted && r.calls.length === 0),
    tier: r.tier,
    format: r.format,
    notes: r.notes,
  };
}

function parseTierOf(strict: TierParse, lenient: TierParse): Observation['parseTier'] {
  return strict.calls.length > 0 ? 'strict' : lenient.calls.length > 0 ? 'lenient' : 'none';
}

/** Raw completion text → both tiers. */
export function observeText(text: string, finishReason: string | null, o: ObserveOptions): Observation {
  const format = o.family ?? 'auto';
  const cut = finishReason === 'length';
  const strict = fromParse(parseToolCalls(text, { tier: 'strict', format, tools: o.tools }), cut);
  const lenient = fromParse(parseToolCalls(text, { tier: 'lenient', format, tools: o.tools }), cut);
  // "Attempted" and "truncated" describe the text, not a tier: both tiers report the same.
  const attempted = strict.attempted || lenient.attempted;
  const truncated = strict.truncated || lenient.truncated;
  strict.attempted = lenient.attempted = attempted;
  strict.truncated = lenient.truncated = truncated;
  return { strict, lenient, parseTier: parseTierOf(strict, lenient) };
}

function jsonObject(s: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(s);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A chat response → both tiers. */
export function observeChat(out: ChatOutput, o: ObserveOptions): Observation {
  const content = out.content ?? '';
  const cut = out.finish_reason === 'length';
  const inContent = parseToolCalls(content, { tier: 'lenient', format: o.family ?? 'auto', tools: o.tools });
  if (out.tool_calls.length > 0) {
    const strictCalls: ParsedCall[] = [];
    const lenientCalls: ParsedCall[] = [];
    let allJson = true;
    const notes: string[] = [];
    for (const tc of out.tool_calls) {
      const args = jsonObject(tc.arguments.trim() === '' ? '{}' : tc.arguments);
      if (args) {
        strictCalls.push({ name: tc.name, arguments: args });
        lenientCalls.push({ name: tc.name, arguments: args });
        continue;
      }
      allJson = false;
      // Let the lenient parser repair the arguments string (single quotes, Python literals, doubled braces …).
      const repaired = parseToolCalls(JSON.stringify({ name: tc.name, arguments: tc.arguments }), {
        tier: 'lenient',
        tools: o.tools,
      });
      if (repaired.calls.length === 1) {
        lenientCalls.push(repaired.calls[0]!);
        notes.push(`repaired tool_calls arguments of ${tc.name}`);
      }
    }
    const strict: TierParse = {
      calls: allJson ? strictCalls : [],
      attempted: true,
      truncated: cut && !allJson,
      tier: allJson ? 'server' : 'none',
      format: 'tool_calls',
      notes: allJson ? [] : ['tool_calls arguments are not a JSON object'],
    };
    const lenient: TierParse = {
      calls: lenientCalls,
      attempted: true,
      truncated: cut && lenientCalls.length === 0,
      tier: lenientCalls.length ? (allJson ? 'server' : 'lenient') : 'none',
      format: 'tool_calls',
      notes,
    };
    return { strict, lenient, parseTier: parseTierOf(strict, lenient) };
  }
  const attempted = inContent.attempted;
  const truncated = inContent.truncated || (cut && attempted && inContent.calls.length === 0);
  const strict: TierParse = { calls: [], attempted, truncated, tier: 'none', format: null, notes: [] };
  const lenient: TierParse = { ...fromParse(inContent, cut), attempted, truncated };
  return { strict, lenient, parseTier: parseTierOf(strict, lenient) };
}

export const tierObservation = (t: TierParse): TierObservation => ({
  calls: t.calls,
  attempted: t.attempted,
  truncated: t.truncated,
});
export type { Tier };

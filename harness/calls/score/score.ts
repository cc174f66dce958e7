import type { OpenAITool } from '../../core/chat.ts';
import type { ParsedCall } from '../../parse/index.ts';
import { matchCalls } from '../../match/calls.ts';
import type { Mismatch } from '../../match/rules.ts';
import type { ArgRule, ExpectedCall } from '../../match/types.ts';
import { schemaErrors } from './schema.ts';

/** What one parser tier saw in a model output. */
export interface TierObservation {
  calls: ParsedCall[];
  /** The output tried to call a tool (markers, call-shaped JSON …), whether or not a call was recovered. */
  attempted: boolean;
  /** A call was cut off by the end of the output (or the endpoint stopped on max tokens). */
  truncated: boolean;
}

/** 1 / 0, or null when the case is not in that metric's denominator. */
export type Bit = 0 | 1 | null;

/**
 * The layered scores of one case under one tier (docs/probe.md), each with its own denominator:
 * - parse_ok: call-expected cases — a call was recovered;
 * - schema_valid: call-expected cases with a call — every call names a listed tool with schema-valid arguments;
 * - tool_correct: call-expected cases with a call — the called tools are the expected ones (as a multiset);
 * - args_correct: cases with tool_correct — every argument matches under the case's rules;
 * - abstained / false_trigger: abstention cases — no call attempted / a call attempted or made;
 * - no_call: call-expected cases — nothing call-like at all (a wrong abstention).
 * `passed`: a call-expected case passes with every layer 1; an abstention case when it abstained.
 */
export interface LayeredScore {
  parse_ok: Bit;
  schema_valid: Bit;
  tool_correct: Bit;
  args_correct: Bit;
  abstained: Bit;
  false_trigger: Bit;
  no_call: Bit;
  passed: boolean;
  /** Why not, in words (schema errors, argument mismatches, wrong tools). */
  problems: string[];
  mismatches: Mismatch[];
}

/** The layers a scored call passes or fails, in order (what a case records, charts and tables show per layer). */
export const CALL_LAYERS = [
  'parse_ok',
  'schema_valid',
  'tool_correct',
  'args_correct',
  'abstained',
  'false_trigger',
] as const;
/** The layers and, beside them, no_call (a call-expected case that got no call). */
export const LAYERED_METRICS = [...CALL_LAYERS, 'no_call'] as const;
export type LayeredMetric = (typeof LAYERED_METRICS)[number];

export const METRIC_DENOMINATORS: Record<LayeredMetric, string> = {
  parse_ok: 'call-expected cases',
  schema_valid: 'call-expected cases where a call was parsed',
  tool_correct: 'call-expected cases where a call was parsed',
  args_correct: 'call-expected cases with the right tool(s)',
  abstained: 'abstention cases (no call expected)',
  false_trigger: 'abstention cases (no call expected)',
  no_call: 'call-expected cases',
};

/** What scoring reads of a case: the offered tools, the expected calls (null: no call is right) and argument rules. */
export interface ScoredCase {
  tools: OpenAITool[];
  expected: ExpectedCall[] | null;
  rules: Record<string, ArgRule>;
}

const bit = (b: boolean): 0 | 1 => (b ? 1 : 0);

export function scoreTier(c: ScoredCase, o: TierObservation): LayeredScore {
  const empty = {
    parse_ok: null,
    schema_valid: null,
    tool_correct: null,
    args_correct: null,
    abstained: null,
    false_trigger: null,
    no_call: null,
  } as const;
  if (c.expected === null) {
    const triggered = o.calls.length > 0 || o.attempted;
    return {
      ...empty,
      abstained: bit(!triggered),
      false_trigger: bit(triggered),
      passed: !triggered,
      problems: triggered
        ? [
            o.calls.length
              ? `called ${o.calls.map((x) => x.name).join(', ')} where no call was expected`
              : 'attempted a call where none was expected',
          ]
        : [],
      mismatches: [],
    };
  }
  if (o.calls.length === 0) {
    const what = o.truncated
      ? 'a truncated call attempt'
      : o.attempted
        ? 'a call attempt that could not be parsed'
        : 'no call attempted';
    return { ...empty, parse_ok: 0, no_call: bit(!o.attempted), passed: false, problems: [what], mismatches: [] };
  }
  const schema = o.calls.flatMap((call) => schemaErrors(call, c.tools));
  const m = matchCalls(c.expected, o.calls, c.rules);
  const problems = [...schema, ...(m.reason ? [m.reason] : [])];
  const schemaValid = schema.length === 0;
  return {
    ...empty,
    parse_ok: 1,
    no_call: 0,
    schema_valid: bit(schemaValid),
    tool_correct: bit(m.toolCorrect),
    args_correct: m.toolCorrect ? bit(m.argsCorrect) : null,
    passed: schemaValid && m.toolCorrect && m.argsCorrect,
    problems,
    mismatches: m.pairs.flatMap((p) => p.mismatches),
  };
}

import type { Cause, Tier, Verdict } from '../calls/attribute/index.ts';
import type { ArgRule, ExpectedCall } from './cases/types.ts';
import { parseToolCalls, type ParseOptions, type ParsedCall, type ParseResult } from '../parse/index.ts';
import type { ProbeMeta } from './run/types.ts';
import { matchCalls } from '../calls/score/index.ts';

/**
 * Probe matchers. Each failure message says what a person needs: the expected and the actual call(s), the
 * parser tier, and the attributed cause with its evidence. Pure functions: the public API registers them with
 * Vitest's `expect` (harness/api), so this module does not import Vitest.
 *
 *   expect(rawText).toBeParsedCall({ tier: 'strict', format: 'hermes' })
 *   expect(calls).toMatchCall(expected, rules)
 *   expect(meta).toBeAttributedTo('framework_parser_gap', 'strict')
 *   expect(meta).toPassProbeCase()          // what every probe test asserts
 */

const fmtCalls = (calls: ReadonlyArray<{ name: string; arguments: unknown }> | null | undefined): string =>
  !calls || calls.length === 0
    ? '(no call)'
    : calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join('\n             ');

const asList = <T>(x: T | readonly T[]): T[] => (Array.isArray(x) ? [...(x as readonly T[])] : [x as T]);

function verdictLine(v: Verdict): string {
  return v.cause ? `${v.cause} (${v.kind}): ${v.evidence}` : v.kind === 'pass' ? 'passed' : `${v.kind}: ${v.evidence}`;
}

export const probeMatchers = {
  toBeParsedCall(received: string | ParseResult, opts: ParseOptions = {}) {
    const r: ParseResult = typeof received === 'string' ? parseToolCalls(received, opts) : received;
    const pass = r.calls.length > 0;
    const text =
      typeof received === 'string'
        ? received.length > 300
          ? `${received.slice(0, 300)}…`
          : received
        : '(a parse result)';
    return {
      pass,
      message: () =>
        pass
          ? `expected no call, but the ${r.tier} tier parsed ${r.calls.length} (${r.format}): ${fmtCalls(r.calls)}`
          : `expected a parseable tool call (${opts.tier ?? 'lenient'} tier, format ${opts.format ?? 'auto'}), found none${r.attempted ? ` — a call was attempted${r.truncated ? ' and cut off' : ''}` : ''}\n  output: ${text}${r.notes.length ? `\n  notes: ${r.notes.join('; ')}` : ''}`,
    };
  },

  toMatchCall(
    received: ParsedCall | readonly ParsedCall[],
    expected: ExpectedCall | readonly ExpectedCall[],
    rules: Record<string, ArgRule> = {},
  ) {
    const actual = asList(received);
    const want = asList(expected);
    const m = matchCalls(want, actual, rules);
    const pass = m.toolCorrect && m.argsCorrect;
    return {
      pass,
      message: () =>
        pass
          ? `expected the call(s) not to match, but they do:\n  expected: ${fmtCalls(want)}\n  actual:   ${fmtCalls(actual)}`
          : `tool call mismatch: ${m.reason}\n  expected: ${fmtCalls(want)}\n  actual:   ${fmtCalls(actual)}`,
      expected: want,
      actual,
    };
  },

  toBeAttributedTo(received: ProbeMeta | Record<Tier, Verdict>, cause: Cause | null, tier: Tier = 'strict') {
    const verdicts =
      'cause' in received && typeof (received as ProbeMeta).suite === 'string'
        ? (received as ProbeMeta).cause
        : (received as Record<Tier, Verdict>);
    const v = verdicts[tier];
    const pass = v.cause === cause;
    return {
      pass,
      message: () =>
        pass
          ? `expected a cause other than ${cause ?? 'none'} (${tier} tier), got it: ${verdictLine(v)}`
          : `expected cause ${cause ?? 'none'} under the ${tier} tier, got ${v.cause ?? 'none'}\n  ${verdictLine(v)}`,
      expected: cause,
      actual: v.cause,
    };
  },

  toPassProbeCase(received: ProbeMeta, tier: Tier = 'strict') {
    const pass = !received.error && received.passed[tier];
    const head = `probe ${received.cat} ${received.id}${received.trial ? ` (trial ${received.trial})` : ''} [${received.transport}]`;
    const actual = received.parse?.[tier].calls ?? null;
    return {
      pass,
      message: () => {
        if (pass) return `${head}: expected a failure, but it passed`;
        if (received.error) return `${head}: harness error: ${received.error}`;
        const out = received.output?.content ?? '';
        return [
          `${head}: ${received.expects_call ? 'wrong or missing tool call' : 'a call was made where none was expected'} (${tier} tier)`,
          `  expected: ${received.expected ? fmtCalls(received.expected) : '(no call: abstain)'}`,
          `  actual:   ${actual ? fmtCalls(actual) : '(not asked)'}${tier === 'strict' && received.parse?.lenient.calls.length && !actual?.length ? `\n  lenient:  ${fmtCalls(received.parse.lenient.calls)}` : ''}`,
          `  cause (strict):  ${verdictLine(received.cause.strict)}`,
          `  cause (lenient): ${verdictLine(received.cause.lenient)}`,
          ...(received.scores?.[tier].problems.length
            ? [`  problems: ${received.scores[tier].problems.join('; ')}`]
            : []),
          ...(out ? [`  raw output: ${out.length > 300 ? `${out.slice(0, 300)}…` : out}`] : []),
          ...(received.output?.tool_calls.length
            ? [`  server tool_calls: ${JSON.stringify(received.output.tool_calls)}`]
            : []),
        ].join('\n');
      },
      expected: received.expected,
      actual,
    };
  },
};

export interface ProbeMatchers<R = unknown> {
  toBeParsedCall(opts?: ParseOptions): R;
  toMatchCall(expected: ExpectedCall | readonly ExpectedCall[], rules?: Record<string, ArgRule>): R;
  toBeAttributedTo(cause: Cause | null, tier?: Tier): R;
  toPassProbeCase(tier?: Tier): R;
}

import { describe, expect, it } from 'vitest';
import { scoreTier, type ScoredCase, type TierObservation } from '../score/index.ts';
import { attribute, type AttributionInput } from './index.ts';

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
    },
  },
  {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
  },
];
const callCase = { tools, rules: {}, expected: [{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } }] };
const abstainCase = { tools, rules: {}, expected: null };
const right = { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } };
const o = (calls: TierObservation['calls'], attempted = calls.length > 0, truncated = false): TierObservation => ({
  calls,
  attempted,
  truncated,
});

function input(
  c: ScoredCase,
  strict: TierObservation,
  lenient: TierObservation,
  extra: Partial<AttributionInput> = {},
): AttributionInput {
  return {
    expectsCall: c.expected !== null,
    transport: 'completions',
    family: 'hermes',
    original: {
      strict: { obs: strict, score: scoreTier(c, strict) },
      lenient: { obs: lenient, score: scoreTier(c, lenient) },
    },
    template: null,
    counterfactual: null,
    ...extra,
  };
}
const causes = (i: AttributionInput) => {
  const v = attribute(i);
  return [`${v.strict.cause ?? 'none'}/${v.strict.kind}`, `${v.lenient.cause ?? 'none'}/${v.lenient.kind}`];
};

describe('four-cause attribution, per tier', () => {
  it('a passing case has no cause under either tier', () => {
    expect(causes(input(callCase, o([right]), o([right])))).toEqual(['none/pass', 'none/pass']);
    expect(causes(input(abstainCase, o([]), o([])))).toEqual(['none/pass', 'none/pass']);
  });

  it('parser gap: the strict tier (or server) found nothing, the lenient tier rescues the right call — blamed under strict only', () => {
    expect(causes(input(callCase, o([], true), o([right])))).toEqual(['framework_parser_gap/parser_gap', 'none/pass']);
    expect(attribute(input(callCase, o([], true), o([right]), { transport: 'chat' })).strict.evidence).toMatch(
      /server returned no tool_calls/,
    );
  });

  it('a rescued call that is still wrong is the model deciding wrong, not a parser gap', () => {
    const wrong = { name: 'get_weather', arguments: { location: 'Tokyo' } };
    expect(causes(input(callCase, o([], true), o([wrong])))).toEqual([
      'model_decision_failure/wrong_tool',
      'model_decision_failure/wrong_tool',
    ]);
    expect(attribute(input(callCase, o([], true), o([wrong]))).strict.evidence).toMatch(/rescued by the lenient tier/);
  });

  it('format failure: an attempt nothing can rescue; truncation and "no call attempted" are kept apart', () => {
    expect(causes(input(callCase, o([], true), o([], true)))).toEqual([
      'model_format_failure/unparseable',
      'model_format_failure/unparseable',
    ]);
    expect(causes(input(callCase, o([], true, true), o([], true, true)))).toEqual([
      'model_format_failure/truncated',
      'model_format_failure/truncated',
    ]);
    expect(causes(input(callCase, o([]), o([])))).toEqual([
      'model_decision_failure/no_call_attempted',
      'model_decision_failure/no_call_attempted',
    ]);
  });

  it('decision failure: wrong tool, wrong arguments, schema-invalid arguments, false trigger', () => {
    const args = { name: 'get_time', arguments: { timezone: 'Europe/Oslo' } };
    expect(causes(input(callCase, o([args]), o([args])))[0]).toBe('model_decision_failure/wrong_args');
    const invalid = { name: 'get_time', arguments: { timezone: 'Asia/Tokyo', zone: 1 } };
    const strictTools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_time',
          parameters: { type: 'object', properties: { timezone: { type: 'string' } }, additionalProperties: false },
        },
      },
    ];
    const c = { ...callCase, tools: strictTools };
    expect(causes(input(c, o([invalid]), o([invalid])))[0]).toBe('model_decision_failure/schema_invalid');
    expect(causes(input(abstainCase, o([right]), o([right])))).toEqual([
      'model_decision_failure/false_trigger',
      'model_decision_failure/false_trigger',
    ]);
    expect(causes(input(abstainCase, o([], true), o([], true)))).toEqual([
      'model_decision_failure/false_trigger',
      'model_decision_failure/false_trigger',
    ]);
  });

  it('template bug only when the counterfactual flips the outcome (per tier), never for the template having findings', () => {
    const template = { sha256: 'ab'.repeat(32), findings: ['prior_tool_call_dropped'] };
    const flip = { templateSha256: 'cd'.repeat(32), passed: { strict: true, lenient: true } };
    expect(causes(input(callCase, o([]), o([]), { template, counterfactual: flip }))).toEqual([
      'framework_template_bug/template_flip',
      'framework_template_bug/template_flip',
    ]);
    const noFlip = { ...flip, passed: { strict: false, lenient: false } };
    expect(causes(input(callCase, o([]), o([]), { template, counterfactual: noFlip }))).toEqual([
      'model_decision_failure/no_call_attempted',
      'model_decision_failure/no_call_attempted',
    ]);
    // Flips under the lenient tier only: the strict tier still has its own culprit.
    const half = { ...flip, passed: { strict: false, lenient: true } };
    expect(causes(input(callCase, o([], true), o([], true), { template, counterfactual: half }))).toEqual([
      'model_format_failure/unparseable',
      'framework_template_bug/template_flip',
    ]);
    // Findings without a counterfactual: the model keeps the blame, and the evidence says the template is an untested suspect.
    const v = attribute(input(callCase, o([]), o([]), { template }));
    expect(v.strict.cause).toBe('model_decision_failure');
    expect(v.strict.evidence).toMatch(/unverified: the template has findings — prior_tool_call_dropped/);
  });

  it('a case the template cannot render: template bug when the repair flips it, otherwise no cause (a harness error)', () => {
    const template = { sha256: 'ab'.repeat(32), findings: ['raises_on_standard_shape'] };
    const base = {
      expectsCall: true,
      transport: 'completions' as const,
      family: 'mistral',
      original: null,
      renderError: 'raised: roles must alternate',
      template,
    };
    expect(
      attribute({
        ...base,
        counterfactual: { templateSha256: 'cd'.repeat(32), passed: { strict: true, lenient: true } },
      }).strict,
    ).toMatchObject({ cause: 'framework_template_bug', kind: 'template_flip' });
    expect(attribute({ ...base, counterfactual: null }).strict).toMatchObject({ cause: null, kind: 'not_rendered' });
  });
});

import { describe, expect, it } from 'vitest';
import type { ProbeMeta } from '../probe/run/types.ts';
import '../api/matchers.ts';

const meta = (over: Partial<ProbeMeta>): ProbeMeta =>
  ({
    suite: 'probe',
    id: 'c3_currency_test_004',
    trial: 0,
    cat: 'C3',
    family: 'c3_currency',
    split: 'test',
    error: null,
    transport: 'chat',
    model: 'm',
    expects_call: true,
    expected: [{ name: 'convert_currency', arguments: { amount: 65 } }],
    output: {
      content: '```json\n{"name": "convert_currency", "arguments": {"amount": 65}}\n```',
      tool_calls: [],
      finish_reason: 'stop',
    },
    prompt_sha256: null,
    parse: {
      strict: { calls: [], attempted: true, truncated: false, tier: 'none', format: null, notes: [] },
      lenient: {
        calls: [{ name: 'convert_currency', arguments: { amount: 65 } }],
        attempted: true,
        truncated: false,
        tier: 'lenient',
        format: 'json',
        notes: ['code fence'],
      },
    },
    parse_tier: 'lenient',
    scores: null,
    passed: { strict: false, lenient: true },
    cause: {
      strict: { cause: 'framework_parser_gap', kind: 'parser_gap', evidence: 'the server returned no tool_calls' },
      lenient: { cause: null, kind: 'pass', evidence: 'passed' },
    },
    template_sha256: null,
    template_findings: [],
    counterfactual: null,
    latency_ms: 0,
    attempts: 1,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    wall_ms: 0,
    ...over,
  }) as ProbeMeta;

describe('probe matchers', () => {
  it('toBeParsedCall: a call under the asked tier, with the reason when there is none', () => {
    expect('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>').toBeParsedCall({
      tier: 'strict',
      format: 'hermes',
    });
    expect(() =>
      expect('```json\n{"name": "f", "arguments": {}}\n```').toBeParsedCall({ tier: 'strict', format: 'hermes' }),
    ).toThrow(/found none — a call was attempted/);
    expect('just text').not.toBeParsedCall();
  });

  it('toMatchCall: expected vs actual with the mismatching argument', () => {
    expect({ name: 'f', arguments: { x: 'Oslo, Norway' } }).toMatchCall(
      { name: 'f', arguments: { x: 'Oslo' } },
      { x: { equiv: ['Oslo, Norway'] } },
    );
    expect(() =>
      expect([{ name: 'f', arguments: { x: 'Lima' } }]).toMatchCall({ name: 'f', arguments: { x: 'Oslo' } }),
    ).toThrow(
      /f\.x: different value \(expected "Oslo", got "Lima"\)[\s\S]*expected: f\(\{"x":"Oslo"\}\)[\s\S]*actual: {3}f\(\{"x":"Lima"\}\)/,
    );
    expect(() => expect([]).toMatchCall({ name: 'f', arguments: {} })).toThrow(/no call/);
  });

  it('toBeAttributedTo: per tier, with the evidence on failure', () => {
    const m = meta({});
    expect(m).toBeAttributedTo('framework_parser_gap');
    expect(m).toBeAttributedTo(null, 'lenient');
    expect(() => expect(m).toBeAttributedTo('model_format_failure')).toThrow(
      /expected cause model_format_failure under the strict tier, got framework_parser_gap\n {2}framework_parser_gap \(parser_gap\): the server returned no tool_calls/,
    );
  });

  it('toPassProbeCase: the failing test shows expected vs actual call and the attributed causes', () => {
    const m = meta({});
    expect(m).toPassProbeCase('lenient');
    let message = '';
    try {
      expect(m).toPassProbeCase();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('probe C3 c3_currency_test_004 [chat]: wrong or missing tool call (strict tier)');
    expect(message).toContain('expected: convert_currency({"amount":65})');
    expect(message).toContain('actual:   (no call)');
    expect(message).toContain('lenient:  convert_currency({"amount":65})');
    expect(message).toContain('cause (strict):  framework_parser_gap (parser_gap)');
    expect(() =>
      expect(meta({ error: 'endpoint: down', passed: { strict: false, lenient: false } })).toPassProbeCase(),
    ).toThrow(/harness error: endpoint: down/);
  });
});

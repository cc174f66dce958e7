import { describe, expect, it } from 'vitest';
import type { OpenAITool } from '../../core/chat.ts';
import { matchCalls, schemaErrors, scoreTier } from './index.ts';

const weather: OpenAITool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['location'],
    },
  },
};
const time: OpenAITool = {
  type: 'function',
  function: {
    name: 'get_time',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
  },
};
const tools = [weather, time];
const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const obs = (calls: ReturnType<typeof call>[], attempted = calls.length > 0, truncated = false) => ({
  calls,
  attempted,
  truncated,
});

describe('layered scores', () => {
  const single = { tools, rules: {}, expected: [call('get_weather', { location: 'Oslo' })] };

  it('a correct call passes every layer; the abstention metrics stay out of its denominators', () => {
    const s = scoreTier(single, obs([call('get_weather', { location: 'Oslo' })]));
    expect(s).toMatchObject({
      parse_ok: 1,
      schema_valid: 1,
      tool_correct: 1,
      args_correct: 1,
      no_call: 0,
      abstained: null,
      false_trigger: null,
      passed: true,
    });
  });

  it('each layer has its own denominator: args_correct only once the tool is right', () => {
    expect(scoreTier(single, obs([]))).toMatchObject({
      parse_ok: 0,
      schema_valid: null,
      tool_correct: null,
      args_correct: null,
      no_call: 1,
      passed: false,
    });
    expect(scoreTier(single, obs([], true))).toMatchObject({
      parse_ok: 0,
      no_call: 0,
      problems: ['a call attempt that could not be parsed'],
    });
    expect(scoreTier(single, obs([], true, true)).problems).toEqual(['a truncated call attempt']);
    expect(scoreTier(single, obs([call('get_time', { timezone: 'Oslo' })]))).toMatchObject({
      parse_ok: 1,
      schema_valid: 1,
      tool_correct: 0,
      args_correct: null,
      passed: false,
    });
    expect(scoreTier(single, obs([call('get_weather', { location: 'Bergen' })]))).toMatchObject({
      tool_correct: 1,
      args_correct: 0,
      passed: false,
    });
    const invalid = scoreTier(single, obs([call('get_weather', { location: 'Oslo', unit: 'kelvin' })]));
    expect(invalid).toMatchObject({ schema_valid: 0, tool_correct: 1, args_correct: 1, passed: false });
    expect(invalid.problems[0]).toMatch(/get_weather \/unit: must be equal to one of the allowed values/);
    expect(scoreTier(single, obs([call('send_fax', { to: 'x' })]))).toMatchObject({ schema_valid: 0, tool_correct: 0 });
  });

  it('abstention cases: abstained / false_trigger, an unparseable attempt counts as a trigger', () => {
    const abst = { tools, rules: {}, expected: null };
    expect(scoreTier(abst, obs([]))).toMatchObject({ abstained: 1, false_trigger: 0, parse_ok: null, passed: true });
    expect(scoreTier(abst, obs([], true))).toMatchObject({ abstained: 0, false_trigger: 1, passed: false });
    expect(scoreTier(abst, obs([call('get_time', { timezone: 'UTC' })]))).toMatchObject({
      abstained: 0,
      false_trigger: 1,
      passed: false,
    });
  });

  it('parallel calls: all calls are compared, in any order, with per-call rules; a missing or extra call is wrong', () => {
    const two = {
      tools,
      rules: {},
      expected: [
        { ...call('get_weather', { location: 'Oslo' }), rules: { location: { equiv: ['Oslo, Norway'] } } },
        { ...call('get_weather', { location: 'Lima' }), rules: { location: { equiv: ['Lima, Peru'] } } },
      ],
    };
    expect(
      scoreTier(two, obs([call('get_weather', { location: 'Lima, Peru' }), call('get_weather', { location: 'Oslo' })]))
        .passed,
    ).toBe(true);
    // Per-call equivalents do not leak across calls: Lima's equivalent does not make a second Oslo right.
    expect(
      scoreTier(
        two,
        obs([call('get_weather', { location: 'Oslo, Norway' }), call('get_weather', { location: 'Oslo' })]),
      ).args_correct,
    ).toBe(0);
    expect(scoreTier(two, obs([call('get_weather', { location: 'Oslo' })])).tool_correct).toBe(0);
    expect(
      scoreTier(
        two,
        obs([
          call('get_weather', { location: 'Oslo' }),
          call('get_weather', { location: 'Lima' }),
          call('get_time', { timezone: 'UTC' }),
        ]),
      ).tool_correct,
    ).toBe(0);
    const m = matchCalls(two.expected, [
      call('get_weather', { location: 'Lima' }),
      call('get_weather', { location: 'Quito' }),
    ]);
    expect(m).toMatchObject({ toolCorrect: true, argsCorrect: false });
    expect(m.reason).toMatch(/get_weather\.location: different value/);
  });

  it('schema errors name the tool and the field', () => {
    expect(schemaErrors(call('get_weather', {}), tools)).toEqual([
      "get_weather: must have required property 'location'",
    ]);
    expect(schemaErrors(call('get_weather', { location: 'Oslo' }), tools)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { scorers, scoreOf } from './scorers.ts';
import type { ScoreArgs, TaskOutput, ToolCallRecord } from './types.ts';

const call = (name: string, args: Record<string, unknown> | null): ToolCallRecord => ({
  name,
  arguments: args,
  argumentsJson: args ? JSON.stringify(args) : 'not json',
  result: '',
  error: null,
});
const argsOf = (calls: ToolCallRecord[]): ScoreArgs => ({
  input: 'q',
  expected: null,
  case: { id: '1', input: 'q' },
  output: {
    output: '',
    answer: '',
    toolCalls: calls,
    messages: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    turns: 1,
  } satisfies TaskOutput,
});

describe('argumentsMatch: a failure reason says what was expected and what came', () => {
  const scorer = scorers.argumentsMatch('get_weather', { city: 'Paris', unit: 'celsius' });
  const reason = async (calls: ToolCallRecord[]) => scoreOf(await scorer.score(argsOf(calls))).reason;

  it('names both values of an argument that differs', async () => {
    expect(await reason([call('get_weather', { city: 'Paris', unit: 'fahrenheit' })])).toBe(
      'unit: different value (expected "celsius", got "fahrenheit")',
    );
    expect(await reason([call('get_weather', { unit: 'celsius' })])).toBe(
      'city: missing (expected "Paris", got nothing)',
    );
  });

  it('says which tools were called when the expected one was not', async () => {
    expect(await reason([call('get_time', { tz: 'UTC' }), call('search', { q: 'x' })])).toBe(
      'get_weather was not called (called: get_time, search)',
    );
    expect(await reason([])).toBe('get_weather was not called (no tool was called)');
    expect(await reason([call('get_weather', null)])).toBe(
      'get_weather was called 1 time(s), never with a JSON object of arguments',
    );
  });
});

describe('scoreOf: null is unscored, an invalid number is an error, never clamped', () => {
  it('keeps null (bare or with a reason) as unscored', () => {
    expect(scoreOf(null)).toEqual({ score: null });
    expect(scoreOf({ score: null, reason: 'no expected answer' })).toEqual({
      score: null,
      reason: 'no expected answer',
    });
  });

  it('takes numbers in [0, 1] and booleans as they are', () => {
    expect(scoreOf(0.25).score).toBe(0.25);
    expect(scoreOf({ score: true }).score).toBe(1);
    expect(scoreOf(false).score).toBe(0);
  });

  it('throws on NaN, ±Infinity and numbers outside [0, 1], naming the value', () => {
    for (const [v, shown] of [
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [Number.NEGATIVE_INFINITY, '-Infinity'],
      [1.5, '1.5'],
      [-0.1, '-0.1'],
    ] as const) {
      expect(() => scoreOf(v)).toThrow(`returned the score ${shown};`);
      expect(() => scoreOf({ score: v, reason: 'r' })).toThrow(`returned the score ${shown};`);
    }
    expect(() => scoreOf('0.5' as never)).toThrow('returned the score "0.5";');
  });
});

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

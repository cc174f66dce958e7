import { expect } from 'vitest';
import { type SeenRequest, WEATHER } from '../../harness/adapters/testkit.ts';
import type { ScoredMeta } from '../../harness/kit/generic.ts';
import type { TaskOutput } from '../../harness/kit/eval/types.ts';

// What every agent-SDK adapter must give for the weather eval (harness/adapters/testkit.ts): the same verdicts,
// the same tool call and answer in its output, and the case's headers, seed and sampling on every request.

/** The right answer passes and the planted wrong one fails in both trials; the output holds the call and answer. */
export function expectWeatherScored(metas: Map<string, ScoredMeta>, outputs: Map<string, TaskOutput>): TaskOutput {
  for (const t of [0, 1]) {
    expect(metas.get(`paris/${t}`)).toMatchObject({
      pass: true,
      error: null,
      scores: { called_get_weather: 1, answer_matches: 1 },
    });
    expect(metas.get(`planted/${t}`)).toMatchObject({
      pass: false,
      error: null,
      scores: { called_get_weather: 1, answer_matches: 0 },
    });
  }
  const out = outputs.get('paris/0')!;
  expect(out.toolCalls).toEqual([
    {
      name: 'get_weather',
      arguments: { city: 'Paris' },
      argumentsJson: '{"city":"Paris"}',
      result: WEATHER,
      error: null,
    },
  ]);
  expect(out.answer).toBe(WEATHER);
  expect(out.turns).toBe(2);
  expect(out.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  expect(out.messages[1]!.content).toBe('What is the weather in Paris?');
  expect(out.usage.total_tokens).toBeGreaterThan(0);
  return out;
}

/** Two cases, two trials, two requests each: every one with its case's header, its trial's seed and the sampling. */
export function expectWeatherRequests(seen: readonly SeenRequest[]): void {
  expect(seen).toHaveLength(8);
  for (const r of seen) {
    expect(r.instance).toMatch(/^weather:(paris|planted)$/);
    expect(r.seed).toBe(7 + r.trial);
    expect(r).toMatchObject({ temperature: 0.3, maxTokens: 64, toolNames: ['get_weather'] });
  }
  expect(new Set(seen.map((r) => `${r.instance}/${r.trial}`)).size).toBe(4);
}

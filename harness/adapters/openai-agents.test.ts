import { Agent, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScoredMeta } from '../kit/generic.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { openAIAgentsTask } from './openai-agents.ts';
import { runWeatherEval, WEATHER, weatherSim } from './testkit.ts';

describe('openAIAgentsTask: an OpenAI Agents SDK agent as the task, the simulator as its model over HTTP', () => {
  let sim: Awaited<ReturnType<typeof weatherSim>>;
  let metas: Map<string, ScoredMeta>;
  let outputs: Map<string, TaskOutput>;
  beforeAll(async () => {
    sim = await weatherSim();
    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer as <answer>…</answer>.',
      tools: [
        tool({
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: z.object({ city: z.string() }),
          execute: async () => WEATHER,
        }),
      ],
    });
    ({ metas, outputs } = await runWeatherEval(
      openAIAgentsTask((input, { runner }) => runner.run(agent, input)),
      sim.url,
    ));
  });
  afterAll(() => sim?.close());

  it("hands the agent's tool call and answer to the scorers: the right answer passes, a planted wrong one fails", () => {
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
    expect(out.messages[0]!.content).toBe('Answer as <answer>…</answer>.');
    expect(out.messages[1]!.content).toBe('What is the weather in Paris?');
    expect(out.usage.total_tokens).toBeGreaterThan(0);
  });

  it("sent the case's instance header, its trial, and the trial's seed and sampling with every request", () => {
    expect(sim.seen).toHaveLength(8);
    for (const r of sim.seen) {
      expect(r.instance).toMatch(/^weather:(paris|planted)$/);
      expect(r.seed).toBe(7 + r.trial);
      expect(r).toMatchObject({ temperature: 0.3, maxTokens: 64, toolNames: ['get_weather'] });
    }
    expect(new Set(sim.seen.map((r) => `${r.instance}/${r.trial}`)).size).toBe(4);
  });
});

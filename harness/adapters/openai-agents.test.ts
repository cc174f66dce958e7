import { Agent, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScoredMeta } from '../kit/generic.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { openAIAgentsTask } from './openai-agents.ts';
import { expectWeatherRequests, expectWeatherScored } from '../../tests/helpers/weather-eval.ts';
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
    const out = expectWeatherScored(metas, outputs);
    expect(out.messages[0]!.content).toBe('Answer as <answer>…</answer>.');
  });

  it("sent the case's instance header, its trial, and the trial's seed and sampling with every request", () => {
    expectWeatherRequests(sim.seen);
  });
});

import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScoredMeta } from '../kit/generic.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { aiSdkOutput, aiSdkTask } from './ai-sdk.ts';
import { expectWeatherRequests, expectWeatherScored } from '../../tests/helpers/weather-eval.ts';
import { runWeatherEval, WEATHER, weatherSim } from './testkit.ts';

// streamText: the same agent through a stream (the simulator frames its answer as server-sent events), and without
// the settings spread: the model alone must carry the headers and the sampling.
describe.each([
  { call: 'generateText', run: generateText, spread: true },
  { call: 'streamText', run: streamText, spread: false },
] as const)(
  'aiSdkTask with $call: an AI SDK agent as the task, the simulator as its model over HTTP',
  ({ run, spread }) => {
    let sim: Awaited<ReturnType<typeof weatherSim>>;
    let metas: Map<string, ScoredMeta>;
    let outputs: Map<string, TaskOutput>;
    beforeAll(async () => {
      sim = await weatherSim();
      const getWeather = tool({
        description: 'The weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async () => WEATHER,
      });
      ({ metas, outputs } = await runWeatherEval(
        aiSdkTask(async (input, { model, settings }) =>
          run({
            model,
            system: 'Answer as <answer>…</answer>.',
            prompt: input,
            tools: { get_weather: getWeather },
            stopWhen: stepCountIs(4),
            ...(spread ? settings : {}),
          }),
        ),
        sim.url,
      ));
    });
    afterAll(() => sim?.close());

    it("hands the agent's tool call and answer to the scorers: the right answer passes, a planted wrong one fails", () => {
      expectWeatherScored(metas, outputs);
    });

    it("sent the case's instance header, its trial, and the trial's seed and sampling with every request", () => {
      expectWeatherRequests(sim.seen);
    });
  },
);

describe('aiSdkOutput', () => {
  it("records a tool that threw as the call's error, and the input as the user's message without a request body", () => {
    const out = aiSdkOutput('q', {
      steps: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: { x: 1 } },
            { type: 'tool-error', toolCallId: 'c1', toolName: 'f', input: { x: 1 }, error: new Error('boom') },
          ],
        },
        { content: [{ type: 'text', text: 'done <answer>4</answer>' }] },
      ],
      totalUsage: { inputTokens: 3, outputTokens: 2, totalTokens: undefined },
    });
    expect(out.toolCalls).toEqual([
      { name: 'f', arguments: { x: 1 }, argumentsJson: '{"x":1}', result: '', error: 'tool error: boom' },
    ]);
    expect(out.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(out.messages[2]!.content).toBe('error: tool error: boom');
    expect(out).toMatchObject({
      answer: '4',
      turns: 2,
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });
});

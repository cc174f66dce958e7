import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScoredMeta } from '../kit/generic.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { aiSdkOutput, aiSdkTask } from './ai-sdk.ts';
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
    });

    it("sent the case's instance header, its trial, and the trial's seed and sampling with every request", () => {
      // Two cases, two trials, two requests each.
      expect(sim.seen).toHaveLength(8);
      for (const r of sim.seen) {
        expect(r.instance).toMatch(/^weather:(paris|planted)$/);
        expect(r.seed).toBe(7 + r.trial);
        expect(r).toMatchObject({ temperature: 0.3, maxTokens: 64, toolNames: ['get_weather'] });
      }
      expect(new Set(sim.seen.map((r) => `${r.instance}/${r.trial}`)).size).toBe(4);
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

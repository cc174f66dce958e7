// What a responder is told of a request, on each route: the instance and id, and the agent, trial and variant
// from the x-toolgauge-* headers; without an agent header, the suite's guess (chat and messages routes), else 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from './server.ts';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: {
      echo: {
        chat: (_spec, _body, ctx) => ({ content: JSON.stringify(ctx) }),
        completion: (_spec, _prompt, ctx) => JSON.stringify(ctx),
        agentOf: () => 'guessed',
      },
    },
  });
});
afterAll(() => sim.close());

const HEADERS = { 'x-toolgauge-instance': 'echo:case:7', 'x-toolgauge-trial': '2', 'x-toolgauge-variant': 'v1' };

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  const r = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  const j = (await r.json()) as {
    choices?: Array<{ message?: { content: string }; text?: string }>;
    content?: Array<{ text: string }>;
  };
  return JSON.parse(j.choices?.[0]?.message?.content ?? j.choices?.[0]?.text ?? j.content![0]!.text);
}

const messages = [{ role: 'user', content: 'hi' }];
const chat = (h: Record<string, string>) => post('/chat/completions', { model: 'sim:oracle', messages }, h);
const anthropic = (h: Record<string, string>) =>
  post('/messages', { model: 'sim:oracle', max_tokens: 64, messages }, { 'anthropic-version': '2023-06-01', ...h });
const completion = (h: Record<string, string>) => post('/completions', { model: 'sim:oracle', prompt: 'hi' }, h);

describe("the simulator's request context", () => {
  it.each([
    ['chat', chat],
    ['messages', anthropic],
    ['completions', completion],
  ] as const)('%s: the headers name the instance, agent, trial and variant', async (_, send) => {
    expect(await send({ ...HEADERS, 'x-toolgauge-agent': 'solver' })).toEqual({
      instance: 'echo:case:7',
      id: 'case:7',
      agent: 'solver',
      trial: 2,
      variant: 'v1',
    });
  });

  it("without an agent header, the suite's guess on chat and messages, agent 0 on completions", async () => {
    expect(await chat({ 'x-toolgauge-instance': 'echo:a' })).toEqual({
      instance: 'echo:a',
      id: 'a',
      agent: 'guessed',
      trial: 0,
    });
    expect(await anthropic({ 'x-toolgauge-instance': 'echo:a' })).toEqual({
      instance: 'echo:a',
      id: 'a',
      agent: 'guessed',
      trial: 0,
    });
    expect(await completion({ 'x-toolgauge-instance': 'echo:a' })).toEqual({
      instance: 'echo:a',
      id: 'a',
      agent: '0',
      trial: 0,
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from './server.ts';

// The simulator's eval registration route and routing over real HTTP: a registered eval is answered by its header
// or, with no header (another runner), by its first user message; what the simulator cannot answer is refused,
// counted and reported, whatever the reason.

let sim: SimServer;
const told: Array<[string, number]> = [];
beforeAll(async () => {
  sim = await startSimServer({
    responders: { suite: { chat: () => ({ content: 'the suite' }) } },
    onUnmatched: (m, status) => told.push([m, status]),
  });
});
afterAll(() => sim.close());

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, simulator: r.headers.get('x-toolgauge-simulator'), json: (await r.json()) as any };
};
const chat = (content: string, instance?: string) =>
  post(
    '/chat/completions',
    { model: 'sim:oracle', messages: [{ role: 'user', content }] },
    instance ? { 'x-toolgauge-instance': instance } : {},
  );
const CASES = {
  cases: [
    { id: 'c1', input: 'What is 2 times 3?', expected: 6, expectedTools: [{ name: 'multiply', arguments: { a: 2 } }] },
    { id: 'c2', input: 'Plain', expected: 'yes' },
  ],
};

describe("the simulator's eval route", () => {
  it('registers an eval and answers it by header and, with no header, by the first user message', async () => {
    expect(await post('/toolgauge/evals/units', CASES)).toMatchObject({ status: 200, json: { cases: 2 } });
    const byHeader = await chat('anything', 'units:c1');
    expect(byHeader.simulator).toBe('1');
    expect(byHeader.json.choices[0].message.tool_calls[0].function).toEqual({
      name: 'multiply',
      arguments: '{"a":2}',
    });
    expect((await chat('Plain')).json.choices[0].message.content).toBe('<answer>yes</answer>');
  });

  it('a header naming no responder falls back to content identification', async () => {
    await post('/toolgauge/evals/units', CASES);
    const r = await chat('Plain', 'other-eval:7');
    expect(r.status).toBe(200);
    expect(r.json.choices[0].message.content).toBe('<answer>yes</answer>');
  });

  it('refuses a bad registration and a suite name', async () => {
    expect((await post('/toolgauge/evals/units', { cases: [{ id: 'x', input: 3 }] })).status).toBe(400);
    expect((await post('/toolgauge/evals/suite', CASES)).status).toBe(409);
  });

  it('every request it cannot answer is refused, counted and reported with its status', async () => {
    await post('/toolgauge/evals/units', CASES);
    const before = sim.stats.unmatched;
    told.length = 0;
    const unknown = await chat('Nobody asked this', 'nowhere:1');
    expect(unknown.status).toBe(422);
    expect(unknown.simulator).toBe('1');
    const completion = await post(
      '/completions',
      { model: 'sim:oracle', prompt: 'Plain' },
      { 'x-toolgauge-instance': 'units:c2' },
    );
    expect(completion.status).toBe(422);
    const policy = await post(
      '/chat/completions',
      { model: 'sim:naive', messages: [{ role: 'user', content: 'Plain' }] },
      { 'x-toolgauge-instance': 'units:c2' },
    );
    expect(policy.status).toBe(422);
    expect(sim.stats.unmatched - before).toBe(3);
    expect(told.map(([, s]) => s)).toEqual([422, 422, 422]);
    expect(told[0]![0]).toMatch(/Nobody asked this/);
    expect(told[1]![0]).toMatch(/no completions responder/);
    expect(told[2]![0]).toMatch(/not sim:naive/);
  });
});

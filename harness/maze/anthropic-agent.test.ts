// The anthropic agent over real HTTP: against the simulator's Messages-API front (whose zod schema of the API is
// written from Anthropic's reference, independently of the client), and against a scripted stand-in for the
// retry and usage accounting the client does on its own.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFactory, type Agent, type AgentEndpoint } from '../agent/registry.ts';
import { AnthropicClient, ANTHROPIC_VERSION } from '../model/anthropic.ts';
import { MessagesRequest } from '../sim/messages-api.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { runMazeInstance } from './run-instance.ts';
import { DEFAULT_CASES_DIR, loadMazeTasks } from './task.ts';
import { bundledMazeResponder } from '../../tests/helpers/maze-sim.ts';

const tasks = loadMazeTasks(DEFAULT_CASES_DIR, ['c1']);
const task = tasks[0]!;

function endpoint(baseUrl: string, model: string, over: Partial<AgentEndpoint> = {}): AgentEndpoint {
  return {
    model,
    baseUrl,
    apiKey: 'sk-ant-test-key',
    timeoutMs: 5_000,
    retries: 4,
    concurrency: 2,
    backoff: { baseMs: 1, maxMs: 5 },
    openai: () => {
      throw new Error('the anthropic agent must not use the OpenAI client');
    },
    ...over,
  };
}
const anthropic = (e: AgentEndpoint): Agent => agentFactory('anthropic')!.create(e);

describe('anthropic agent against the simulator (Messages API front)', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({
      responders: {
        maze: bundledMazeResponder(),
      },
    });
  });
  afterAll(() => sim.close());

  it('sim:oracle passes a C1 task in every mode through tool_use / tool_result turns; tokens are the sums of input and output tokens', async () => {
    for (const mode of ['P0', 'P1', 'P2'] as const) {
      const r = await runMazeInstance(task, mode, {
        agent: anthropic(endpoint(sim.url, 'sim:oracle')),
        model: 'sim:oracle',
        maxTurns: 20,
        judgeMode: 'compat',
      });
      expect(r.error, `${mode}`).toBeNull();
      expect(r.verdict.pass, `${mode}: ${r.verdict.failure_reason}`).toBe(true);
      expect(r.toolCalls).toBeGreaterThan(0);
      expect(r.usage.prompt_tokens).toBeGreaterThan(0);
      expect(r.usage.total_tokens).toBe(r.usage.prompt_tokens + r.usage.completion_tokens);
    }
  });

  it('sim:flaky answers 429 / 529 overloaded in the API shape; the client retries them and the run still passes', async () => {
    const r = await runMazeInstance(task, 'P0', {
      agent: anthropic(endpoint(sim.url, 'sim:flaky?rate=0.5&seed=3', { retries: 12 })),
      model: 'sim:flaky',
      maxTurns: 20,
      judgeMode: 'compat',
    });
    expect(r.error).toBeNull();
    expect(r.verdict.pass).toBe(true);
    expect(Object.keys(sim.stats.faults).length).toBeGreaterThan(0);
  });

  it('the simulator refuses a request of the wrong shape with a 400 naming the field (an OpenAI body sent to /messages)', async () => {
    const res = await fetch(`${sim.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION },
      body: JSON.stringify({
        model: 'sim:oracle',
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: 'y' },
        ],
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
  });
});

/** A scripted Messages-API stand-in: each request is checked with the schema and answered by the next script step. */
async function standIn(
  script: Array<(body: MessagesRequest) => { status: number; body: unknown; headers?: Record<string, string> }>,
) {
  const seen: Array<{ headers: IncomingMessage['headers']; body: MessagesRequest }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const parsed = MessagesRequest.safeParse(JSON.parse(raw));
      if (req.url !== '/v1/messages' || !parsed.success) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: parsed.success ? `path ${req.url}` : JSON.stringify(parsed.error.issues[0]),
            },
          }),
        );
      }
      seen.push({ headers: req.headers, body: parsed.data });
      const step = script[Math.min(seen.length - 1, script.length - 1)]!(parsed.data);
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const message = (content: unknown[], stop: string, usage: Record<string, number>) => ({
  status: 200,
  body: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  },
});

describe('AnthropicClient against a scripted stand-in', () => {
  it('retries 529 overloaded and 429 (honouring retry-after), sends the API headers, and sums usage with cache tokens', async () => {
    const s = await standIn([
      () => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }),
      () => ({
        status: 429,
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
        headers: { 'retry-after': '0' },
      }),
      () =>
        message(
          [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_01', name: 'get_quote', input: { symbol: 'ACME' } },
          ],
          'tool_use',
          { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 30 },
        ),
    ]);
    try {
      const c = new AnthropicClient({
        baseUrl: s.url,
        apiKey: 'sk-ant-k',
        model: 'claude-x',
        timeoutMs: 5_000,
        retries: 3,
        concurrency: 1,
        backoff: { baseMs: 1, maxMs: 5 },
      });
      const r = await c.chat(
        {
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'quote ACME' },
          ],
          tools: [
            {
              type: 'function',
              function: {
                name: 'get_quote',
                description: 'a quote',
                parameters: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'] },
              },
            },
          ],
          temperature: 0,
          topP: 1,
          seed: 7,
        },
        { instance: 'maze:x', trial: 0 },
      );
      expect(r.attempts).toBe(3);
      expect(r.retried).toEqual(['529', '429']);
      expect(r.content).toBe('Let me look.');
      expect(r.tool_calls).toEqual([
        { id: 'toolu_01', type: 'function', function: { name: 'get_quote', arguments: '{"symbol":"ACME"}' } },
      ]);
      expect(r.finish_reason).toBe('tool_use');
      expect(r.usage).toEqual({ prompt_tokens: 130, completion_tokens: 20, total_tokens: 150 });
      const h = s.seen[0]!.headers;
      expect(h['x-api-key']).toBe('sk-ant-k');
      expect(h['anthropic-version']).toBe(ANTHROPIC_VERSION);
      expect(h.authorization).toBeUndefined();
      const b = s.seen[0]!.body;
      expect(b.system).toBe('be brief');
      expect(b.tools![0]!.input_schema.type).toBe('object');
      expect(b.tool_choice).toEqual({ type: 'auto' });
      // No seed in the Messages API (the schema is strict: a seed would be refused); top_p 1 is its default, not sent.
      expect(b.temperature).toBe(0);
      expect(b.top_p).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it('a 400 is not retried and fails with the API error type; retries stop at the limit', async () => {
    const bad = await standIn([
      () => ({
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too big' } },
      }),
    ]);
    const busy = await standIn([
      () => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }),
    ]);
    try {
      const opts = {
        apiKey: 'k',
        model: 'm',
        timeoutMs: 5_000,
        retries: 2,
        concurrency: 1,
        backoff: { baseMs: 1, maxMs: 5 },
      };
      const req = { messages: [{ role: 'user' as const, content: 'hi' }] };
      await expect(
        new AnthropicClient({ ...opts, baseUrl: bad.url }).chat(req, { instance: 'maze:x' }),
      ).rejects.toMatchObject({
        attempts: 1,
        kind: 'client',
        message: expect.stringContaining('invalid_request_error'),
      });
      await expect(
        new AnthropicClient({ ...opts, baseUrl: busy.url }).chat(req, { instance: 'maze:x' }),
      ).rejects.toMatchObject({ attempts: 3, status: 529 });
      expect(bad.seen).toHaveLength(1);
      expect(busy.seen).toHaveLength(3);
    } finally {
      await bad.close();
      await busy.close();
    }
  });

  it('a multi-turn conversation goes out as alternating turns: tool results of one turn in one user message', async () => {
    const s = await standIn([
      () => message([{ type: 'text', text: 'done' }], 'end_turn', { input_tokens: 5, output_tokens: 1 }),
    ]);
    try {
      const c = new AnthropicClient({ baseUrl: s.url, model: 'm', timeoutMs: 5_000, retries: 0, concurrency: 1 });
      const r = await c.chat(
        {
          messages: [
            { role: 'user', content: 'two quotes' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'a', type: 'function', function: { name: 'q', arguments: '{"s":"A"}' } },
                { id: 'b', type: 'function', function: { name: 'q', arguments: '{"s":"B"}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'a', content: '{"p":1}' },
            { role: 'tool', tool_call_id: 'b', content: '{"p":2}' },
          ],
          tools: [
            {
              type: 'function',
              function: { name: 'q', parameters: { type: 'object', properties: { s: { type: 'string' } } } },
            },
          ],
        },
        { instance: 'maze:x' },
      );
      expect(r.content).toBe('done');
      const sent = s.seen[0]!.body.messages;
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(sent[2]!.content).toEqual([
        { type: 'tool_result', tool_use_id: 'a', content: '{"p":1}' },
        { type: 'tool_result', tool_use_id: 'b', content: '{"p":2}' },
      ]);
      expect(s.seen[0]!.body.max_tokens).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

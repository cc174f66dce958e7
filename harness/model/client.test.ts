import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelClient } from './client.ts';
import { ModelCallError } from './types.ts';

// A scripted OpenAI-compatible server: each request pops the next behaviour, so retries are observable.
type Behaviour = 'ok' | '429' | '500' | '400' | 'hang' | 'truncated' | 'reset';
let script: Behaviour[] = [];
let received = 0;
let inFlight = 0;
let maxInFlight = 0;
let server: Server;
let url: string;

function okBody(content: string) {
  return JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    received++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    req.resume();
    req.on('end', () => {
      const b = script.shift() ?? 'ok';
      const done = () => inFlight--;
      setTimeout(() => {
        if (b === 'hang') return void res.on('close', done);
        done();
        if (b === 'reset') return void req.socket.destroy();
        if (b === '429')
          return void res
            .writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' })
            .end('{"error":{"message":"slow down"}}');
        if (b === '500')
          return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
        if (b === '400')
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end('{"error":{"message":"bad request"}}');
        const body = okBody(`reply ${received}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(b === 'truncated' ? body.slice(0, 40) : body);
      }, 30);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function client(over: Partial<ConstructorParameters<typeof ModelClient>[0]> = {}) {
  return new ModelClient({
    baseUrl: url,
    model: 'm',
    timeoutMs: 400,
    retries: 4,
    concurrency: 4,
    backoff: { baseMs: 1, maxMs: 5 },
    ...over,
  });
}
const req = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('ModelClient over real HTTP', () => {
  it('retries 429, 500, hung responses, truncated JSON and connection resets, then succeeds', async () => {
    script = ['429', '500', 'hang', 'truncated', 'ok'];
    const r = await client().chat(req, { instance: 't:1' });
    expect(r.content).toMatch(/^reply/);
    expect(r.attempts).toBe(5);
    expect(r.retried).toEqual(['429', '500', 'timeout', 'invalid_response']);
    expect(r.usage.total_tokens).toBe(5);
    script = ['reset', 'ok'];
    const r2 = await client().chat(req, { instance: 't:1' });
    expect(r2.attempts).toBe(2);
    expect(r2.retried).toEqual(['connection']);
  });

  it('gives up after the retry budget with a ModelCallError naming the failure', async () => {
    script = ['500', '500', '500'];
    const err = await client({ retries: 2 })
      .chat(req, { instance: 't:2' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/after 3 attempt\(s\): 500/);
  });

  it('does not retry a 400', async () => {
    script = ['400', 'ok'];
    const before = received;
    const err = await client()
      .chat(req, { instance: 't:3' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    // The status once, then the server's message.
    expect((err as Error).message).toMatch(/attempt\(s\): 400 bad request$/);
    expect(received - before).toBe(1);
    script = [];
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    script = [];
    maxInFlight = 0;
    const c = client({ concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => c.chat(req, { instance: `t:c${i}` })));
    expect(maxInFlight).toBe(3);
  });

  it('records to the request cache and replays without the endpoint; a replay miss is an error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-cache-'));
    try {
      script = [];
      const rec = await client({ cache: { mode: 'record', dir } }).chat(req, { instance: 't:4', trial: 1 });
      const before = received;
      const rep = await client({ baseUrl: 'http://127.0.0.1:9/v1', cache: { mode: 'replay', dir } }).chat(req, {
        instance: 't:4',
        trial: 1,
      });
      expect(received).toBe(before);
      expect(rep.content).toBe(rec.content);
      expect(rep.cached).toBe(true);
      // A different trial index is a different request.
      const miss = await client({ cache: { mode: 'replay', dir } })
        .chat(req, { instance: 't:4', trial: 2 })
        .catch((e) => e);
      expect(miss).toBeInstanceOf(ModelCallError);
      expect(miss.kind).toBe('cache_miss');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

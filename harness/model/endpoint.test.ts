import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelClient } from './client.ts';
import { parseEndpoint } from './endpoint.ts';
import { reshapeError } from './fetch.ts';
import { checkEndpoint, EndpointUnavailable } from './preflight.ts';
import { ModelCallError } from './types.ts';
import { clearSecrets, REDACTED, redact, registerSecret } from '../core/redact.ts';

// A server that answers like vLLM does on a bad request (a flat error body), and records what it was sent.
let server: Server;
let base: string;
const seen: Array<{ url: string; auth: string | undefined }> = [];
let mode: 'flat' | 'models-404' | 'huge' = 'flat';

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      if (req.url?.includes('/models')) {
        if (mode === 'models-404') return void res.writeHead(404).end('not here');
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      }
      if (mode === 'huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(`{"choices":[{"message":{"content":"${'x'.repeat(200_000)}"}}]}`);
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'error',
          message: "This model's maximum context length is 4096 tokens",
          type: 'BadRequestError',
          code: 400,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('endpoint URLs as users write them', () => {
  it('moves credentials into a Basic header and the query into every request, and hides both in reports', () => {
    const ep = parseEndpoint('http://alice:s3cret-pw@host:8000/v1?api_key=KEY123456&region=eu');
    expect(ep.baseUrl).toBe('http://host:8000/v1');
    expect(ep.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`);
    expect(ep.query).toEqual({ api_key: 'KEY123456', region: 'eu' });
    expect(ep.display).not.toMatch(/s3cret|KEY123456|alice/);
    expect(ep.display).toBe('http://host:8000/v1?api_key=REDACTED&region=REDACTED');
    expect(ep.secrets).toEqual(expect.arrayContaining(['s3cret-pw', 'KEY123456']));
  });

  it('hides and registers a credential whose parameter name says nothing of it (`code`, Azure Functions)', () => {
    try {
      const ep = parseEndpoint('https://fn.example.net/api/v1?code=Zq81uV2mW0xYt7');
      expect(ep.query).toEqual({ code: 'Zq81uV2mW0xYt7' });
      expect(ep.display).toBe('https://fn.example.net/api/v1?code=REDACTED');
      expect(redact('echoed Zq81uV2mW0xYt7')).toBe(`echoed ${REDACTED}`);
    } finally {
      clearSecrets();
    }
  });

  it('a request through such a URL reaches the server with both', async () => {
    mode = 'flat';
    seen.length = 0;
    const url = base.replace('http://', 'http://alice:pw12@') + '?api_key=KEY123456';
    const c = new ModelClient({ baseUrl: url, model: 'm', timeoutMs: 2000, retries: 0, concurrency: 1 });
    await c.chat({ messages: [{ role: 'user', content: 'x' }] }, { instance: 't:1' }).catch(() => undefined);
    expect(seen[0]!.url).toBe('/v1/chat/completions?api_key=KEY123456');
    expect(seen[0]!.auth).toBe(`Basic ${Buffer.from('alice:pw12').toString('base64')}`);
  });
});

describe('error bodies and sizes', () => {
  it("shows a flat (vLLM-style) error body's message, not '400 status code (no body)'", async () => {
    mode = 'flat';
    const c = new ModelClient({ baseUrl: base, model: 'm', timeoutMs: 2000, retries: 0, concurrency: 1 });
    const err = await c
      .chat({ messages: [{ role: 'user', content: 'x' }] }, { instance: 't:1' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect((err as Error).message).toMatch(/400 This model's maximum context length is 4096 tokens/);
  });

  it('reshapes any error body to the shape the SDK reads, keeping well-formed ones', () => {
    expect(JSON.parse(reshapeError('{"object":"error","message":"m"}'))).toEqual({ error: { message: 'm' } });
    expect(JSON.parse(reshapeError('{"detail":"Not Found"}'))).toEqual({ error: { message: 'Not Found' } });
    expect(JSON.parse(reshapeError('Bad Gateway'))).toEqual({ error: { message: 'Bad Gateway' } });
    expect(reshapeError('{"error":{"message":"ok"}}')).toBe('{"error":{"message":"ok"}}');
  });

  it('bounds an error body after redacting it: a key across the 2,000-character cut leaves none of its beginning', () => {
    const key = 'sk-straddle-0123456789';
    registerSecret(key);
    try {
      for (const body of [
        `${'e'.repeat(1999)}${key}`,
        JSON.stringify({ note: `${'e'.repeat(1980)}${key}` }),
        `${'e'.repeat(1990)}${key}`,
      ]) {
        const out = reshapeError(body);
        expect(out.includes(key.slice(0, 8)), out.slice(-60)).toBe(false);
        expect((JSON.parse(out) as { error: { message: string } }).error.message.length).toBeLessThanOrEqual(
          2000 + REDACTED.length,
        );
      }
    } finally {
      clearSecrets();
    }
  });

  it('refuses a response larger than the limit at once (no retries of a giant body)', async () => {
    mode = 'huge';
    seen.length = 0;
    const c = new ModelClient({
      baseUrl: base,
      model: 'm',
      timeoutMs: 2000,
      retries: 3,
      concurrency: 1,
      maxResponseBytes: 50_000,
    });
    const err = await c
      .chat({ messages: [{ role: 'user', content: 'x' }] }, { instance: 't:1' })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/exceeds the limit of 50000 bytes/);
    expect(seen).toHaveLength(1);
  });
});

describe('the endpoint check before a run', () => {
  it('lists the models; where the route is missing, a 1-token request decides (and reports the server message)', async () => {
    mode = 'flat';
    expect(await checkEndpoint({ baseUrl: base, apiKey: 'k', model: 'm' })).toEqual({ models: ['m'], owners: [] });
    mode = 'models-404';
    const err = await checkEndpoint({ baseUrl: base, apiKey: 'k', model: 'm' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EndpointUnavailable);
    expect((err as Error).message).toMatch(/does not serve model 'm': 400 This model's maximum context length/);
  });
});

describe('usage fields at the boundary', () => {
  it('garbage becomes 0 and is named; numeric strings count; a missing total is the sum', async () => {
    const { usageFromEndpoint, Usage } = await import('./types.ts');
    expect(usageFromEndpoint({ prompt_tokens: 'NaN', completion_tokens: null, total_tokens: 'many' })).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      unknown: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
    });
    expect(usageFromEndpoint({ prompt_tokens: -3, completion_tokens: '7' })).toEqual({
      prompt_tokens: 0,
      completion_tokens: 7,
      total_tokens: 7,
      unknown: ['prompt_tokens'],
    });
    expect(usageFromEndpoint({ prompt_tokens: 5, completion_tokens: 2 })).toEqual({
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
    });
    expect(usageFromEndpoint(undefined)).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    // A file written before the boundary check (garbage concatenated into a string) still reads.
    expect(Usage.parse({ prompt_tokens: '00many0many', completion_tokens: 3, total_tokens: NaN })).toMatchObject({
      prompt_tokens: 0,
      completion_tokens: 3,
      total_tokens: 0,
    });
  });
});

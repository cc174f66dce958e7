import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { AnthropicClient } from './anthropic.ts';
import { ModelClient } from './client.ts';
import { boundedFetch, RedirectRefused } from './fetch.ts';
import { MAX_REDIRECTS, withoutCredentials } from './redirects.ts';
import { ModelCallError } from './types.ts';

// Redirects and credentials, on loopback: each server is its own origin (its own port, its own scheme). A server
// that redirects must never get the key delivered to another origin, whichever client and whichever header.
const KEY = 'sk-redirect-test-0123456789';
const tls = {
  cert: readFileSync(fromRoot('tests', 'fixtures', 'tls', 'loopback-cert.pem')),
  key: readFileSync(fromRoot('tests', 'fixtures', 'tls', 'loopback-key.pem')),
};

interface Seen {
  server: string;
  url: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
/** Where each server sends a request (a full URL), or null to answer it. */
const redirectOf = new Map<string, (path: string) => { status: number; location: string } | null>();
const servers: Server[] = [];
const origin: Record<'httpA' | 'httpB' | 'tlsA' | 'tlsB', string> = { httpA: '', httpB: '', tlsA: '', tlsB: '' };

function handler(name: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      seen.push({ server: name, url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const to = redirectOf.get(name)?.(req.url ?? '');
      if (to) return void res.writeHead(to.status, { location: to.location }).end('moved');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.endsWith('/messages'))
        return void res.end(
          JSON.stringify({
            type: 'message',
            content: [{ type: 'text', text: 'ok' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 1, output_tokens: 1 },
          }),
        );
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        }),
      );
    });
  };
}

let tlsCheck: string | undefined;
beforeAll(async () => {
  // The loopback certificate is self-signed; verification is off for this file's process only, while it runs.
  tlsCheck = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  for (const name of Object.keys(origin) as Array<keyof typeof origin>) {
    const s = name.startsWith('tls') ? createTlsServer(tls, handler(name)) : createServer(handler(name));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    origin[name] = `${name.startsWith('tls') ? 'https' : 'http'}://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }
});
afterAll(async () => {
  if (tlsCheck === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = tlsCheck;
  await Promise.all(servers.map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))));
});
beforeEach(() => {
  seen.length = 0;
  redirectOf.clear();
});

const redirectAll = (from: string, to: string, status = 307) =>
  redirectOf.set(from, (path) => ({ status, location: `${to}${path}` }));
const keyHeaders = (s: Seen) =>
  Object.entries(s.headers).filter(([, v]) => String(v).includes(KEY) || String(v).includes('s3cret'));
const opts = { model: 'm', apiKey: KEY, timeoutMs: 5000, retries: 2, concurrency: 1, backoff: { baseMs: 1, maxMs: 1 } };
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const ctx = { instance: 't:1' };
const clients = {
  anthropic: (base: string) => new AnthropicClient({ ...opts, baseUrl: base }),
  openai: (base: string) => new ModelClient({ ...opts, baseUrl: base }),
};

describe.each(Object.entries(clients))('the %s client', (_name, make) => {
  it('refuses a redirect from https to plain http: the http origin never gets a request, and it is not retried', async () => {
    redirectAll('tlsA', origin.httpB);
    const err = await make(`${origin.tlsA}/v1`)
      .chat(ask, ctx)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect((err as ModelCallError).message).toMatch(/refused: it leaves https/);
    expect((err as ModelCallError).attempts).toBe(1);
    expect(seen.filter((s) => s.server === 'httpB')).toEqual([]);
  });

  it('follows a redirect to another https origin without the key', async () => {
    redirectAll('tlsA', origin.tlsB);
    await make(`${origin.tlsA}/v1`).chat(ask, ctx);
    const there = seen.filter((s) => s.server === 'tlsB');
    expect(there).toHaveLength(1);
    expect(keyHeaders(there[0]!)).toEqual([]);
    expect(keyHeaders(seen.find((s) => s.server === 'tlsA')!)).not.toEqual([]);
  });

  it('follows a redirect to another http origin without the key or the Basic credentials, the body kept (307)', async () => {
    redirectAll('httpA', origin.httpB);
    await make(`${origin.httpA.replace('://', '://alice:s3cret-pw@')}/v1`).chat(ask, ctx);
    const there = seen.filter((s) => s.server === 'httpB');
    expect(there).toHaveLength(1);
    expect(keyHeaders(there[0]!)).toEqual([]);
    expect(there[0]!.headers['x-toolgauge-instance']).toBe('t:1');
    expect(there[0]!.method).toBe('POST');
    expect(there[0]!.body).toContain('"hi"');
  });

  it('keeps the key on a redirect within its origin', async () => {
    redirectOf.set('httpA', (path) => (path.startsWith('/old/') ? { status: 308, location: path.slice(4) } : null));
    await make(`${origin.httpA}/old/v1`).chat(ask, ctx);
    expect(seen.map((s) => s.url)).toEqual([expect.stringMatching(/^\/old\/v1\//), expect.stringMatching(/^\/v1\//)]);
    expect(keyHeaders(seen[1]!)).not.toEqual([]);
  });

  it(`stops a redirect loop after ${MAX_REDIRECTS} hops, at once (no retries)`, async () => {
    redirectAll('httpA', origin.httpA, 302);
    const err = await make(`${origin.httpA}/v1`)
      .chat(ask, ctx)
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(new RegExp(`more than ${MAX_REDIRECTS} redirects`));
    expect(seen).toHaveLength(MAX_REDIRECTS + 1);
  });
});

describe('the fetch under both clients', () => {
  it('drops every header that may carry a credential once the origin changes, whatever its name', async () => {
    redirectAll('httpA', origin.httpB);
    const headers = {
      authorization: `Bearer ${KEY}`,
      'x-api-key': KEY,
      'api-key': KEY,
      'x-custom-credential': KEY,
      cookie: `session=${KEY}`,
      'content-type': 'application/json',
    };
    // Through the global fetch (the https path), and through node:http (plain http).
    for (const f of [boundedFetch(1 << 20, (i, o) => fetch(i, o)), boundedFetch(1 << 20)]) {
      seen.length = 0;
      const r = await f(`${origin.httpA}/v1/x`, { method: 'POST', headers, body: '{}' });
      expect(r.status).toBe(200);
      expect(seen.map((s) => s.server)).toEqual(['httpA', 'httpB']);
      expect(keyHeaders(seen[1]!)).toEqual([]);
      expect(seen[1]!.headers['content-type']).toBe('application/json');
    }
  });

  it('turns a 303 (and a 302 after a POST) into a GET without a body; refuses a non-HTTP location', async () => {
    for (const status of [303, 302]) {
      seen.length = 0;
      redirectAll('httpA', origin.httpB, status);
      await boundedFetch(1 << 20)(`${origin.httpA}/v1/x`, { method: 'POST', body: '{"a":1}' });
      expect(seen[1]).toMatchObject({ server: 'httpB', method: 'GET', body: '' });
    }
    redirectOf.set('httpA', () => ({ status: 307, location: 'file:///etc/passwd' }));
    await expect(boundedFetch(1 << 20)(`${origin.httpA}/v1/x`)).rejects.toBeInstanceOf(RedirectRefused);
  });

  it('withoutCredentials keeps only headers that carry none', () => {
    const h = withoutCredentials({
      Authorization: 'x',
      'Proxy-Authorization': 'x',
      'X-Goog-Api-Key': 'x',
      'Ocp-Apim-Subscription-Key': 'x',
      Accept: 'application/json',
      'anthropic-version': '2023-06-01',
      'x-toolgauge-trial': '0',
    });
    expect([...h.keys()].sort()).toEqual(['accept', 'anthropic-version', 'x-toolgauge-trial']);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, ResponseTooLarge } from './fetch.ts';

// The plain-HTTP path of the model client's fetch (node:http), against a server that answers in the ways an
// endpoint can: compressed, streamed without a length, too large, never.
let server: Server;
let base: string;
const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      if (req.url === '/gzip')
        return void res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync('{"ok":"gzip"}'));
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
        return void res.end();
      }
      if (req.url === '/hang') return; // never answers
      if (req.url === '/empty') return void res.writeHead(204).end();
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-two': ['a', 'b'] })
        .end(`{"echo":${JSON.stringify(body)}}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

const post = (path: string, init: RequestInit = {}, max = 1 << 20) =>
  boundedFetch(max)(`${base}${path}`, {
    method: 'POST',
    body: '{"a":"é"}',
    headers: { 'content-type': 'application/json' },
    ...init,
  });

describe('plain HTTP through node:http', () => {
  it('sends the body with its length in bytes, and reads the answer, its status and every header value', async () => {
    seen.length = 0;
    const r = await post('/echo');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ echo: '{"a":"é"}' });
    expect(r.headers.get('x-two')).toBe('a, b');
    expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('decodes a compressed answer; an answer without a body is empty', async () => {
    expect(await (await post('/gzip')).json()).toEqual({ ok: 'gzip' });
    const empty = await post('/empty');
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
  });

  it('refuses a body past the limit while it streams, and stops at an abort', async () => {
    await expect(post('/stream', {}, 10_000)).rejects.toBeInstanceOf(ResponseTooLarge);
    expect((await post('/stream', {}, 100_000)).status).toBe(200);
    const ctl = new AbortController();
    const pending = post('/hang', { signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('request timed out')), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

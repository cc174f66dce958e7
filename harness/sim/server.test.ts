// The simulator's front: the body bound (a huge POST is a 413, the server and its run live on), Host, Origin and
// content type checked before a route reads anything.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from './server.ts';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => sim.close());

/** A raw request whose body is `chunks` chunks of `size` bytes, sent without a Content-Length. */
function send(o: {
  headers?: Record<string, string>;
  chunks?: number;
  size?: number;
  body?: string;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: sim.port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', ...o.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) return void req.end(o.body);
    const chunk = Buffer.alloc(o.size ?? 0, 0x20);
    let left = o.chunks ?? 0;
    const write = () => {
      while (left > 0) {
        left--;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    req.on('response', () => (left = 0));
    write();
  });
}

const CHAT = JSON.stringify({ model: 'sim:oracle', messages: [{ role: 'user', content: 'hi' }] });

describe('the simulator front', () => {
  it('a body past the bound is a 413 with a one-line JSON error, and the simulator keeps answering', async () => {
    const big = await send({ chunks: 64, size: 64 * 1024 }).catch((e: Error) => ({ status: 0, text: e.message }));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.text).error.message).toBe('request body larger than 65536 bytes');
    const declared = await send({ headers: { 'content-length': String(10 * 2 ** 30) }, body: '' }).catch(() => ({
      status: 413,
      text: '',
    }));
    expect(declared.status).toBe(413);
    // Still serving: an unmatched request is its own 422, not a dead socket.
    expect((await send({ body: CHAT })).status).toBe(422);
  });

  it('a foreign Host, a foreign Origin and a text/plain body are refused before any route', async () => {
    expect((await send({ headers: { host: `rebound.example:${sim.port}` }, body: CHAT })).status).toBe(421);
    expect((await send({ headers: { origin: 'https://attacker.example' }, body: CHAT })).status).toBe(403);
    expect((await send({ headers: { 'content-type': 'text/plain' }, body: CHAT })).status).toBe(415);
  });
});

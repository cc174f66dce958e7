import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcess } from '../../tests/helpers/cli.ts';
import { serveView } from './server.ts';

// The viewer's server answers its page on the loopback address only, to a Host naming that address (a rebound DNS
// name from another site gets nothing); `toolgauge view` refuses a path that holds no run in one line, exit 2.

const root = mkdtempSync(join(tmpdir(), 'tg-view-server-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function get(
  url: string,
  o: { host?: string; method?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.host ? { host: o.host } : {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('toolgauge view: the server and the command line', () => {
  it('serves the page with its policy headers to its own address only', async () => {
    let loads = 0;
    const server = await serveView(async () => `<p>page ${++loads}</p>`);
    try {
      const { port } = new URL(server.url);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const ok = await get(server.url);
      expect(ok.status).toBe(200);
      expect(ok.body).toBe('<p>page 1</p>');
      expect(ok.headers['content-security-policy']).toContain("default-src 'none'");
      expect(ok.headers['x-content-type-options']).toBe('nosniff');
      expect((await get(server.url, { host: `localhost:${port}` })).status).toBe(200);
      expect((await get(server.url, { host: `evil.example:${port}` })).status).toBe(421);
      expect((await get(server.url, { host: 'evil.example' })).status).toBe(421);
      expect((await get(`${server.url}traces/1.json`)).status).toBe(404);
      expect((await get(server.url, { method: 'POST' })).status).toBe(405);
      expect(loads).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('a path without a run is a usage error; --export writes the page for a folder of runs', async () => {
    const r = await inProcess(['view', join(root, 'missing')], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`toolgauge view: ${join(root, 'missing')}: not found`);
    // A journal alone (no summary.json: a run still writing) is enough to be shown.
    mkdirSync(join(root, 'runs', 'one'), { recursive: true });
    writeFileSync(
      join(root, 'runs', 'one', 'instances.jsonl'),
      JSON.stringify({ suite: 'x', id: 'a', trial: 0, error: null, pass: false, reason: 'nope' }) + '\n',
    );
    const file = join(root, 'out.html');
    const e = await inProcess(['view', join(root, 'runs'), '--export', file], {});
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain('1 run, 1 case, 1 problem shown in the page');
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>/);
    expect((await inProcess(['view', '--port', '70000'], {})).code).toBe(2);
  });
});

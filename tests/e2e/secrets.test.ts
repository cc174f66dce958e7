import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, toolgauge } from '../helpers/cli.ts';

// An endpoint that echoes what it was sent: the Authorization header in a 400 error body, and in a 200 answer the
// whole request line (with its api_key query). Nothing toolgauge writes or prints may contain a secret.

const KEY = 'sk-test-0123456789abcdef';
const PASS = 'hunter2-very-secret';
const QKEY = 'qk-abcdef987654321';
let server: Server;
let base: string;
let calls = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.includes('/models')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm' }] }));
      calls++;
      if (calls % 2 === 1) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ object: 'error', message: `bad request; you sent authorization=${req.headers.authorization} and x-api-key=${req.headers['x-api-key'] ?? ''}` }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: `<answer>${req.url} ${req.headers.authorization}</answer>` }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

describe('secrets', () => {
  it('an endpoint that echoes the key: no output file and no printed line contains a secret', async () => {
    const out = tempDir('secrets');
    const url = base.replace('http://', `http://user:${PASS}@`) + `?api_key=${QKEY}`;
    const r = await toolgauge(['toolhop', '--base-url', url, '--model', 'm', '--limit', '3', '--retries', '0', '--out-dir', out, '--data', 'cases/toolhop/sample.json'.replace(/^/, process.cwd() + '/')], { OPENAI_API_KEY: KEY, TOOLHOP_ALLOW_DATASET_EXEC: '1' });
    expect(calls).toBeGreaterThan(1);
    const files = allFiles(out);
    expect(files.length).toBeGreaterThan(4);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const s of [KEY, PASS, QKEY, Buffer.from(`user:${PASS}`).toString('base64')]) expect(text.includes(s), `${f} contains the secret ${s.slice(0, 6)}…`).toBe(false);
    }
    for (const s of [KEY, PASS, QKEY]) expect((r.stdout + r.stderr).includes(s)).toBe(false);
    // The errors are still explained, with the secret masked.
    const results = readFileSync(join(out, 'results.jsonl'), 'utf8');
    expect(results).toMatch(/authorization=(Basic|Bearer) \[REDACTED\]/);
  });
});

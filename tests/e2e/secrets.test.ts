import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, toolgauge } from '../helpers/cli.ts';

// An endpoint that echoes what it was sent, in turn: the Authorization header in a 400 error body; in a 200 answer
// the whole request line (with its api_key query); the key in every string field of a tool call answer, with a
// tool call id that puts it across the 100,000-character store cut; and a plain-text 400 body that puts it across
// the 2,000-character error cut. Nothing toolgauge writes or prints may contain a secret, or the first 8 characters
// of one (a cut secret).

const KEY = 'sk-test-0123456789abcdef';
const PASS = 'hunter2-very-secret';
const QKEY = 'qk-abcdef987654321';
/** A credential in a query parameter whose name says nothing of it (Azure Functions' `code`). */
const CODE = 'fnc-Zq81uV2mW0xYt7';
let server: Server;
let base: string;
let calls = 0;
/** Where toolgauge cuts a stored string and an error body. */
const STORE_CUT = 100_000;
const ERROR_CUT = 2_000;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.includes('/models'))
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: [{ id: 'm' }] }));
      calls++;
      // The key itself (this endpoint knows it; the header carries the URL's Basic credentials).
      const key = KEY;
      if (calls % 4 === 1) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({
            object: 'error',
            message: `bad request; you sent authorization=${req.headers.authorization} and x-api-key=${req.headers['x-api-key'] ?? ''}`,
          }),
        );
      }
      if (calls % 4 === 3) {
        const id = `${'i'.repeat(STORE_CUT - 10)}${key}-after`;
        const toolCalls = [
          { id, type: 'function', function: { name: `tool_${key}`, arguments: JSON.stringify({ q: key }) } },
        ];
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({
            id: key,
            object: 'chat.completion',
            created: 0,
            model: key,
            choices: [
              { index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: key },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      }
      if (calls % 4 === 0) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return void res.end(`${'e'.repeat(ERROR_CUT - 10)}${key} was refused`);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `<answer>${req.url} ${req.headers.authorization}</answer>` },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
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
    const url = base.replace('http://', `http://user:${PASS}@`) + `?api_key=${QKEY}&code=${CODE}`;
    const r = await toolgauge(
      [
        'toolhop',
        '--base-url',
        url,
        '--model',
        'm',
        '--limit',
        '4',
        '--retries',
        '0',
        '--out-dir',
        out,
        '--data',
        'cases/toolhop/sample.json'.replace(/^/, process.cwd() + '/'),
      ],
      { OPENAI_API_KEY: KEY, TOOLHOP_ALLOW_DATASET_EXEC: '1' },
    );
    expect(calls).toBeGreaterThan(4);
    const files = allFiles(out);
    expect(files.length).toBeGreaterThan(4);
    // A secret's first 8 characters: a secret cut anywhere after them still contains them.
    const beginnings = [KEY, PASS, QKEY, CODE, Buffer.from(`user:${PASS}`).toString('base64')].map((s) =>
      s.slice(0, 8),
    );
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const s of beginnings)
        expect(text.includes(s), `${f} contains the beginning of a secret ${s.slice(0, 6)}…`).toBe(false);
    }
    for (const s of beginnings)
      expect((r.stdout + r.stderr).includes(s), `the output contains the beginning of a secret ${s.slice(0, 6)}…`).toBe(
        false,
      );
    // The cut strings were stored: the tool call id to the store cut, the error body to the error cut.
    const stored = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(stored).toContain('i'.repeat(STORE_CUT - 10));
    expect(stored).toContain('e'.repeat(ERROR_CUT - 10));
    // The errors are still explained, with the secret masked.
    const results = readFileSync(join(out, 'results.jsonl'), 'utf8');
    expect(results).toMatch(/authorization=(Basic|Bearer) \[REDACTED\]/);
    // The stored endpoint keeps the query's names, never a value.
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toContain('/v1?api_key=REDACTED&code=REDACTED');
  });
});

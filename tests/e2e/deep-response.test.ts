import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { validSummary } from '../../harness/report/summary.ts';
import { cleanEnv, readJson, readLines, tempDir } from '../helpers/cli.ts';

// A hostile endpoint over real loopback HTTP: for the question "deep" it calls the tool with arguments nested
// 5,000 deep, for any other question it answers at once. The simulator has no such behaviour.
const DEPTH = 5000;
const deepArgs = `{"x":${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}}`;

let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      // The run reads the models list once for its header's provenance: an empty list.
      if (req.method === 'GET') {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ object: 'list', data: [] }));
      }
      const messages = (JSON.parse(body) as { messages: Array<{ role: string; content: string }> }).messages;
      const deep =
        messages.some((m) => m.role === 'user' && m.content === 'deep') && !messages.some((m) => m.role === 'tool');
      const message = deep
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: deepArgs } }],
          }
        : { role: 'assistant', content: '<answer>ok</answer>' };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'r',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message, finish_reason: deep ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a response nested 5,000 deep', () => {
  it('becomes an instance recorded as an error with a clear message; the other instances and the denominator stay', async () => {
    const out = tempDir('deep');
    const suite = evalSuite('deep', {
      data: () => [
        { id: 'calm', input: 'calm', expected: 'ok' },
        { id: 'deep', input: 'deep', expected: 'ok' },
      ],
      tools: [{ name: 'echo', parameters: { type: 'object', properties: { x: {} } }, run: () => 'done' }],
      task: toolLoop(),
      scorers: [scorers.answerMatches()],
    });
    const run = await runSuite(
      suite,
      cleanEnv({ OPENAI_BASE_URL: baseUrl, TOOLGAUGE_MODEL: 'm', TOOLGAUGE_OUT_DIR: out }),
    );
    const byId = new Map(run.metas.map((m) => [m.id, m]));
    expect(byId.get('calm')).toMatchObject({ error: null, pass: true });
    expect(byId.get('deep')?.error).toMatch(/nested deeper than \d+ levels/);
    const journal = readLines<{ id: string; error: string | null }>(join(run.outDir, 'instances.jsonl'));
    expect(journal.map((m) => m.id).sort()).toEqual(['calm', 'deep']);
    expect(validSummary(readJson(join(run.outDir, 'summary.json'))).counts).toMatchObject({ instances: 2, errors: 1 });
  });
});

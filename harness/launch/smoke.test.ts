import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, tempDir } from '../../tests/helpers/cli.ts';
import { EndpointUnavailable, smokeToolCall } from '../model/preflight.ts';

// `--smoke`: one tool call before a run, against a stand-in server (real HTTP on loopback) whose answer each test
// picks by model name.
const ANSWERS: Record<string, { status: number; body: unknown }> = {
  caller: {
    status: 200,
    body: {
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
            ],
          },
        },
      ],
    },
  },
  talker: {
    status: 200,
    body: {
      choices: [
        {
          message: {
            role: 'assistant',
            content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
          },
        },
      ],
    },
  },
  wrong: {
    status: 200,
    body: {
      choices: [{ message: { role: 'assistant', tool_calls: [{ function: { name: 'search', arguments: '{}' } }] } }],
    },
  },
  broken: {
    status: 200,
    body: {
      choices: [
        {
          message: {
            role: 'assistant',
            tool_calls: [{ function: { name: 'get_weather', arguments: '{"city": Par' } }],
          },
        },
      ],
    },
  },
  refuses: {
    status: 400,
    body: {
      error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' },
    },
  },
};

let server: Server;
let url = '';
const bodies: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url?.endsWith('/models'))
        return res.end(
          JSON.stringify({ object: 'list', data: Object.keys(ANSWERS).map((id) => ({ id, object: 'model' })) }),
        );
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      const a = ANSWERS[String(body.model)]!;
      res.statusCode = a.status;
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('smoke test', () => {
  const smoke = (model: string) => smokeToolCall({ baseUrl: url, apiKey: '', model });
  it('passes when the endpoint makes a native call of the one tool with JSON arguments, asked as the header says', async () => {
    expect(await smoke('caller')).toEqual({ name: 'get_weather', arguments: '{"city": "Paris"}' });
    const sent = bodies.at(-1)!;
    expect(sent).toMatchObject({ model: 'caller', tool_choice: 'auto', temperature: 0 });
    expect((sent.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['get_weather']);
  });
  it('fails in one line naming model and endpoint when the answer is text, another tool, broken arguments or a refusal', async () => {
    const failure = async (model: string) => {
      const err = await smoke(model).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, model).toBeInstanceOf(EndpointUnavailable);
      const msg = (err as Error).message;
      expect(msg.split('\n'), model).toHaveLength(1);
      expect(msg).toContain(`smoke test: model '${model}' at http://127.0.0.1:`);
      return msg;
    };
    expect(await failure('talker')).toMatch(
      /made no tool call \(it answered "<tool_call>\\n\{\\"name\\": \\"get_weather\\".*\): check the server's tool-call parser/,
    );
    expect(await failure('wrong')).toMatch(/called 'search', not the one tool offered \('get_weather'\)/);
    expect(await failure('broken')).toMatch(/called get_weather with arguments that are not JSON/);
    expect(await failure('refuses')).toMatch(
      /refused a request with tools: 400 "auto" tool choice requires --enable-auto-tool-choice/,
    );
  });
  it('`--smoke` stops a suite command before the run with exit 2 and one line', async () => {
    const out = tempDir('smoke');
    const r = await inProcess(
      ['maze', '--base-url', url, '--model', 'talker', '--only', 'C1_task_001_P0', '--out-dir', out, '--smoke'],
      {},
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^toolgauge maze: smoke test: model 'talker' at .* made no tool call/);
  });
});

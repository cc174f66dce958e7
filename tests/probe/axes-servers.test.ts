import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../harness/core/config.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { suiteTrialSampling } from '../../harness/kit/sampling.ts';
import type { RunContext } from '../../harness/kit/types.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { ModelClient } from '../../harness/model/client.ts';
import type { ProbeSettings } from '../../harness/probe/run/env.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { run as probeRun } from '../../harness/probe/command.ts';
import { SUITE_COMMAND_RUNNER } from '../../harness/cli/suite-command.ts';

const probeCommand = (argv: string[]) => probeRun(argv, SUITE_COMMAND_RUNNER);

// A request captured from each `--server` mode, sent by the probe suite itself (its load and run, as the kit calls
// them) to a loopback endpoint, checked against that server's documented request shape — written here from the
// servers' documentation, not from toolgauge's builder:
//   llama.cpp /completion(s): `grammar` (GBNF text), `grammar_lazy: true`, `grammar_triggers: [{type: 1 (WORD), value}]`,
//     `preserved_tokens` (tools/server README, "POST /completion" options; server-task.cpp params_from_json_cmpl)
//   vLLM: `structured_outputs: {structural_tag: "<JSON string>"}` (docs/features/structured_outputs.md)
//   SGLang: `response_format: {type: "structural_tag", …}` (docs/advanced_features/structured_outputs.ipynb)
//   OpenAI: `tools[].function.strict: true` with `additionalProperties: false` and every property required;
//     `tool_choice` (function calling guide, "Strict mode")

const captured: Array<{ path: string; body: Record<string, unknown> }> = [];
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
  req.on('end', () => {
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method !== 'POST') {
      // an endpoint that says nothing about itself (no /v1/models, /props, /version …)
      res.writeHead(404).end();
      return;
    }
    captured.push({ path, body: JSON.parse(raw) as Record<string, unknown> });
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const body = path.endsWith('/chat/completions')
      ? {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'No tool needed.' }, finish_reason: 'stop' }],
          usage,
        }
      : {
          id: 'x',
          object: 'text_completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, text: 'No tool needed.', finish_reason: 'stop' }],
          usage,
        };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** One constrained case through the suite's own load and run, against the loopback endpoint. */
async function captureOne(env: Record<string, string>): Promise<{ path: string; body: Record<string, unknown> }> {
  const run = readConfig({ OPENAI_BASE_URL: url, TOOLGAUGE_MODEL: 'served-model', TOOLGAUGE_RETRIES: '0' });
  const settings = probeSuite.settings(
    {
      TOOLGAUGE_PROBE_DECODE: 'constrained',
      TOOLGAUGE_PROBE_ONLY: 'c1_weather_test_000',
      TOOLGAUGE_PROBE_TOP_P: '0.9',
      ...env,
    },
    run,
  ) as ProbeSettings;
  const loaded = await probeSuite.load(run, settings);
  expect(loaded.instances).toHaveLength(1);
  const client = new ModelClient({ baseUrl: url, model: run.model, timeoutMs: 5000, retries: 0, concurrency: 1 });
  const ctx: RunContext<ProbeSettings> = {
    run,
    settings,
    trial: 0,
    outDir: '/nonexistent',
    client: () => client,
    sampling: suiteTrialSampling(probeSuite, run, settings, 0),
    sandbox: () => {
      throw new Error('the probe needs no sandbox');
    },
    tracePath: () => 'trace.json',
  };
  const before = captured.length;
  const done = await probeSuite.run(loaded.instances[0]!, ctx);
  expect(done.meta.error).toBeNull();
  expect(captured.length).toBe(before + 1);
  return captured.at(-1)!;
}

describe('a request from each --server mode, through the probe suite, has the server’s documented shape', () => {
  it('llama.cpp (completions): a lazy GBNF grammar with WORD triggers, a raw prompt, top_p', async () => {
    // no --template: toolgauge renders its reference Hermes template (the simulator's stand-in; fine for the shape)
    const { path, body } = await captureOne({
      TOOLGAUGE_PROBE_SERVER: 'llamacpp',
      TOOLGAUGE_PROBE_TRANSPORT: 'completions',
    });
    expect(path).toBe('/v1/completions');
    expect(typeof body.prompt).toBe('string');
    expect(body.top_p).toBe(0.9);
    expect(typeof body.grammar).toBe('string');
    expect(body.grammar as string).toMatch(/^root ::= /m);
    expect(body.grammar_lazy).toBe(true);
    const triggers = body.grammar_triggers as Array<{ type: unknown; value: unknown }>;
    expect(triggers.length).toBeGreaterThan(0);
    for (const t of triggers) expect([t.type, typeof t.value]).toEqual([1, 'string']);
    expect(Array.isArray(body.preserved_tokens)).toBe(true);
    expect(body.tools).toBeUndefined();
  });

  it('vLLM (chat): structured_outputs.structural_tag is a JSON string of triggered tags; the tools are sent as usual', async () => {
    const { path, body } = await captureOne({ TOOLGAUGE_PROBE_SERVER: 'vllm', TOOLGAUGE_PROBE_FAMILY: 'hermes' });
    expect(path).toBe('/v1/chat/completions');
    const so = body.structured_outputs as { structural_tag: unknown };
    expect(Object.keys(so)).toEqual(['structural_tag']);
    expect(typeof so.structural_tag).toBe('string');
    const tag = JSON.parse(so.structural_tag as string) as {
      type: string;
      format: {
        type: string;
        triggers: string[];
        tags: Array<{ begin: string; content: { type: string; grammar: string }; end: string }>;
      };
    };
    expect(tag.type).toBe('structural_tag');
    expect(tag.format.type).toBe('triggered_tags');
    expect(
      tag.format.tags.every(
        (t) => tag.format.triggers.some((tr) => t.begin.startsWith(tr)) && t.content.type === 'grammar',
      ),
    ).toBe(true);
    expect((body.tools as unknown[]).length).toBeGreaterThan(0);
    expect(body.tool_choice).toBe('auto');
    expect(body.top_p).toBe(0.9);
  });

  it('SGLang (chat): response_format is the structural tag itself', async () => {
    const { body } = await captureOne({ TOOLGAUGE_PROBE_SERVER: 'sglang', TOOLGAUGE_PROBE_FAMILY: 'hermes' });
    const rf = body.response_format as { type: string; format: { type: string } };
    expect(rf.type).toBe('structural_tag');
    expect(rf.format.type).toBe('triggered_tags');
    expect(body.structured_outputs).toBeUndefined();
  });

  it('OpenAI (chat): strict function schemas, closed objects, every property required, tool_choice auto', async () => {
    const { body } = await captureOne({ TOOLGAUGE_PROBE_SERVER: 'openai' });
    const tools = body.tools as Array<{
      type: string;
      function: {
        strict: unknown;
        parameters: {
          type: string;
          additionalProperties: unknown;
          required: string[];
          properties: Record<string, unknown>;
        };
      };
    }>;
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) {
      expect(t.type).toBe('function');
      expect(t.function.strict).toBe(true);
      expect(t.function.parameters.additionalProperties).toBe(false);
      expect([...t.function.parameters.required].sort()).toEqual(Object.keys(t.function.parameters.properties).sort());
    }
    expect(body.tool_choice).toBe('auto');
    expect(body.grammar).toBeUndefined();
    expect(body.structured_outputs).toBeUndefined();
  });
});

describe('a server that cannot constrain is refused before anything runs', () => {
  it('one line (a UsageError: exit 2), naming the server and the reason; detection that finds nothing asks for --server', async () => {
    const refuse = async (args: string[]) => {
      const e = await probeCommand([
        '--decode',
        'free,constrained',
        '--model',
        'some-model',
        '--base-url',
        url,
        ...args,
      ]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(UsageError);
      const msg = (e as Error).message;
      expect(msg.split('\n')).toHaveLength(1);
      return msg;
    };
    const n = captured.length;
    expect(await refuse(['--server', 'llamacpp', '--family', 'hermes'])).toMatch(
      /^toolgauge probe: --decode constrained with --server llamacpp: llama-server refuses a custom grammar together with tools/,
    );
    expect(
      await refuse([
        '--server',
        'sglang',
        '--family',
        'hermes',
        '--transport',
        'completions',
        '--template',
        fromRoot('cases', 'probe', 'templates', 'sim-dropping-hermes.jinja'),
      ]),
    ).toMatch(/SGLang's completions constraints/);
    // this loopback endpoint says nothing about itself
    expect(await refuse([])).toMatch(/cannot tell which server this endpoint is .*pass --server/);
    expect(captured.length).toBe(n); // no request was sent
  });
});

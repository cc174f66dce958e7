// toolgauge serve's HTTP surface over a scripted engine (the Engine interface, in process): what reaches the engine
// for each request field, the answers' shapes, the 4xx for what is not implemented, the bounded queue and the
// engine's crash. The real engine (llama.cpp) is exercised in serve.engine.test.ts.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EngineError,
  type CompleteChunk,
  type CompleteOptions,
  type CompleteRequest,
  type CompleteResult,
  type Engine,
  type EngineInfo,
} from '../engine/types.ts';
import { referenceTemplate } from '../templates/index.ts';
import { startServe, type ServeHandle } from './server.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

type Script = (
  req: CompleteRequest,
  opts: { onChunk?: (c: CompleteChunk) => void; signal?: AbortSignal },
) => Promise<CompleteResult> | CompleteResult;

const result = (text: string, extra: Partial<CompleteResult> = {}): CompleteResult => ({
  text,
  tokens: [...text].map((c) => c.charCodeAt(0)),
  finishReason: 'stop',
  usage: { promptTokens: 11, completionTokens: text.length },
  ...extra,
});

class ScriptedEngine implements Engine {
  calls: CompleteRequest[] = [];
  /** Whether each call came marked as checked by the caller (the engine then does not check it again). */
  checked: Array<boolean | undefined> = [];
  script: Script = () => result('hello');
  constructor(private readonly template: string | undefined) {}
  async info(): Promise<EngineInfo> {
    return {
      engine: 'llama.cpp via node-llama-cpp 3.21.1',
      llamaCppBuild: 'b0000',
      file: 'm.gguf',
      sha256: 'a'.repeat(64),
      bytes: 1,
      architecture: 'llama',
      tensorType: 'F32',
      vocabSize: 300,
      contextSize: 512,
      sequences: 1,
      threads: 1,
      ...(this.template ? { chatTemplate: this.template, chatTemplateSha256: 'b'.repeat(64) } : {}),
      testModel: true,
      loadMs: 1,
    };
  }
  async tokenize(text: string): Promise<number[]> {
    return [...text].map((c) => c.charCodeAt(0));
  }
  async detokenize(tokens: number[]): Promise<string> {
    return String.fromCharCode(...tokens);
  }
  async complete(req: CompleteRequest, opts: CompleteOptions = {}): Promise<CompleteResult> {
    this.calls.push(req);
    this.checked.push(opts.checked);
    return this.script(req, opts);
  }
  async nextTokenDistributions(): Promise<never> {
    throw new Error('not used');
  }
  async checkGrammar(): Promise<void> {}
  async close(): Promise<void> {}
}

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const TIME = {
  type: 'function',
  function: {
    name: 'get_time',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
};
const USER = [{ role: 'user', content: 'Weather in Paris?' }];

let engine: ScriptedEngine;
let server: ServeHandle;

async function post(
  path: string,
  body: unknown,
  s: ServeHandle = server,
): Promise<{ status: number; json: any; headers: Headers }> {
  const r = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json(), headers: r.headers };
}

beforeAll(async () => {
  engine = new ScriptedEngine(referenceTemplate('hermes')!);
  server = await startServe({ engine, alias: 'gguf:m.gguf', parallel: 1, queue: 1 });
});
afterAll(() => server.close());

describe('toolgauge serve: routes and chat', () => {
  it('lists the served model with the engine facts under meta', async () => {
    const r = await fetch(`${server.url}/models`);
    const j = (await r.json()) as any;
    expect(j.data[0]).toMatchObject({
      id: 'gguf:m.gguf',
      meta: {
        engine: 'llama.cpp via node-llama-cpp 3.21.1',
        sha256: 'a'.repeat(64),
        tensor_type: 'F32',
        test_model: true,
        chat_template_sha256: 'b'.repeat(64),
      },
    });
  });

  it("renders the messages and tools with the model's own template and parses the generated call into tool_calls", async () => {
    engine.script = () => result('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
    const r = await post('/chat/completions', { model: 'x', messages: USER, tools: [WEATHER], temperature: 0 });
    expect(r.status).toBe(200);
    const prompt = engine.calls.at(-1)!.prompt;
    // The Hermes template: tools in the system turn, the generation prompt last.
    expect(prompt).toContain('"name": "get_weather"');
    expect(prompt.endsWith('<|im_start|>assistant\n')).toBe(true);
    expect(engine.calls.at(-1)!.grammar).toBeUndefined();
    const choice = r.json.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    expect(choice.message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(r.json.usage).toEqual({ prompt_tokens: 11, completion_tokens: 80, total_tokens: 91 });
  });

  it('tool_choice none: the same text stays content, and no grammar', async () => {
    engine.script = () => result('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
    const r = await post('/chat/completions', { messages: USER, tools: [WEATHER], tool_choice: 'none' });
    expect(r.json.choices[0].message.tool_calls).toBeUndefined();
    expect(r.json.choices[0].message.content).toContain('<tool_call>');
    expect(engine.calls.at(-1)!.grammar).toBeUndefined();
  });

  it("tool_choice required and named decode under the family's call grammar (named: that tool only)", async () => {
    engine.script = () => result('<tool_call>{"name": "get_time", "arguments": {"zone": "UTC"}}</tool_call>');
    await post('/chat/completions', { messages: USER, tools: [WEATHER, TIME], tool_choice: 'required' });
    const required = engine.calls.at(-1)!.grammar!;
    expect(required).toMatch(/^root ::= /);
    expect(required).toContain('tool_call');
    expect(required).toContain('get_weather');
    expect(required).toContain('get_time');
    const r = await post('/chat/completions', {
      messages: USER,
      tools: [WEATHER, TIME],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    const named = engine.calls.at(-1)!.grammar!;
    expect(named).toContain('get_time');
    expect(named).not.toContain('get_weather');
    expect(r.json.choices[0].message.tool_calls[0].function.name).toBe('get_time');
  });

  it('passes the sampling fields through: seed, temperature, top_p, repeat penalty (either name), max_tokens, stop, logit_bias', async () => {
    engine.script = () => result('ok');
    await post('/chat/completions', {
      messages: USER,
      seed: 7,
      temperature: 0.3,
      top_p: 0.5,
      repetition_penalty: 1.1,
      max_tokens: 9,
      stop: ['END'],
      logit_bias: { '5': -100, '7': 2.5 },
    });
    expect(engine.calls.at(-1)).toMatchObject({
      seed: 7,
      temperature: 0.3,
      topP: 0.5,
      repeatPenalty: 1.1,
      maxTokens: 9,
      stop: ['END'],
      tokenBias: [
        { token: 5, bias: 'never' },
        { token: 7, bias: 2.5 },
      ],
    });
    await post('/completions', { prompt: 'abc', repeat_penalty: 1.3, stop: 'X', max_tokens: 3 });
    expect(engine.calls.at(-1)).toMatchObject({ prompt: 'abc', repeatPenalty: 1.3, stop: ['X'], maxTokens: 3 });
  });

  it("checks a body once: the engine is handed the request as checked by the server's schemas", async () => {
    engine.script = () => result('ok');
    const before = engine.calls.length;
    expect((await post('/chat/completions', { messages: USER, max_tokens: 2 })).status).toBe(200);
    expect((await post('/completions', { prompt: ['abc'], max_tokens: 2 })).status).toBe(200);
    expect(engine.checked.slice(before)).toEqual([true, true]);
  });

  it('json_schema and response_format become a GBNF grammar over the schema', async () => {
    engine.script = () => result('{"a": 1}');
    await post('/completions', {
      prompt: 'p',
      json_schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
    });
    const g = engine.calls.at(-1)!.grammar!;
    expect(g).toMatch(/^root ::= /);
    expect(g).toContain('"\\"a\\""');
    await post('/chat/completions', {
      messages: USER,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 's', schema: { type: 'object', properties: { zz: { type: 'boolean' } } } },
      },
    });
    expect(engine.calls.at(-1)!.grammar).toContain('zz');
    await post('/chat/completions', { messages: USER, response_format: { type: 'json_object' } });
    expect(engine.calls.at(-1)!.grammar).toMatch(/^root ::= /);
  });

  it('logprobs: chat content entries and the completions legacy shape', async () => {
    const lp = [
      {
        token: 104,
        text: 'h',
        logprob: -0.1,
        top: [
          { token: 104, text: 'h', logprob: -0.1 },
          { token: 105, text: 'i', logprob: -2.4 },
        ],
      },
      { token: 105, text: 'i', logprob: -0.2, top: [{ token: 105, text: 'i', logprob: -0.2 }] },
    ];
    engine.script = () => result('hi', { logprobs: lp });
    const c = await post('/chat/completions', { messages: USER, logprobs: true, top_logprobs: 2 });
    expect(engine.calls.at(-1)!.topLogprobs).toBe(2);
    expect(c.json.choices[0].logprobs.content[0]).toEqual({
      token: 'h',
      logprob: -0.1,
      bytes: [104],
      top_logprobs: [
        { token: 'h', logprob: -0.1, bytes: [104] },
        { token: 'i', logprob: -2.4, bytes: [105] },
      ],
    });
    const t = await post('/completions', { prompt: 'p', logprobs: 1 });
    expect(t.json.choices[0].logprobs).toEqual({
      tokens: ['h', 'i'],
      token_logprobs: [-0.1, -0.2],
      top_logprobs: [{ h: -0.1, i: -2.4 }, { i: -0.2 }],
      text_offset: [0, 1],
    });
  });
});

describe('toolgauge serve: lazy grammars (two passes)', () => {
  it('decodes freely until a trigger word, then from the text before it under the grammar', async () => {
    engine.script = (req, opts) => {
      if (!req.grammar) {
        // Free pass: streams, and stops when told to.
        for (const text of ['Sure. ', '<tool_', 'call>', 'never seen']) {
          if (opts.signal?.aborted) break;
          opts.onChunk?.({ text, tokens: [1] });
        }
        if (opts.signal?.aborted) throw new EngineError('request', 'aborted');
        return result('Sure. <tool_call>never seen');
      }
      return result('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>', {
        usage: { promptTokens: 20, completionTokens: 5 },
      });
    };
    const before = engine.calls.length;
    const r = await post('/completions', {
      prompt: 'P:',
      grammar: 'root ::= "<tool_call>" [^<]* "</tool_call>"',
      grammar_lazy: true,
      grammar_triggers: [{ type: 1, value: '<tool_call>' }],
      max_tokens: 50,
    });
    expect(r.status).toBe(200);
    const [free, constrained] = engine.calls.slice(before);
    expect(free!.grammar).toBeUndefined();
    expect(constrained!.grammar).toContain('<tool_call>');
    expect(constrained!.prompt).toBe('P:Sure. ');
    expect(r.json.choices[0].text).toBe(
      'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
    );
    // 'Sure. ' is 6 tokens in the scripted tokenizer; the constrained pass gets what is left of max_tokens.
    expect(constrained!.maxTokens).toBe(44);
    expect(r.json.usage.completion_tokens).toBe(11);
    // Both passes are built from the checked body: neither is checked again by the engine.
    expect(engine.checked.slice(before)).toEqual([true, true]);
  });

  it('no trigger: the free text is the answer, and no second pass', async () => {
    engine.script = (_req, opts) => {
      opts.onChunk?.({ text: 'just prose', tokens: [1, 2] });
      return result('just prose');
    };
    const before = engine.calls.length;
    const r = await post('/completions', {
      prompt: 'P:',
      grammar: 'root ::= "x"',
      grammar_lazy: true,
      grammar_triggers: [{ type: 'word', value: '<tool_call>' }],
    });
    expect(engine.calls.length - before).toBe(1);
    expect(r.json.choices[0].text).toBe('just prose');
  });
});

describe('toolgauge serve: refusals', () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ['an unknown field', '/chat/completions', { messages: USER, top_k: 5 }, /unsupported field 'top_k'/],
    ['n > 1', '/chat/completions', { messages: USER, n: 2 }, /'n'.*n must be 1/],
    ['streaming', '/completions', { prompt: 'p', stream: true }, /stream/],
    [
      'two constraints',
      '/completions',
      { prompt: 'p', grammar: 'root ::= "a"', json_schema: { type: 'object' } },
      /conflicting constraints: 'grammar' and 'json_schema'/,
    ],
    [
      'a logit_bias key that is not a token id',
      '/completions',
      { prompt: 'p', logit_bias: { hello: 1 } },
      /logit_bias/,
    ],
    [
      'a token id beyond the vocabulary',
      '/completions',
      { prompt: 'p', logit_bias: { '999': 1 } },
      /logit_bias.999.*no such token/,
    ],
    [
      'a named tool that is not offered',
      '/chat/completions',
      { messages: USER, tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'nope' } } },
      /no tool named 'nope'/,
    ],
    ['required with no tools', '/chat/completions', { messages: USER, tool_choice: 'required' }, /no 'tools'/],
    [
      'a pattern trigger',
      '/completions',
      { prompt: 'p', grammar: 'root ::= "a"', grammar_lazy: true, grammar_triggers: [{ type: 2, value: 'a.*' }] },
      /pattern triggers are not supported/,
    ],
    [
      'a lazy grammar without triggers',
      '/completions',
      { prompt: 'p', grammar: 'root ::= "a"', grammar_lazy: true },
      /grammar_triggers/,
    ],
    ['a non-zero presence_penalty', '/chat/completions', { messages: USER, presence_penalty: 0.5 }, /presence_penalty/],
    ['no messages', '/chat/completions', { messages: [] }, /messages/],
    ['an empty prompt', '/completions', { prompt: '' }, /^invalid field 'prompt': the prompt is empty$/],
    [
      'an empty prompt in an array',
      '/completions',
      { prompt: [''] },
      /^invalid field 'prompt\.0': the prompt is empty$/,
    ],
    ['a body that is not JSON', '/completions', '{nope', /not JSON/],
  ];
  for (const [what, path, body, message] of cases) {
    it(`${what} → 400 naming it`, async () => {
      const before = engine.calls.length;
      const r = await post(path, body);
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
      expect(engine.calls.length).toBe(before);
    });
  }

  it('a grammar llama.cpp rejects → 400 with its message', async () => {
    engine.script = () => {
      throw new EngineError('grammar', 'failed to parse grammar: expecting name at 1:1');
    };
    const r = await post('/completions', { prompt: 'p', grammar: '??' });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/grammar rejected by llama.cpp: failed to parse grammar/);
  });

  it('a file without a chat template: chat is a 400 pointing to /v1/completions', async () => {
    const bare = await startServe({ engine: new ScriptedEngine(undefined), alias: 'bare' });
    try {
      const r = await post('/chat/completions', { messages: USER }, bare);
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(/no chat template.*\/v1\/completions/);
    } finally {
      await bare.close();
    }
  });

  it('a body over the size limit: 413 naming the limit, and the server keeps answering', async () => {
    const small = await startServe({ engine: new ScriptedEngine(undefined), alias: 'small', maxBodyBytes: 64 });
    try {
      const r = await post('/completions', { prompt: 'x'.repeat(200) }, small);
      expect(r.status).toBe(413);
      expect(r.json.error.message).toBe('request body larger than 64 bytes');
      expect((await post('/completions', { prompt: 'p' }, small)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('toolgauge serve: queue and crashes', () => {
  it('beyond --parallel and the queue: 503 with Retry-After; the held requests then complete', async () => {
    const gates: Array<() => void> = [];
    engine.script = () => new Promise<CompleteResult>((resolve) => gates.push(() => resolve(result('done'))));
    const first = post('/completions', { prompt: 'a' });
    const second = post('/completions', { prompt: 'b' });
    // parallel 1 + queue 1: the third is refused at once.
    await expect.poll(() => gates.length).toBe(1);
    const third = await post('/completions', { prompt: 'c' });
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.json.error.message).toMatch(/busy/);
    gates.shift()!();
    await expect.poll(() => gates.length).toBe(1);
    gates.shift()!();
    expect((await first).json.choices[0].text).toBe('done');
    expect((await second).json.choices[0].text).toBe('done');
  });

  it("the engine's crash is a 500 naming it, and the next request is served", async () => {
    let crashed = false;
    engine.script = () => {
      if (!crashed) {
        crashed = true;
        throw new EngineError('crash', 'engine child exited (signal SIGABRT)');
      }
      return result('back');
    };
    const r = await post('/completions', { prompt: 'p' });
    expect(r.status).toBe(500);
    expect(r.json.error.type).toBe('engine_crash');
    expect(r.json.error.message).toMatch(/engine crashed: engine child exited \(signal SIGABRT\)/);
    const again = await post('/completions', { prompt: 'p' });
    expect(again.status).toBe(200);
    expect(again.json.choices[0].text).toBe('back');
  });
});

describe('toolgauge serve: tokenizer routes', () => {
  it("POST /tokenize and /detokenize answer with the engine's tokens and text", async () => {
    const base = server.url.replace(/\/v1$/, '');
    const t = await fetch(`${base}/tokenize`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ content: 'hi' }),
    });
    expect(await t.json()).toEqual({ tokens: [104, 105] });
    const d = await fetch(`${base}/detokenize`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ tokens: [104, 105] }),
    });
    expect(await d.json()).toEqual({ content: 'hi' });
  });
});

/** A raw request (fetch cannot set Host), answered with its status and JSON body. */
function raw(
  s: ServeHandle,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: s.port, method: o.method ?? 'GET', path: o.path, headers: o.headers ?? {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

describe('toolgauge serve: the front (Host, Origin, content type) and the bounds before the engine', () => {
  it('a foreign Host or Origin and a non-JSON content type are refused; the facts are not shown', async () => {
    const host = `127.0.0.1:${server.port}`;
    const models = await raw(server, { path: '/v1/models', headers: { host: `rebound.example:${server.port}` } });
    expect(models.status).toBe(421);
    expect(JSON.stringify(models.json)).not.toContain('a'.repeat(64)); // the sha256
    expect((await raw(server, { path: '/v1/models', headers: { host } })).status).toBe(200);
    const body = JSON.stringify({ prompt: 'p' });
    const plain = await raw(server, {
      method: 'POST',
      path: '/v1/completions',
      headers: { host, 'content-type': 'text/plain' },
      body,
    });
    expect(plain.status).toBe(415);
    const page = await raw(server, {
      method: 'POST',
      path: '/v1/completions',
      headers: { host, 'content-type': 'application/json', origin: 'https://attacker.example' },
      body,
    });
    expect(page.status).toBe(403);
    const own = await raw(server, {
      method: 'POST',
      path: '/v1/completions',
      headers: { host, 'content-type': 'application/json', origin: `http://${host}` },
      body,
    });
    expect(own.status).toBe(200);
  });

  it('token ids outside the vocabulary (300) never reach the engine: 400 naming the id', async () => {
    let reached = 0;
    const detok = engine.detokenize.bind(engine);
    engine.detokenize = async (t) => (reached++, detok(t));
    try {
      for (const id of [300, 2 ** 31, 2 ** 32 + 5]) {
        const d = await raw(server, {
          method: 'POST',
          path: '/detokenize',
          headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tokens: [104, id] }),
        });
        expect(d.status).toBe(400);
        expect(d.json.error.message).toContain(`'tokens.1': ${id} is not a token id`);
      }
      expect(reached).toBe(0);
    } finally {
      engine.detokenize = detok;
    }
  });

  it.each([
    ['pattern', { type: 'string', pattern: '^a+$' }, "'json_schema': keyword 'pattern'"],
    ['$ref', { $ref: '#/$defs/x', $defs: { x: { type: 'string' } } }, "keyword '$ref'"],
    ['format', { type: 'string', format: 'date' }, "keyword 'format'"],
    ['number bounds', { type: 'number', minimum: 0, maximum: 1 }, "keyword 'minimum'"],
    ['a wide integer range', { type: 'integer', minimum: 0, maximum: 100000 }, "keyword 'minimum'"],
    ['nesting past 12', nest(13), 'nests deeper than 12 levels'],
    [
      'a 200,000-value enum',
      { enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) },
      'more than 1024 enum values',
    ],
  ])('json_schema with %s: 400 naming it, nothing generated', async (_what, schema, message) => {
    const before = engine.calls.length;
    const r = await post('/completions', { prompt: 'p', json_schema: schema });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(message);
    expect(engine.calls.length).toBe(before);
  });

  it('what the grammar enforces is still accepted (bounded integer range, anyOf, annotations)', async () => {
    const r = await post('/completions', {
      prompt: 'p',
      json_schema: {
        title: 'x',
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 1, maximum: 5 },
          s: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        required: ['n'],
        additionalProperties: false,
      },
    });
    expect(r.status).toBe(200);
  });

  it('a grammar nesting 100,000 parentheses, and a huge enum in a forced tool, are 400s naming the limit', async () => {
    const deep = `root ::= ${'('.repeat(100_000)}"a"${')'.repeat(100_000)}`;
    const g = await post('/completions', { prompt: 'p', grammar: deep });
    expect(g.status).toBe(400);
    expect(g.json.error.message).toMatch(/parentheses nest 100000 deep; the limit is 64/);
    const tool = {
      type: 'function',
      function: {
        name: 'pick',
        parameters: { type: 'object', properties: { v: { enum: Array.from({ length: 5000 }, (_, i) => i) } } },
      },
    };
    const t = await post('/chat/completions', { messages: USER, tools: [tool], tool_choice: 'required' });
    expect(t.status).toBe(400);
    expect(t.json.error.message).toContain("'tools.0.function.parameters.properties.v.enum'");
  });

  it('the queue is consulted before a body is read, and /tokenize takes its turn in it', async () => {
    const busy = new ScriptedEngine(undefined);
    const s = await startServe({ engine: busy, alias: 'b', parallel: 1, queue: 0 });
    const gates: Array<() => void> = [];
    let tokenized = 0;
    const tok = busy.tokenize.bind(busy);
    busy.tokenize = async (t) => (tokenized++, tok(t));
    busy.script = () => new Promise<CompleteResult>((resolve) => gates.push(() => resolve(result('done'))));
    try {
      const first = post('/completions', { prompt: 'a' }, s);
      await expect.poll(() => gates.length).toBe(1);
      // Refused for the full queue, not for its body: the body was never read.
      const full = await post('/completions', 'not json', s);
      expect(full.status).toBe(503);
      const tokenize = () =>
        fetch(s.url.replace(/\/v1$/, '/tokenize'), { method: 'POST', headers: JSON_TYPE, body: '{"content":"hi"}' });
      const tokens = await tokenize();
      expect(tokens.status).toBe(503);
      expect(tokenized).toBe(0);
      gates.shift()!();
      expect((await first).status).toBe(200);
      expect(await (await tokenize()).json()).toEqual({ tokens: [104, 105] });
    } finally {
      await s.close();
    }
  });

  it("a request past its deadline is aborted and answered 504; a client's disconnect aborts its generation", async () => {
    const quick = new ScriptedEngine(undefined);
    const s = await startServe({ engine: quick, alias: 'q', requestTimeoutMs: 100 });
    try {
      const aborted: boolean[] = [];
      quick.script = (_req, o) =>
        new Promise<CompleteResult>((_resolve, reject) =>
          o.signal!.addEventListener('abort', () => {
            aborted.push(true);
            reject(new EngineError('request', 'the request was aborted'));
          }),
        );
      const r = await post('/completions', { prompt: 'p' }, s);
      expect(r.status).toBe(504);
      expect(r.json.error.message).toMatch(/longer than 100 ms/);
      expect(aborted).toHaveLength(1);
    } finally {
      await s.close();
    }
    const patient = new ScriptedEngine(undefined);
    const s2 = await startServe({ engine: patient, alias: 'p' });
    try {
      let signal: AbortSignal | undefined;
      patient.script = (_req, o) => {
        signal = o.signal;
        return new Promise<CompleteResult>((_resolve, reject) =>
          o.signal!.addEventListener('abort', () => reject(new EngineError('request', 'aborted'))),
        );
      };
      const client = new AbortController();
      const gone = fetch(`${s2.url}/completions`, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ prompt: 'p' }),
        signal: client.signal,
      }).catch(() => 'closed');
      await expect.poll(() => signal !== undefined).toBe(true);
      client.abort();
      expect(await gone).toBe('closed');
      await expect.poll(() => signal!.aborted).toBe(true);
    } finally {
      await s2.close();
    }
  });
});

/** A schema nesting `n` arrays. */
function nest(n: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < n; i++) s = { type: 'array', items: s };
  return s;
}

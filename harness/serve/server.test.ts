// toolgauge serve's HTTP surface over a scripted engine (the Engine interface, in process): what reaches the engine
// for each request field, the answers' shapes, the 4xx for what is not implemented, the bounded queue and the
// engine's crash. The real engine (llama.cpp) is exercised in serve.engine.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EngineError,
  type CompleteChunk,
  type CompleteRequest,
  type CompleteResult,
  type Engine,
  type EngineInfo,
} from '../engine/types.ts';
import { referenceTemplate } from '../templates/index.ts';
import { startServe, type ServeHandle } from './server.ts';

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
  async complete(
    req: CompleteRequest,
    opts: { onChunk?: (c: CompleteChunk) => void; signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    this.calls.push(req);
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

async function post(path: string, body: unknown, s = server): Promise<{ status: number; json: any; headers: Headers }> {
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
    const t = await fetch(`${base}/tokenize`, { method: 'POST', body: JSON.stringify({ content: 'hi' }) });
    expect(await t.json()).toEqual({ tokens: [104, 105] });
    const d = await fetch(`${base}/detokenize`, { method: 'POST', body: JSON.stringify({ tokens: [104, 105] }) });
    expect(await d.json()).toEqual({ content: 'hi' });
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bfclSuite } from '../../harness/bfcl/suite.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { buildTestModel } from '../../harness/engine/gguf/test-model.ts';
import { EngineHost } from '../../harness/engine/host.ts';
import { findNodeLlamaCpp } from '../../harness/engine/resolve.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { AnySuite } from '../../harness/kit/types.ts';
import { loadMazeTasks } from '../../harness/maze/task.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { parseToolCalls } from '../../harness/parse/index.ts';
import { engineScorer } from '../../harness/probe/run/pa-tool-local.ts';
import { localEngine } from '../../harness/probe/run/quant-damage-run.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { SummarySchema, type Summary } from '../../harness/report/summary.ts';
import { startServe, type ServeHandle } from '../../harness/serve/server.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { readJson, spawnToolgauge, tempDir, toolgauge } from '../helpers/cli.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

// `gguf:` models and `toolgauge serve` on a real engine (llama.cpp through node-llama-cpp) and a test model the
// project writes itself (random weights: its outputs are noise, only the plumbing is under test). One server, started
// once, answers the HTTP checks and the four suites (run in process against it with --base-url); one CLI run of the
// describeEval example starts an engine of its own through `--model gguf:FILE`, proving the run's wiring.

const SKIP = findNodeLlamaCpp().found ? undefined : 'node-llama-cpp 3.21.1 is not installed (npm run setup:engine)';

let file: string;
let sha: string;
let host: EngineHost;
let server: ServeHandle;

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

const UNIT = {
  type: 'function',
  function: {
    name: 'set_unit',
    parameters: { type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'] } }, required: ['unit'] },
  },
};
const MODE = {
  type: 'function',
  function: {
    name: 'set_mode',
    parameters: { type: 'object', properties: { mode: { type: 'string', enum: ['on', 'off'] } }, required: ['mode'] },
  },
};
const USER = [{ role: 'user', content: 'Switch to celsius.' }];

/** The header every gguf: run writes: the engine, this file, a test model's notice. */
function expectEngineHeader(out: string): Summary {
  const s = SummarySchema.parse(readJson(join(out, 'summary.json')));
  expect(s.header.engine).toMatchObject({
    engine: expect.stringMatching(/^llama\.cpp via node-llama-cpp 3\.21\.1/),
    sha256: sha,
    tensor_type: 'F32',
    test_model: true,
  });
  expect(s.header.engine!.chat_template_sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(s.header.simulated).toBe(false);
  expect(s.notice).toMatch(/^TEST MODEL RUN/);
  const report = readFileSync(join(out, 'report.md'), 'utf8');
  expect(report).toContain('TEST MODEL RUN');
  expect(report).toMatch(/\| engine \| llama\.cpp via node-llama-cpp 3\.21\.1.*TOOLGAUGE TEST MODEL/);
  const run = readJson<{ suites: Record<string, { fingerprint: Record<string, unknown> }> }>(join(out, 'run.json'));
  const fp = Object.values(run.suites)[0]!.fingerprint;
  expect(fp).toMatchObject({ endpoint: 'local engine', 'engine.file_sha256': sha, 'engine.tensor_type': 'F32' });
  return s;
}

describe.skipIf(SKIP)(`gguf: models and toolgauge serve on a test model${SKIP ? ` — SKIPPED: ${SKIP}` : ''}`, () => {
  beforeAll(async () => {
    const dir = tempDir('gguf');
    file = join(dir, 'hermes-f32.gguf');
    const bytes = buildTestModel({ type: 'F32', template: 'hermes', seed: 1 });
    writeFileSync(file, bytes);
    sha = createHash('sha256').update(bytes).digest('hex');
    host = new EngineHost({ modelPath: file, threads: 1, sequences: 2, contextSize: 8192 });
    server = await startServe({ engine: host, alias: `gguf:${file}`, parallel: 2 });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('the HTTP surface on llama.cpp', () => {
    it('tool_choice required: llama.cpp compiles the family call grammar and the reply parses into tool_calls', async () => {
      const r = await post('/chat/completions', {
        messages: USER,
        tools: [UNIT],
        tool_choice: 'required',
        max_tokens: 200,
        temperature: 0,
      });
      expect(r.status).toBe(200);
      const call = r.json.choices[0].message.tool_calls?.[0];
      expect(call?.function.name).toBe('set_unit');
      expect(['c', 'f']).toContain(JSON.parse(call.function.arguments).unit);
      expect(r.json.usage.prompt_tokens).toBeGreaterThan(20);
      expect(r.json.usage.completion_tokens).toBeGreaterThan(5);
    });

    it('a named tool_choice forces that tool; free decoding of the same request writes no call', async () => {
      // parallel_tool_calls false: one call, closed (greedy random weights would otherwise go on writing calls).
      const named = await post('/chat/completions', {
        messages: USER,
        tools: [UNIT, MODE],
        tool_choice: { type: 'function', function: { name: 'set_mode' } },
        parallel_tool_calls: false,
        max_tokens: 300,
        temperature: 0,
      });
      expect(named.json.choices[0].finish_reason).toBe('tool_calls');
      expect(named.json.choices[0].message.tool_calls?.[0]?.function.name).toBe('set_mode');
      const free = await post('/chat/completions', {
        messages: USER,
        tools: [UNIT, MODE],
        max_tokens: 24,
        temperature: 0,
      });
      expect(free.status).toBe(200);
      expect(free.json.choices[0].message.tool_calls).toBeUndefined();
    });

    it('json_schema on /v1/completions: the output is a JSON value of the schema', async () => {
      const r = await post('/completions', {
        prompt: 'Answer: ',
        json_schema: {
          type: 'object',
          properties: { ok: { type: 'boolean' }, n: { type: 'string', enum: ['one', 'two'] } },
          required: ['ok', 'n'],
          additionalProperties: false,
        },
        max_tokens: 200,
        seed: 4,
        temperature: 1,
      });
      const value = JSON.parse(r.json.choices[0].text);
      expect(typeof value.ok).toBe('boolean');
      expect(['one', 'two']).toContain(value.n);
    });

    it('a lazy grammar: free text up to the trigger, the grammar from it on', async () => {
      const base = server.url.replace(/\/v1$/, '');
      const tokens = (await (
        await fetch(`${base}/tokenize`, {
          method: 'POST',
          headers: JSON_TYPE,
          body: JSON.stringify({ content: '<tool_call>' }),
        })
      ).json()) as { tokens: number[] };
      expect(tokens.tokens).toHaveLength(1);
      // The trigger made likely (not forced) with logit_bias: some free text may come first.
      const grammar = 'root ::= "<tool_call>" "{\\"name\\": \\"ping\\", \\"arguments\\": {}}" "</tool_call>"';
      const r = await post('/completions', {
        prompt: '<|im_start|>assistant\n',
        grammar,
        grammar_lazy: true,
        grammar_triggers: [{ type: 1, value: '<tool_call>' }],
        logit_bias: { [tokens.tokens[0]!]: 8 },
        max_tokens: 100,
        seed: 1,
        temperature: 1,
      });
      const text: string = r.json.choices[0].text;
      const at = text.indexOf('<tool_call>');
      expect(at).toBeGreaterThanOrEqual(0);
      expect(text.slice(at)).toBe('<tool_call>{"name": "ping", "arguments": {}}</tool_call>');
      expect(parseToolCalls(text, { tier: 'strict', format: 'hermes' }).calls).toEqual([
        { name: 'ping', arguments: {} },
      ]);
    });

    it('logprobs, seeds and a bad grammar', async () => {
      const ask = (seed: number) =>
        post('/chat/completions', {
          messages: USER,
          max_tokens: 8,
          temperature: 1,
          seed,
          logprobs: true,
          top_logprobs: 3,
        });
      const [a, b] = [await ask(5), await ask(5)];
      expect(a.json.choices[0].message.content).toBe(b.json.choices[0].message.content);
      const lp = a.json.choices[0].logprobs.content;
      expect(lp).toHaveLength(a.json.usage.completion_tokens);
      expect(lp[0].top_logprobs).toHaveLength(3);
      const bad = await post('/completions', { prompt: 'x', grammar: 'root ::= nothing-defined', max_tokens: 4 });
      expect(bad.status).toBe(400);
      expect(bad.json.error.message).toMatch(/grammar/);
    });

    it("PA-Tool's local selection reads the served engine's token probabilities: a whole answer, summed over its tokens", async () => {
      // the server holds the file with these settings: the scorer asks it (/toolgauge/distributions), starting nothing
      const source = { settings: { threads: 1, contextSize: 8192 }, served: [server.url] };
      expect((await localEngine(file, source)).close).toBeUndefined();
      const scorer = engineScorer(file, '2026-01-15', source);
      const prompt = 'What would you call this function? Answer with the function name only.';
      const [a, ab] = [await scorer.logprob(prompt, 'get'), await scorer.logprob(prompt, 'get_weather')];
      expect(Number.isFinite(a) && Number.isFinite(ab)).toBe(true);
      expect(a).toBeLessThan(0);
      // the same answer scores the same; a longer answer is another event, not a prefix of it
      expect(await scorer.logprob(prompt, 'get')).toBe(a);
      expect(ab).not.toBe(a);
    });

    it("the engine's crash mid-request is a 500 naming it; the next request runs on a restarted engine", async () => {
      const base = server.url.replace(/\/v1$/, '');
      const bang = (await (
        await fetch(`${base}/tokenize`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ content: '!' }) })
      ).json()) as { tokens: number[] };
      // A grammar whose only end is forbidden: the request runs to max_tokens (seconds), so the crash finds it running.
      const long = post('/completions', {
        prompt: 'x',
        grammar: 'root ::= [a-z]+ "!"',
        logit_bias: { [bang.tokens[0]!]: -100 },
        max_tokens: 8000,
        temperature: 1,
      });
      await new Promise((r) => setTimeout(r, 200));
      await host.crashForTest().catch(() => undefined);
      const r = await long;
      expect(r.status).toBe(500);
      expect(r.json.error.type).toBe('engine_crash');
      expect(r.json.error.message).toMatch(/engine crashed/);
      const again = await post('/completions', { prompt: 'x', max_tokens: 4 });
      expect(again.status).toBe(200);
    });
  });

  describe('every suite completes through gguf: against the server, with an engine-naming header', () => {
    const env = (out: string, extra: Record<string, string>) => ({
      TOOLGAUGE_MODEL: `gguf:${file}`,
      OPENAI_BASE_URL: server.url,
      TOOLGAUGE_MAX_TOKENS: '12',
      TOOLGAUGE_OUT_DIR: out,
      TOOLGAUGE_CONCURRENCY: '2',
      ...extra,
    });
    const run = async (def: AnySuite, extra: Record<string, string>, n: number) => {
      const out = tempDir(`gguf-${def.name}`);
      const r = await runSuite(def, env(out, extra));
      expect(r.metas).toHaveLength(n);
      const s = expectEngineHeader(out);
      expect(s.errors, JSON.stringify(s.errors)).toEqual([]);
    };

    it('ToolHop, 5 rows of the bundled sample', () =>
      run(
        toolhopSuite,
        { TOOLHOP_DATA: 'bundled', TOOLHOP_LIMIT: '5', TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' },
        5,
      ));

    it('Maze, 3 tasks in one mode', () =>
      run(
        mazeSuite,
        {
          TOOLGAUGE_MAZE_ONLY: loadMazeTasks(undefined, ['c1'])
            .slice(0, 3)
            .map((t) => t.id)
            .join(','),
          TOOLGAUGE_MAZE_MODES: 'P1',
        },
        3,
      ));

    it('Probe, 20 cases', () => {
      const ids = readFileSync(fromRoot('cases', 'probe', 'cases.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .slice(0, 20)
        .map((l) => (JSON.parse(l) as { id: string }).id);
      return run(probeSuite, { TOOLGAUGE_PROBE_ONLY: ids.join(',') }, 20);
    });

    it('BFCL, every fixture category (single and multi-turn)', () =>
      run(
        bfclSuite,
        {
          TOOLGAUGE_BFCL_DATA: fromRoot('fixtures', 'bfcl', 'data'),
          TOOLGAUGE_BFCL_SOURCE: fromRoot('fixtures', 'bfcl', 'classes'),
          TOOLGAUGE_BFCL_CATEGORY:
            'simple_python,simple_java,parallel,irrelevance,live_relevance,multi_turn_base,multi_turn_miss_param',
        },
        9,
      ));
  });

  it('toolgauge serve --port 0: prints its URL, answers, and stops cleanly on Ctrl-C', async () => {
    const p = spawnToolgauge(['serve', '--gguf', file, '--port', '0', '--ctx', '512']);
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      p.stdout!.on('data', (d: Buffer) => {
        out += String(d);
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
        if (m) resolve(m[1]!);
      });
      void p.then((r) => reject(new Error(`serve ended: ${r.stderr}`)));
    });
    expect(out).toContain('TOOLGAUGE TEST MODEL');
    const models = (await (await fetch(`${url}/models`)).json()) as { data: Array<{ meta: { sha256: string } }> };
    expect(models.data[0]!.meta.sha256).toBe(sha);
    process.kill(p.pid!, 'SIGINT');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('the describeEval example through the CLI with --model gguf:FILE: the run starts its own engine and stops it', async () => {
    const dir = tempDir('gguf-eval');
    const src = readFileSync(fromRoot('examples', 'arith', 'arith.eval.ts'), 'utf8').replace(
      "from 'toolgauge'",
      `from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))}`,
    );
    writeFileSync(join(dir, 'arith.eval.ts'), src);
    const out = join(dir, 'results');
    // From the repository's root, whose module cache holds the harness modules the eval file imports (not the point
    // here: a run from elsewhere transforms them all again, about a CPU-second).
    const r = await toolgauge(
      ['eval', join(dir, 'arith.eval.ts'), '--model', `gguf:${file}`, '--max-tokens', '12', '--out-dir', out],
      {},
      undefined,
      fromRoot(),
    );
    // Random weights answer nothing right: the instances fail their threshold; with no gate the run still exits 0.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('[TEST MODEL — random weights, not a model result]');
    const s = expectEngineHeader(out);
    expect(s.errors).toEqual([]);
    expect(s.counts).toMatchObject({ instances: 3 });
  });
});

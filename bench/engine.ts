// `npm run bench:engine`: what `toolgauge serve` costs on top of the engine. The same requests go to the engine host
// directly (EngineHost.complete: node-llama-cpp in its child process) and through the server over HTTP (the same
// engine, so the model, the child and its prefix cache are shared), with --parallel 1 and 2, alternating sides:
// tokens/s of each, the harness's overhead per request and per generated token, and the peak RSS of the process tree
// (this process, the server, the engine's child). Chat requests (template rendering, tool-call parsing) are measured
// against the engine given the rendered prompt. A scripted engine that answers at once gives the server's own cost
// per request with no model at all.
//
//   --gguf FILE     a model to measure (default: a test model written here: llama, 2 layers, width 64, F32)
//   --requests N    requests per side and round (default 16); --tokens T generated per request (default 64)
//   --rounds R      alternating rounds (default 3); --threads N (default 1); --server-only: the scripted engine only
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { fromRoot } from '../harness/core/paths.ts';
import { buildTestModel } from '../harness/engine/gguf/test-model.ts';
import { ggufFacts } from '../harness/engine/gguf/reader.ts';
import { EngineHost } from '../harness/engine/host.ts';
import { findNodeLlamaCpp } from '../harness/engine/resolve.ts';
import type { CompleteRequest, CompleteResult, Engine, EngineInfo } from '../harness/engine/types.ts';
import { chatPrompt } from '../harness/serve/chat.ts';
import { ChatBody } from '../harness/serve/request.ts';
import { startServe, type ServeHandle } from '../harness/serve/server.ts';
import { detectFamily } from '../harness/probe/templates/index.ts';
import { quantiles, round, treeRssMb } from './lib.ts';

const { values } = parseArgs({ options: { gguf: { type: 'string' }, requests: { type: 'string', default: '16' }, tokens: { type: 'string', default: '64' }, rounds: { type: 'string', default: '3' }, threads: { type: 'string', default: '1' }, 'server-only': { type: 'boolean' } } });
const N = Number(values.requests);
const T = Number(values.tokens);
const ROUNDS = Number(values.rounds);
const THREADS = Number(values.threads);

if (!findNodeLlamaCpp().found) {
  process.stderr.write('bench:engine: node-llama-cpp 3.21.1 is not installed (npm run setup:engine)\n');
  process.exit(2);
}

let peakMb = 0;
const sampler = setInterval(() => (peakMb = Math.max(peakMb, treeRssMb(process.pid))), 50);

const file = values.gguf ?? join(mkdtempSync(join(tmpdir(), 'tg-bench-engine-')), 'test-f32.gguf');
if (!values.gguf) writeFileSync(file, buildTestModel({ type: 'F32', template: 'hermes', seed: 1 }));

const TOOLS = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const chatBody = (i: number) => ChatBody.parse({ messages: [{ role: 'user', content: `Request ${i}: what is the weather in Paris?` }], tools: TOOLS, max_tokens: T, temperature: 0, seed: i });
const completionPrompt = (i: number) => `<|im_start|>user\nRequest ${i}: what is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n`;

/** Run `n` jobs with `p` in flight; the wall time in ms and the results. */
async function pool<R>(n: number, p: number, job: (i: number) => Promise<R>): Promise<{ ms: number; results: R[] }> {
  const results: R[] = new Array(n);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: p }, async () => {
    for (let i = next++; i < n; i = next++) results[i] = await job(i);
  }));
  return { ms: performance.now() - t0, results };
}

async function post(url: string, body: unknown): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

interface Side {
  ms: number[];
  tokens: number[];
}

async function measure(parallel: number): Promise<Record<string, unknown>> {
  const host = new EngineHost({ modelPath: file, threads: THREADS, sequences: parallel, contextSize: 2048 });
  const server = await startServe({ engine: host, alias: 'bench', parallel });
  const info = await host.info();
  const template = { source: info.chatTemplate!, family: detectFamily(info.chatTemplate!), bosToken: info.bosToken, eosToken: info.eosToken };
  const sides: Record<'direct' | 'serve' | 'direct_chat' | 'serve_chat', Side> = { direct: { ms: [], tokens: [] }, serve: { ms: [], tokens: [] }, direct_chat: { ms: [], tokens: [] }, serve_chat: { ms: [], tokens: [] } };
  const base = (round_: number, i: number) => round_ * 10_000 + i;
  const req = (i: number): CompleteRequest => ({ prompt: completionPrompt(i), maxTokens: T, temperature: 0, seed: i, topP: 0.95 });
  // Warm-up: the child's start and model load, the server's first request.
  await host.complete(req(-1));
  await post(`${server.url}/completions`, { prompt: completionPrompt(-2), max_tokens: T, temperature: 0 });
  for (let r = 0; r < ROUNDS; r++) {
    const runs: Array<[keyof typeof sides, () => Promise<{ ms: number; results: number[] }>]> = [
      ['direct', () => pool(N, parallel, async (i) => (await host.complete(req(base(r, i)))).usage.completionTokens)],
      ['serve', () => pool(N, parallel, async (i) => (await post(`${server.url}/completions`, { prompt: completionPrompt(base(r, i) + 5000), max_tokens: T, temperature: 0, seed: base(r, i), top_p: 0.95 })).usage.completion_tokens)],
      ['direct_chat', () => pool(N, parallel, async (i) => (await host.complete({ ...req(0), prompt: chatPrompt(template, chatBody(base(r, i))) })).usage.completionTokens)],
      ['serve_chat', () => pool(N, parallel, async (i) => (await post(`${server.url}/chat/completions`, { ...chatBody(base(r, i) + 5000), temperature: 0 })).usage.completion_tokens)],
    ];
    // Alternate which side goes first from round to round.
    for (const [name, run] of r % 2 ? runs.reverse() : runs) {
      const { ms, results } = await run();
      sides[name].ms.push(ms);
      sides[name].tokens.push(results.reduce((a, b) => a + b, 0));
    }
  }
  await server.close();
  const med = (xs: number[]) => quantiles(xs).median;
  const summary = (s: Side) => ({ wall_ms: round(med(s.ms), 1), tokens: med(s.tokens), tokens_per_s: round(med(s.tokens.map((t, i) => (t / s.ms[i]!) * 1000)), 1) });
  const overhead = (a: Side, b: Side) => {
    // Per round: the server's extra time over the engine's, per request and per token; then the median.
    const perReq = a.ms.map((ms, i) => (b.ms[i]! - ms) / N);
    const perTok = a.ms.map((ms, i) => (b.ms[i]! - ms) / Math.max(1, b.tokens[i]!));
    const share = a.ms.map((ms, i) => (b.ms[i]! - ms) / ms);
    return { per_request_ms: round(med(perReq), 3), per_token_ms: round(med(perTok), 4), share_of_engine_time: round(med(share), 4) };
  };
  return {
    parallel,
    completions: { direct: summary(sides.direct), serve: summary(sides.serve), overhead: overhead(sides.direct, sides.serve) },
    chat: { direct: summary(sides.direct_chat), serve: summary(sides.serve_chat), overhead: overhead(sides.direct_chat, sides.serve_chat) },
  };
}

/** The server's own cost: an engine that answers at once, many requests over keep-alive HTTP. */
async function serverOnly(): Promise<Record<string, unknown>> {
  const info: EngineInfo = { engine: 'scripted', file: 'none', sha256: '0', bytes: 0, architecture: 'none', tensorType: 'F32', vocabSize: 300, contextSize: 2048, sequences: 1, threads: 1, testModel: true, loadMs: 0, chatTemplate: (await ggufFacts(file)).chatTemplate ?? '' };
  const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
  const engine: Engine = {
    info: async () => info,
    tokenize: async (t) => [...t].map((c) => c.charCodeAt(0)),
    detokenize: async (ts) => String.fromCharCode(...ts),
    complete: async (): Promise<CompleteResult> => ({ text, tokens: [1], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } }),
    nextTokenDistributions: async () => {
      throw new Error('unused');
    },
    close: async () => undefined,
  };
  const server: ServeHandle = await startServe({ engine, alias: 'scripted', parallel: 4, queue: 64 });
  const n = 2000;
  const out: Record<string, number> = {};
  for (const [name, path, body] of [
    ['completions', '/completions', { prompt: 'x', max_tokens: 8 }],
    ['chat_with_tools', '/chat/completions', { ...chatBody(1), temperature: 0 }],
  ] as const) {
    for (const inFlight of [1, 4]) {
      // The client runs in its own process (keep-alive node:http): this process's CPU time is the server's.
      const cpu0 = process.cpuUsage();
      const wallMs = await loadClient(`${server.url}${path}`, body, n, inFlight);
      const cpu = process.cpuUsage(cpu0);
      out[`${name}_c${inFlight}_server_cpu_ms_per_request`] = round((cpu.user + cpu.system) / 1000 / n, 3);
      out[`${name}_c${inFlight}_wall_ms_per_request`] = round(wallMs / n, 3);
    }
  }
  await server.close();
  return { requests: n, ...out, note: 'server CPU: this process only (the HTTP client is another process); wall: as the client sees it, divided by the requests' };
}

/** `n` POSTs with `inFlight` at once from a child process over keep-alive; its wall time in ms. */
async function loadClient(url: string, body: unknown, n: number, inFlight: number): Promise<number> {
  const script = `
    import http from 'node:http';
    const [url, body, n, c] = [process.argv[1], process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
    const agent = new http.Agent({ keepAlive: true, maxSockets: c });
    const one = () => new Promise((resolve, reject) => {
      const r = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume(); res.on('end', () => res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode))));
      });
      r.on('error', reject); r.end(body);
    });
    for (let i = 0; i < 100; i++) await one();
    let next = 0; const t0 = performance.now();
    await Promise.all(Array.from({ length: c }, async () => { while (next++ < n) await one(); }));
    process.stdout.write(String(performance.now() - t0)); agent.destroy();`;
  const { execa } = await import('execa');
  const r = await execa('node', ['--input-type=module', '-e', script, url, JSON.stringify(body), String(n), String(inFlight)]);
  return Number(r.stdout);
}

const t0 = Date.now();
const runs = values['server-only'] ? [] : [await measure(1), await measure(2)];
// The RSS sampler reads /proc every 50 ms: it stops before the server's own CPU is measured.
clearInterval(sampler);
const results = { model: file, requests_per_side: N, tokens_per_request: T, rounds: ROUNDS, threads: THREADS, runs, peak_tree_rss_mb: round(peakMb, 1), server_only: await serverOnly(), wall_s: round((Date.now() - t0) / 1000, 1) };
const out = fromRoot('results', 'bench', 'engine.json');
writeFileAtomic(out, JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + `\nwritten to ${out}\n`);

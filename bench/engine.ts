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
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { detectFamily } from '../harness/templates/index.ts';
import { quantiles, round, treeRssMb } from './lib.ts';

const { values } = parseArgs({
  options: {
    gguf: { type: 'string' },
    requests: { type: 'string', default: '16' },
    tokens: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1' },
    'server-only': { type: 'boolean' },
  },
});
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

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const chatBody = (i: number) =>
  ChatBody.parse({
    messages: [{ role: 'user', content: `Request ${i}: what is the weather in Paris?` }],
    tools: TOOLS,
    max_tokens: T,
    temperature: 0,
    seed: i,
  });
const completionPrompt = (i: number) =>
  `<|im_start|>user\nRequest ${i}: what is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n`;

/** Run `n` jobs with `p` in flight; the wall time in ms and the results. */
async function pool<R>(n: number, p: number, job: (i: number) => Promise<R>): Promise<{ ms: number; results: R[] }> {
  const results: R[] = new Array(n);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: p }, async () => {
      for (let i = next++; i < n; i = next++) results[i] = await job(i);
    }),
  );
  return { ms: performance.now() - t0, results };
}

/** CPU ms of a process so far, from /proc (user + system). */
function cpuMsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100;
}

/** The engine's child process: this process's child running the engine's child script. */
function engineChildPid(): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      if (Number(/PPid:\s+(\d+)/.exec(status)?.[1]) !== process.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('child.mjs')) return Number(name);
    } catch {
      // gone
    }
  }
  throw new Error('bench:engine: the engine child process was not found');
}

const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Sample {
  wallMs: number;
  tokens: number;
  selfCpuMs: number;
  engineCpuMs: number;
}

/** One side of one round: wall time, tokens, this process's CPU and the engine child's CPU. */
async function sample(child: number, run: () => Promise<{ tokens: number; ms?: number }>): Promise<Sample> {
  const [s0, e0, t0] = [selfCpuMs(), cpuMsOf(child), performance.now()];
  const r = await run();
  // The client's own wall time where it reports one (the message to and from it excluded).
  return {
    wallMs: r.ms ?? performance.now() - t0,
    tokens: r.tokens,
    selfCpuMs: selfCpuMs() - s0,
    engineCpuMs: cpuMsOf(child) - e0,
  };
}

async function measure(parallel: number): Promise<Record<string, unknown>> {
  const host = new EngineHost({ modelPath: file, threads: THREADS, sequences: parallel, contextSize: 2048 });
  const server = await startServe({ engine: host, alias: 'bench', parallel });
  const info = await host.info();
  const child = engineChildPid();
  const template = {
    source: info.chatTemplate!,
    family: detectFamily(info.chatTemplate!),
    bosToken: info.bosToken,
    eosToken: info.eosToken,
  };
  // Every request of a side is the same (greedy: the same tokens), so both sides generate exactly the same work.
  const completion = { prompt: completionPrompt(0), max_tokens: T, temperature: 0, seed: 0, top_p: 0.95 };
  const direct: CompleteRequest = { prompt: completion.prompt, maxTokens: T, temperature: 0, seed: 0, topP: 0.95 };
  const chat = { ...chatBody(0), temperature: 0, top_p: 0.95 };
  const sides = {
    direct: () =>
      pool(N, parallel, async () => (await host.complete(direct)).usage.completionTokens).then((r) => ({
        tokens: sum(r.results),
      })),
    serve: () => loadClient(`${server.url}/completions`, completion, N, parallel, 1),
    // The engine given the rendered prompt, against the server rendering the template and parsing the reply.
    direct_chat: () =>
      pool(
        N,
        parallel,
        async () =>
          (await host.complete({ ...direct, prompt: chatPrompt(template, ChatBody.parse(chat)) })).usage
            .completionTokens,
      ).then((r) => ({ tokens: sum(r.results) })),
    serve_chat: () => loadClient(`${server.url}/chat/completions`, chat, N, parallel, 1),
  };
  const samples: Record<keyof typeof sides, Sample[]> = { direct: [], serve: [], direct_chat: [], serve_chat: [] };
  await sides.direct();
  await sides.serve_chat();
  for (let r = 0; r < ROUNDS; r++) {
    const names = Object.keys(sides) as Array<keyof typeof sides>;
    // Alternate which side goes first from round to round.
    for (const name of r % 2 ? names.reverse() : names) samples[name].push(await sample(child, sides[name]));
  }
  await server.close();
  const med = (xs: number[]) => quantiles(xs).median;
  const summary = (s: Sample[]) => ({
    wall_ms: round(med(s.map((x) => x.wallMs)), 1),
    tokens: med(s.map((x) => x.tokens)),
    tokens_per_s: round(med(s.map((x) => (x.tokens / x.wallMs) * 1000)), 1),
    engine_cpu_ms_per_request: round(med(s.map((x) => x.engineCpuMs / N)), 3),
    harness_process_cpu_ms_per_request: round(med(s.map((x) => x.selfCpuMs / N)), 3),
  });
  const overhead = (a: Sample[], b: Sample[]) => {
    // Per round: the CPU the server adds in this process (the client is another process), per request and per
    // generated token, and as a share of the engine's own CPU for the same requests; then the median.
    const extra = a.map((x, i) => b[i]!.selfCpuMs - x.selfCpuMs);
    return {
      cpu_ms_per_request: round(med(extra.map((e) => e / N)), 3),
      cpu_ms_per_token: round(med(extra.map((e, i) => e / Math.max(1, b[i]!.tokens))), 5),
      share_of_engine_cpu: round(med(extra.map((e, i) => e / b[i]!.engineCpuMs)), 4),
      wall_ms_per_request: round(med(a.map((x, i) => (b[i]!.wallMs - x.wallMs) / N)), 3),
    };
  };
  return {
    parallel,
    completions: {
      direct: summary(samples.direct),
      serve: summary(samples.serve),
      overhead: overhead(samples.direct, samples.serve),
    },
    chat: {
      direct: summary(samples.direct_chat),
      serve: summary(samples.serve_chat),
      overhead: overhead(samples.direct_chat, samples.serve_chat),
    },
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The server's own cost: an engine that answers at once, many requests over keep-alive HTTP. */
async function serverOnly(): Promise<Record<string, unknown>> {
  const info: EngineInfo = {
    engine: 'scripted',
    file: 'none',
    sha256: '0',
    bytes: 0,
    architecture: 'none',
    tensorType: 'F32',
    vocabSize: 300,
    contextSize: 2048,
    sequences: 1,
    threads: 1,
    testModel: true,
    loadMs: 0,
    chatTemplate: (await ggufFacts(file)).chatTemplate ?? '',
  };
  const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
  const engine: Engine = {
    info: async () => info,
    tokenize: async (t) => [...t].map((c) => c.charCodeAt(0)),
    detokenize: async (ts) => String.fromCharCode(...ts),
    complete: async (): Promise<CompleteResult> => ({
      text,
      tokens: [1],
      finishReason: 'stop',
      usage: { promptTokens: 1, completionTokens: 1 },
    }),
    nextTokenDistributions: async () => {
      throw new Error('unused');
    },
    checkGrammar: async () => undefined,
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
      const { ms: wallMs } = await loadClient(`${server.url}${path}`, body, n, inFlight);
      const cpu = process.cpuUsage(cpu0);
      out[`${name}_c${inFlight}_server_cpu_ms_per_request`] = round((cpu.user + cpu.system) / 1000 / n, 3);
      out[`${name}_c${inFlight}_wall_ms_per_request`] = round(wallMs / n, 3);
    }
  }
  await server.close();
  return {
    requests: n,
    ...out,
    note: 'server CPU: this process only (the HTTP client is another process); wall: as the client sees it, divided by the requests',
  };
}

/**
 * The HTTP client: one child process for the whole bench (its start-up is not charged to any batch), running
 * `n` POSTs with `inFlight` at once over keep-alive when asked, and answering with its own wall time and the tokens.
 */
const CLIENT = `
  import http from 'node:http';
  process.on('message', async ({ url, body, n, c, warm }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: c });
    let tokens = 0;
    const one = () => new Promise((resolve, reject) => {
      const r = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks = []; res.on('data', (d) => chunks.push(d));
        res.on('end', () => { if (res.statusCode !== 200) return reject(new Error(String(res.statusCode) + Buffer.concat(chunks))); tokens += JSON.parse(Buffer.concat(chunks)).usage?.completion_tokens ?? 0; resolve(); });
      });
      r.on('error', reject); r.end(body);
    });
    try {
      for (let i = 0; i < warm; i++) await one();
      tokens = 0; let next = 0; const t0 = performance.now();
      await Promise.all(Array.from({ length: c }, async () => { while (next++ < n) await one(); }));
      process.send({ ms: performance.now() - t0, tokens });
    } catch (err) { process.send({ error: String(err) }); }
    agent.destroy();
  });`;
let client: ChildProcess | undefined;

async function loadClient(
  url: string,
  body: unknown,
  n: number,
  inFlight: number,
  warmup = 100,
): Promise<{ ms: number; tokens: number }> {
  if (!client) {
    const script = join(mkdtempSync(join(tmpdir(), 'tg-bench-client-')), 'client.mjs');
    writeFileSync(script, CLIENT);
    client = fork(script, [], { stdio: 'inherit' });
  }
  const c = client;
  return new Promise((resolve, reject) => {
    c.once('message', (m: { ms: number; tokens: number; error?: string }) =>
      m.error ? reject(new Error(m.error)) : resolve(m),
    );
    c.send({ url, body: JSON.stringify(body), n, c: inFlight, warm: warmup });
  });
}

const t0 = Date.now();
const runs: Array<Record<string, unknown>> = [];
for (const parallel of values['server-only'] ? [] : [1, 2]) {
  runs.push(await measure(parallel));
  process.stderr.write(`parallel ${parallel}: ${JSON.stringify(runs.at(-1))}\n`);
}
// The RSS sampler reads /proc every 50 ms: it stops before the server's own CPU is measured.
clearInterval(sampler);
const results = {
  model: file,
  requests_per_side: N,
  tokens_per_request: T,
  rounds: ROUNDS,
  threads: THREADS,
  runs,
  peak_tree_rss_mb: round(peakMb, 1),
  server_only: await serverOnly(),
  wall_s: round((Date.now() - t0) / 1000, 1),
};
const out = fromRoot('results', 'bench', 'engine.json');
writeFileAtomic(out, JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + `\nwritten to ${out}\n`);
client?.kill();

// `npm run bench:engine-overhead`: the local engine's overhead against node-llama-cpp called directly. On one test
// GGUF (llama, 2 layers, width 64, F32, random weights; --width and --layers build a larger one) and the same
// settings everywhere — greedy, seed 0, the same prompts, every request generating exactly --tokens tokens (the
// end-of-turn tokens banned), one thread — the sides in alternating rounds:
//
//   direct    node-llama-cpp in this process: a context sequence's evaluate(), its history past the shared prefix erased
//   serve     `toolgauge serve` (bin/toolgauge.mjs, its own process) over keep-alive HTTP, POST /v1/completions
//   host      the engine's child process called from this process (EngineHost.complete, no HTTP): where between the
//             two the difference lies
//   bare-front the least an HTTP front over the engine's child does (bench/bare-front.ts, its own process started with
//             toolgauge.mjs's flags): node:http, JSON.parse, EngineHost.complete, JSON.stringify. Serve against it is
//             what toolgauge serve's own code costs; it against host is what the HTTP exchange and the extra process do
//   run-path  what a `--model gguf:` run does: serveGguf in the run's process, requests through harness/model's
//             ModelClient (the OpenAI SDK, its retry policy and size cap)
//
// Tokens/s is the generated tokens over the wall time of --requests requests one after another. Time to first token
// is the latency of a max_tokens 1 request (the server does not stream, so a 1-token answer is its first token), on
// every side the whole request: tokenizing, evaluating, sampling, the text of the token. The sides take turns request
// by request, and each side's time is also taken as a percentage of direct's in the same turn (the load of the
// moment cancels; the median over every turn is recorded as *_ttft_vs_direct_pct). For the two sides in a process of
// their own (serve, bare-front) the CPU that process spends on each of those requests is taken too (all its
// threads, its engine child not counted; from /proc's schedstat, nanoseconds): what the front itself costs, a figure
// the machine's load moves far less than wall time; and every side's whole CPU per one-token request (every
// process working on it, this one included), against direct's in the same turn. Every side evaluates the same
// tokens: the engine's child keeps the prefix a prompt shares with what its sequence holds (the prompts share their
// first ~18 of ~260 tokens), so the direct side keeps it the same way rather than clearing its sequence's history.
// Then throughput of `toolgauge serve --parallel 1/2/4` with 1/2/4 clients in flight. Medians over the rounds; the
// load average at start and end is recorded.
//
//   --tokens T (default 256)  --requests N per side and round (default 8)  --rounds R (default 5)
//   --ttft N 1-token requests per side and round (default 8)  --threads N (default 1)  --no-parallel
//   --width W (default 64)  --layers L (default 2): the test model's shape (heads of 64 wide, at least 4; half as
//   many kv heads; feed-forward twice the width), written to the record's setup
//   --record NAME (bench/records/NAME.json; default engine-overhead)  --no-record
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../harness/core/paths.ts';
import { buildTestModel, type TestModelShape } from '../harness/engine/gguf/test-model.ts';
import { EngineHost } from '../harness/engine/host.ts';
import { findNodeLlamaCpp } from '../harness/engine/resolve.ts';
import { ModelClient } from '../harness/model/client.ts';
import { serveGguf } from '../harness/serve/run-engine.ts';
import { quantiles, round } from './lib.ts';
import { writeRecord } from './record.ts';

const { values } = parseArgs({
  options: {
    tokens: { type: 'string', default: '256' },
    requests: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '5' },
    ttft: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    width: { type: 'string', default: '64' },
    layers: { type: 'string', default: '2' },
    'no-parallel': { type: 'boolean' },
    record: { type: 'string', default: 'engine-overhead' },
    'no-record': { type: 'boolean' },
  },
});
const T = Number(values.tokens);
const N = Number(values.requests);
const ROUNDS = Number(values.rounds);
const TTFT_N = Number(values.ttft);
const THREADS = Number(values.threads);
const CTX = 2048;
const SHAPE = modelShape(Number(values.width), Number(values.layers));

const engineModule = findNodeLlamaCpp().found;
if (!engineModule) {
  process.stderr.write('bench:engine-overhead: node-llama-cpp 3.21.1 is not installed (npm run setup:engine)\n');
  process.exit(2);
}
const load1Start = loadavg()[0]!;
const dir = mkdtempSync(join(tmpdir(), 'tg-bench-overhead-'));
const file = join(dir, 'test-f32.gguf');
writeFileSync(file, buildTestModel({ type: 'F32', template: 'hermes', seed: 1, shape: SHAPE }));
/** The model the figures are of, for the record's setup. */
const MODEL = `llama, ${SHAPE.layers} layers, width ${SHAPE.embedding}, ${SHAPE.heads} heads (${SHAPE.kvHeads} kv), feed-forward ${SHAPE.feedForward}, F32, random weights (seed 1)`;

/** The default test shape (width 64: 4 heads, 2 kv heads, feed-forward 128), or one as wide and deep as asked. */
function modelShape(
  width: number,
  layers: number,
): Pick<TestModelShape, 'embedding' | 'layers' | 'heads' | 'kvHeads' | 'feedForward'> {
  if (!Number.isInteger(width) || width < 64 || width % 64 !== 0)
    throw new Error(`bench:engine-overhead: --width must be a multiple of 64, got ${values.width}`);
  if (!Number.isInteger(layers) || layers < 1)
    throw new Error(`bench:engine-overhead: --layers must be a positive integer, got ${values.layers}`);
  const heads = Math.max(4, width / 64);
  return { embedding: width, layers, heads, kvHeads: heads / 2, feedForward: 2 * width };
}

// A prompt of a few hundred tokens that differs from its first line on, so every request evaluates nearly all of it.
const TOOL = JSON.stringify({
  name: 'get_weather',
  description: 'Current weather for a city, in celsius or fahrenheit',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } } },
});
const prompt = (i: number) =>
  `<|im_start|>system\nRequest ${i}. You may call tools. <tools>\n${TOOL}\n</tools><|im_end|>\n` +
  `<|im_start|>user\nWhat is the weather in Paris, in celsius? (${i})<|im_end|>\n<|im_start|>assistant\n`;

// --- (a) node-llama-cpp in this process -------------------------------------------------------------------------
// The few members used here (node-llama-cpp is an optional peer: its types are not installed with the checkout).
interface LlamaModel {
  tokenize(text: string, specialTokens: boolean): number[];
  detokenize(tokens: number[], specialTokens: boolean): string;
  tokenizer: unknown;
  createContext(o: object): Promise<LlamaContext>;
  dispose(): Promise<void>;
}
interface LlamaContext {
  getSequence(): {
    readonly contextTokens: readonly number[];
    readonly nextTokenIndex: number;
    eraseContextTokenRanges(ranges: Array<{ start: number; end: number }>): Promise<void>;
    evaluate(tokens: number[], o: object): AsyncIterable<number>;
  };
  dispose(): Promise<void>;
}
interface Lib {
  getLlama(o: object): Promise<{
    loadModel(o: object): Promise<LlamaModel>;
    dispose(): Promise<void>;
  }>;
  LlamaLogLevel: { warn: string };
  TokenBias: new (tokenizer: unknown) => object;
}
const lib = (await import(engineModule.entry)) as Lib;
const llama = await lib.getLlama({ gpu: false, build: 'never', maxThreads: THREADS, logLevel: lib.LlamaLogLevel.warn });
const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
const context = await model.createContext({ contextSize: CTX, sequences: 1, threads: THREADS, flashAttention: false });
const sequence = context.getSequence();
const banned = [...new Set(['<|im_end|>', '<|endoftext|>'].flatMap((t) => model.tokenize(t, true)))];
const tokenBias = new lib.TokenBias(model.tokenizer);
// TokenBias.set() skips end-of-generation tokens in 3.21.1: the ids go into its map (as the engine's child does).
for (const id of banned) (tokenBias as unknown as { _biases: Map<number, number> })._biases.set(id, -Infinity);

/** What the engine's child evaluates of `tokens`: the prefix the sequence holds is kept (one token at least left). */
async function keepSharedPrefix(tokens: number[]): Promise<number[]> {
  const held = sequence.contextTokens;
  const max = Math.min(held.length, tokens.length - 1);
  let k = 0;
  while (k < max && held[k] === tokens[k]) k++;
  if (k < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: k, end: sequence.nextTokenIndex }]);
  return tokens.slice(k);
}

async function directOne(i: number, maxTokens: number): Promise<{ tokens: number; text: string }> {
  const out: number[] = [];
  for await (const token of sequence.evaluate(await keepSharedPrefix(model.tokenize(prompt(i), true)), {
    temperature: 0,
    topK: 0,
    topP: 1,
    minP: 0,
    seed: 0,
    tokenBias,
  })) {
    out.push(token);
    if (out.length >= maxTokens) break;
  }
  return { tokens: out.length, text: model.detokenize(out, true) };
}

// --- (b) `toolgauge serve` in its own process ---------------------------------------------------------------------
function startServeProcess(parallel: number): Promise<{ url: string; proc: ChildProcess }> {
  return startListening(
    fromRoot('bin', 'toolgauge.mjs'),
    ['serve', '--gguf', file, '--port', '0', '--parallel', String(parallel), '--threads', String(THREADS)],
    {},
  );
}

/** bench/bare-front.ts in a process like toolgauge.mjs's own (its shebang's malloc arena and semi-space flags). */
function startBareFront(): Promise<{ url: string; proc: ChildProcess }> {
  return startListening(
    process.execPath,
    [
      '--max-semi-space-size=2',
      '--import',
      'tsx',
      fromRoot('bench', 'bare-front.ts'),
      file,
      String(THREADS),
      String(CTX),
    ],
    { MALLOC_ARENA_MAX: '1' },
  );
}

/** A process that prints `listening on URL/v1` once it serves. */
async function startListening(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(command, args, {
    cwd: fromRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FORCE_COLOR: '0', ...env },
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before listening: ${out}`)));
  });
  return { url, proc };
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const completionBody = (i: number, maxTokens: number) =>
  JSON.stringify({
    prompt: prompt(i),
    max_tokens: maxTokens,
    temperature: 0,
    top_p: 1,
    seed: 0,
    logit_bias: Object.fromEntries(banned.map((id) => [id, -100])),
  });

function post(url: string, body: string): Promise<{ text: string; tokens: number }> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      `${url}/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${text}`));
          const j = JSON.parse(text) as { choices: Array<{ text: string }>; usage: { completion_tokens: number } };
          resolve({ text: j.choices[0]!.text, tokens: j.usage.completion_tokens });
        });
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

// --- the engine's child process without the server ---------------------------------------------------------------
/** The children of a process (this one by default) that run the engine's child script. */
function engineChildren(parent = process.pid): number[] {
  return readdirSync('/proc')
    .filter((name) => {
      if (!/^\d+$/.test(name)) return false;
      try {
        const status = readFileSync(`/proc/${name}/status`, 'utf8');
        return (
          Number(/PPid:\s+(\d+)/.exec(status)?.[1]) === parent &&
          readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('child.mjs')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
const host = new EngineHost({ modelPath: file, threads: THREADS, sequences: 1, contextSize: CTX });
await host.start();
const hostPid = engineChildren()[0]!;
const hostOne = async (i: number, maxTokens: number) => {
  const r = await host.complete({
    prompt: prompt(i),
    maxTokens,
    temperature: 0,
    topP: 1,
    seed: 0,
    tokenBias: banned.map((token) => ({ token, bias: 'never' as const })),
  });
  return { text: r.text, tokens: r.usage.completionTokens };
};

// --- (c) a gguf: run's request path -------------------------------------------------------------------------------
const runServer = await serveGguf({ gguf: file, parallel: 1, threads: THREADS, contextSize: CTX });
const runClient = new ModelClient({
  baseUrl: runServer.url,
  model: `gguf:${file}`,
  timeoutMs: 300_000,
  retries: 0,
  concurrency: 1,
  seed: 0,
  topP: 1,
  extraBody: { logit_bias: Object.fromEntries(banned.map((id) => [id, -100])) },
});
const runEnginePid = engineChildren().find((pid) => pid !== hostPid)!;
const runPathOne = async (i: number, maxTokens: number) => {
  const r = await runClient.completion({ prompt: prompt(i), maxTokens, temperature: 0 }, { instance: `bench:${i}` });
  return { text: r.text, tokens: r.usage.completion_tokens };
};

// --- CPU time: robust to the machine's load, where wall time is not ------------------------------------------------
/** CPU ms (user + system) of a process and its descendants so far, from /proc (10 ms ticks). */
function treeCpuMs(root: number, skipRoot = false): number {
  const kids = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(Number(name), ((Number(f[11]) + Number(f[12])) * 1000) / 100);
      kids.set(Number(f[1]), [...(kids.get(Number(f[1])) ?? []), Number(name)]);
    } catch {
      // gone
    }
  }
  let total = 0;
  const stack = skipRoot ? [...(kids.get(root) ?? [])] : [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += cpu.get(pid) ?? 0;
    stack.push(...(kids.get(pid) ?? []));
  }
  return total;
}
/** This process's CPU ms, less what its own scans of /proc cost (the scan is the bench's, not the side's). */
let scanCpuMs = 0;
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000 - scanCpuMs;
};
/** This process's CPU and a child's tree, the scan of /proc between them not counted in either. */
const selfAndTreeCpuMs = (pid: number) => {
  const self = selfCpuMs();
  const tree = treeCpuMs(pid);
  scanCpuMs += selfCpuMs() - self;
  return self + tree;
};

/** CPU ns of one process, all its threads (not its children), from /proc's schedstat (time on a CPU, in ns). */
function processCpuNs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended
    }
  }
  return ns;
}

// --- the rounds ----------------------------------------------------------------------------------------------------
const serve = await startServeProcess(1);
const bareFront = await startBareFront();
type Side = 'direct' | 'host' | 'bare_front' | 'serve' | 'run_path';
const one: Record<Side, (i: number, maxTokens: number) => Promise<{ text: string; tokens: number }>> = {
  direct: directOne,
  host: hostOne,
  bare_front: (i, m) => post(bareFront.url, completionBody(i, m)),
  serve: (i, m) => post(serve.url, completionBody(i, m)),
  run_path: runPathOne,
};

// Warm-up, and the check that every side generates the same text (greedy on one file: any difference is a bug).
const reference = await directOne(0, T);
for (const side of ['host', 'bare_front', 'serve', 'run_path'] as const) {
  const r = await one[side](0, T);
  if (r.text !== reference.text || r.tokens !== T)
    throw new Error(`bench:engine-overhead: ${side} generated ${r.tokens} tokens, a different text from direct`);
}
if (reference.tokens !== T)
  throw new Error(`bench:engine-overhead: direct generated ${reference.tokens} tokens, not ${T}`);

// The process tree each side's work runs in: this process for direct; this process and the host's child for host;
// the server's process and its engine child for serve and bare_front; this process (client and server) and the run's
// engine child for run_path (the serve and bare_front processes are not counted with this one).
const cpuOf: Record<Side, () => number> = {
  direct: selfCpuMs,
  host: () => selfAndTreeCpuMs(hostPid),
  serve: () => treeCpuMs(serve.proc.pid!),
  bare_front: () => treeCpuMs(bareFront.proc.pid!),
  run_path: () => selfAndTreeCpuMs(runEnginePid),
};
const cpuPerToken: Record<Side, number[]> = { direct: [], host: [], bare_front: [], serve: [], run_path: [] };
const rate: Record<Side, number[]> = { direct: [], host: [], bare_front: [], serve: [], run_path: [] };
const ttft: Record<Side, number[]> = { direct: [], host: [], bare_front: [], serve: [], run_path: [] };
/** Each turn's time to first token per side (the sides' requests of one turn ran back to back). */
const turns: Array<Record<Side, number>> = [];
const sides: Side[] = ['direct', 'host', 'bare_front', 'serve', 'run_path'];
/**
 * The processes besides this one that work on a side's request: the front first (for serve and bare-front, a process
 * of its own), then the engine's child. A one-token request's CPU is theirs plus this process's (which is the client
 * of the HTTP sides, and the whole of direct).
 */
const sideProcs: Record<Side, number[]> = {
  direct: [],
  host: [hostPid],
  bare_front: [bareFront.proc.pid!, ...engineChildren(bareFront.proc.pid!)],
  serve: [serve.proc.pid!, ...engineChildren(serve.proc.pid!)],
  run_path: [runEnginePid],
};
/** The CPU µs the serve and bare-front processes themselves (not their engine children) spent per one-token request. */
const frontCpuUs: Record<'serve' | 'bare_front', number[]> = { serve: [], bare_front: [] };
/** Each turn's CPU µs per side for its one-token request (every process working on it, this one included). */
const cpuTurns: Array<Record<Side, number>> = [];
for (let r = 0; r < ROUNDS; r++) {
  // Each round starts with another side, so no side always follows the same one.
  const order = sides.map((_, k) => sides[(k + r) % sides.length]!);
  for (const side of order) {
    let tokens = 0;
    const c0 = cpuOf[side]();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const got = (await one[side](1 + r * N + i, T)).tokens;
      tokens += got;
    }
    rate[side].push((tokens / (performance.now() - t0)) * 1000);
    cpuPerToken[side].push((cpuOf[side]() - c0) / tokens);
  }
  // Time to first token, one request per side in turn (the order rotating), so a moment of load on this shared
  // machine falls on every side alike instead of on whichever side was measuring then.
  const lat: Record<Side, number[]> = { direct: [], host: [], bare_front: [], serve: [], run_path: [] };
  for (let i = 0; i < TTFT_N; i++) {
    const cpuTurn = {} as Record<Side, number>;
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + i + r) % sides.length]!;
      // The other processes' CPU is read outside this process's own reading, and both outside the timed request.
      const procs0 = sideProcs[side].map(processCpuNs);
      const self0 = process.cpuUsage();
      const t1 = performance.now();
      await one[side](1000 + i, 1);
      lat[side].push(performance.now() - t1);
      const self = process.cpuUsage(self0);
      const procsUs = sideProcs[side].map((pid, j) => (processCpuNs(pid) - procs0[j]!) / 1000);
      cpuTurn[side] = self.user + self.system + procsUs.reduce((a, b) => a + b, 0);
      if (side === 'serve' || side === 'bare_front') frontCpuUs[side].push(procsUs[0]!);
    }
    turns.push(Object.fromEntries(sides.map((side) => [side, lat[side].at(-1)!])) as Record<Side, number>);
    cpuTurns.push(cpuTurn);
  }
  for (const side of sides) ttft[side].push(quantiles(lat[side]).median);
  process.stderr.write(
    `round ${r + 1}/${ROUNDS}: tokens/s ${sides.map((s) => `${s} ${round(rate[s].at(-1)!, 0)}`).join(', ')}; CPU ms/token ${sides.map((s) => `${s} ${round(cpuPerToken[s].at(-1)!, 3)}`).join(', ')}; TTFT ms ${sides.map((s) => `${s} ${round(ttft[s].at(-1)!, 2)}`).join(', ')}\n`,
  );
}
await stopProcess(serve.proc);
await stopProcess(bareFront.proc);
await runServer.close();
await host.close();

const med = (xs: number[]) => quantiles(xs).median;
const figures: Record<string, number> = {
  tokens_per_request: T,
  requests_per_round: N,
  rounds: ROUNDS,
  threads: THREADS,
};
for (const s of sides) {
  figures[`${s}_tokens_per_s`] = round(med(rate[s]), 1);
  figures[`${s}_ttft_ms`] = round(med(ttft[s]), 2);
  figures[`${s}_cpu_us_per_token`] = round(med(cpuPerToken[s]) * 1000, 1);
}
// Per round (the sides of one round ran back to back), then the median: the load of the moment cancels.
const ratioPct = (s: Side) => round(med(rate[s].map((x, k) => (x / rate.direct[k]!) * 100)), 1);
figures.host_vs_direct_pct = ratioPct('host');
figures.bare_front_vs_direct_pct = ratioPct('bare_front');
figures.serve_vs_direct_pct = ratioPct('serve');
figures.run_path_vs_direct_pct = ratioPct('run_path');
const cpuRatioPct = (s: Side) => round(med(cpuPerToken[s].map((x, k) => (x / cpuPerToken.direct[k]!) * 100)), 1);
figures.host_cpu_vs_direct_pct = cpuRatioPct('host');
figures.bare_front_cpu_vs_direct_pct = cpuRatioPct('bare_front');
figures.serve_cpu_vs_direct_pct = cpuRatioPct('serve');
figures.run_path_cpu_vs_direct_pct = cpuRatioPct('run_path');
// What a gguf: run's request costs beyond `toolgauge serve`'s, per --tokens request: wall and CPU, and its time to
// first token beyond serve's, in µs (a fraction of a ms each), paired by round (the two sides of one round ran back
// to back), then the median.
const perRequestMs = (s: Side, k: number) => (T / rate[s][k]!) * 1000;
figures.run_path_minus_serve_us_per_request = Math.round(
  med(rate.run_path.map((_, k) => perRequestMs('run_path', k) - perRequestMs('serve', k))) * 1000,
);
figures.run_path_minus_serve_cpu_us_per_request = Math.round(
  med(cpuPerToken.run_path.map((x, k) => (x - cpuPerToken.serve[k]!) * T)) * 1000,
);
figures.run_path_minus_serve_ttft_us = Math.round(med(ttft.run_path.map((x, k) => x - ttft.serve[k]!)) * 1000);
// Time to first token against another side's, paired turn by turn (the load of the moment cancels), then the median
// over every turn of every round: each side as a percentage of direct's, and serve against the bare front.
const pairedPct = (s: Side, base: Side) => round(med(turns.map((t) => (t[s] / t[base]) * 100)), 1);
figures.host_ttft_vs_direct_pct = pairedPct('host', 'direct');
figures.bare_front_ttft_vs_direct_pct = pairedPct('bare_front', 'direct');
figures.serve_ttft_vs_direct_pct = pairedPct('serve', 'direct');
figures.run_path_ttft_vs_direct_pct = pairedPct('run_path', 'direct');
figures.serve_ttft_vs_bare_front_pct = pairedPct('serve', 'bare_front');
figures.serve_minus_bare_front_ttft_us = Math.round(med(turns.map((t) => t.serve - t.bare_front)) * 1000);
figures.bare_front_minus_host_ttft_us = Math.round(med(turns.map((t) => t.bare_front - t.host)) * 1000);
// What serve adds to the first token in wall time, paired turn by turn: the constant, on this model and this load.
figures.serve_minus_direct_ttft_us = Math.round(med(turns.map((t) => t.serve - t.direct)) * 1000);
// The same in CPU (every process working on the request), which the machine's load moves far less than wall time:
// each side's median, and against direct's in the same turn.
for (const s of sides) figures[`${s}_ttft_cpu_us`] = Math.round(med(cpuTurns.map((t) => t[s])));
for (const s of ['host', 'bare_front', 'serve', 'run_path'] as const) {
  figures[`${s}_minus_direct_ttft_cpu_us`] = Math.round(med(cpuTurns.map((t) => t[s] - t.direct)));
  figures[`${s}_ttft_cpu_vs_direct_pct`] = round(med(cpuTurns.map((t) => (t[s] / t.direct) * 100)), 1);
}
// The front process's own CPU per one-token request (its engine child not counted): medians over every request.
figures.serve_front_cpu_us_per_ttft_request = Math.round(med(frontCpuUs.serve));
figures.bare_front_front_cpu_us_per_ttft_request = Math.round(med(frontCpuUs.bare_front));

// --- `toolgauge serve --parallel P` with C clients in flight -------------------------------------------------------
if (!values['no-parallel']) {
  const grid: Record<string, number[]> = {};
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) {
    for (const p of [1, 2, 4]) {
      const s = await startServeProcess(p);
      await post(s.url, completionBody(0, 8)); // every engine child has loaded before the clock starts
      for (const c of [1, 2, 4]) {
        const total = 4 * c;
        let next = 0;
        let tokens = 0;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: c }, async () => {
            for (let i = next++; i < total; i = next++) {
              // Awaited first, then added: `tokens += await …` reads `tokens` before the await, and the clients in
              // flight overwrote each other's counts (the parallel figures recorded before this counted too few).
              const got = (await post(s.url, completionBody(2000 + r * 100 + i, T))).tokens;
              tokens += got;
            }
          }),
        );
        (grid[`parallel${p}_clients${c}_tokens_per_s`] ??= []).push((tokens / (performance.now() - t0)) * 1000);
      }
      await stopProcess(s.proc);
    }
    process.stderr.write(`parallel round ${r + 1} done\n`);
  }
  for (const [k, xs] of Object.entries(grid)) figures[k] = round(med(xs), 1);
}

agent.destroy();
figures.load1_start = round(load1Start, 2);
figures.load1_end = round(loadavg()[0]!, 2);
await context.dispose();
await model.dispose();
await llama.dispose();
rmSync(dir, { recursive: true, force: true });

process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
if (!values['no-record']) {
  const command = `npm run bench:engine-overhead -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
  writeRecord(values.record, figures, command, { model: MODEL });
  process.stdout.write(`written to bench/records/${values.record}.json\n`);
}

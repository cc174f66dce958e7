// `npm run bench:serve-hostile`: how long a short request to `toolgauge serve` takes while one hostile request is in
// flight (a test model, llama.cpp on one thread, --parallel 2: two engine processes, as `toolgauge serve` runs them). Hostile requests: a grammar whose parse stacks
// explode (stuck inside llama.cpp until the server's deadline stops it), and a 200,000-value enum (refused before a
// grammar is built). Prints the short request's latency after each, from when it was sent.
//
//   --timeout MS   the server's request deadline (default 1000); --rounds N (default 3); --delay MS: when the short
//   request is sent after the hostile one (default 200)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildTestModel } from '../harness/engine/gguf/test-model.ts';
import { findNodeLlamaCpp } from '../harness/engine/resolve.ts';
import { serveGguf } from '../harness/serve/run-engine.ts';

const { values } = parseArgs({
  options: {
    timeout: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    delay: { type: 'string', default: '200' },
  },
});
if (!findNodeLlamaCpp().found) {
  process.stderr.write('bench:serve-hostile: node-llama-cpp 3.21.1 is not installed (npm run setup:engine)\n');
  process.exit(2);
}
const AMBIGUOUS = 'root ::= a\na ::= "x" a "y" | "x" a "z" | "x" a "w"';
const file = join(mkdtempSync(join(tmpdir(), 'tg-bench-hostile-')), 'm.gguf');
writeFileSync(file, buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
const server = await serveGguf({
  gguf: file,
  alias: 'm',
  contextSize: 256,
  threads: 1,
  parallel: 2,
  requestTimeoutMs: Number(values.timeout),
});

const post = async (body: unknown) => {
  const r = await fetch(`${server.url}/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await r.text();
  return r.status;
};
const SHORT = { prompt: 'hi', max_tokens: 2, temperature: 0 };

/** The short request's latency (ms) and status, sent `delayMs` after the hostile one. */
async function round(hostile: unknown, delayMs: number): Promise<{ ms: number; status: number; hostile: number }> {
  const h = post(hostile);
  await new Promise((r) => setTimeout(r, delayMs));
  const t0 = performance.now();
  const status = await post(SHORT);
  const ms = performance.now() - t0;
  return { ms: Math.round(ms), status, hostile: await h };
}

await post(SHORT); // warm
const cases = {
  'ambiguous grammar': { prompt: 'hi', grammar: AMBIGUOUS, max_tokens: 200 },
  '200,000-value enum': { prompt: 'hi', json_schema: { enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) } },
};
for (const [name, body] of Object.entries(cases))
  for (let i = 0; i < Number(values.rounds); i++) {
    const r = await round(body, Number(values.delay));
    // Both slots answer again before the next round: a killed engine's successor has loaded (one hostile at a time).
    await Promise.all([post(SHORT), post(SHORT)]);
    console.log(
      `${name}: short request ${r.status} in ${r.ms} ms (hostile answered ${r.hostile}; deadline ${values.timeout} ms)`,
    );
  }
await server.close();

// The least an HTTP front over the engine's child can do, for bench/engine-overhead.ts: node:http, JSON.parse, one
// EngineHost.complete, JSON.stringify — no Host check, no validation, no deadline, no queue, no chat. Run as its own
// process (`node --import tsx bench/bare-front.ts MODEL THREADS CTX`) beside `toolgauge serve`, it tells how much of
// serve's time is the HTTP exchange and the extra process, and how much is toolgauge serve's own code. Prints
// `listening on http://127.0.0.1:PORT/v1`; answers POST /v1/completions with the fields the bench reads.
import { createServer } from 'node:http';
import { EngineHost } from '../harness/engine/host.ts';

const [modelPath, threads, contextSize] = process.argv.slice(2);
const host = new EngineHost({
  modelPath: modelPath!,
  threads: Number(threads),
  sequences: 1,
  contextSize: Number(contextSize),
});
await host.start();

interface Body {
  prompt: string;
  max_tokens: number;
  temperature: number;
  top_p: number;
  seed: number;
  logit_bias: Record<string, number>;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const b = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    host
      .complete({
        prompt: b.prompt,
        maxTokens: b.max_tokens,
        temperature: b.temperature,
        topP: b.top_p,
        seed: b.seed,
        // The bench bans tokens only (-100), as `toolgauge serve` maps them.
        tokenBias: Object.keys(b.logit_bias).map((k) => ({ token: Number(k), bias: 'never' as const })),
      })
      .then((r) => {
        const text = JSON.stringify({
          object: 'text_completion',
          choices: [{ index: 0, text: r.text, logprobs: null, finish_reason: r.finishReason }],
          usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens },
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      })
      .catch((err: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(err.message);
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`listening on http://127.0.0.1:${port}/v1\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void host.close().then(() => process.exit(0));
});

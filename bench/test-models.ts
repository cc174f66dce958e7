// `npm run bench:test-models`: the figures of toolgauge's generated test models on the local engine (llama.cpp via
// node-llama-cpp, one thread): file size per tensor type, load time, generation tokens/s, and the quantization
// damage of Q8_0 against F32 of the same seed (top-1 agreement and mean KL of teacher-forced next-token
// distributions). Random weights: these measure the engine and the plumbing, never a model's quality.
//
//   --seed N (default 1)  --tokens N generated per run (default 256)  --reps N (default 3, medians)
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderChat } from '../harness/templates/render.ts';
import { compareDistributions } from '../harness/engine/compare.ts';
import { TEST_TEMPLATES } from '../harness/engine/gguf/chat-templates.ts';
import { buildTestModel } from '../harness/engine/gguf/test-model.ts';
import { EngineHost } from '../harness/engine/host.ts';
import type { DistributionsResult } from '../harness/engine/types.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    tokens: { type: 'string', default: '256' },
    reps: { type: 'string', default: '3' },
  },
});
const seed = Number(values.seed);
const maxTokens = Number(values.tokens);
const reps = Number(values.reps);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
      },
    },
  },
];
const t = TEST_TEMPLATES.hermes;
const prompt = renderChat(t.jinja, {
  messages: [{ role: 'user', content: 'What is the weather in Oslo, in celsius?' }],
  tools,
  addGenerationPrompt: true,
  bosToken: t.bos,
  eosToken: t.eos,
});
/** A gold transcript to teacher-force: the call a tool-calling model should write, then the end of its turn. */
const gold = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "c"}}\n</tool_call><|im_end|>';

const dir = mkdtempSync(join(tmpdir(), 'toolgauge-bench-models-'));
const rows: string[] = [];
const dists: Record<string, DistributionsResult> = {};
/** The F32 model's own sampled text (token ids), teacher-forced on every type: a longer, less peaked comparison. */
let sampled: number[] = [];
const sampledDists: Record<string, DistributionsResult> = {};
try {
  for (const type of ['F32', 'F16', 'Q8_0'] as const) {
    const file = join(dir, `m-${type}.gguf`);
    writeFileSync(file, buildTestModel({ type, template: 'hermes', seed }));
    const loads: number[] = [];
    const rates: number[] = [];
    let host: EngineHost | undefined;
    for (let r = 0; r < reps; r++) {
      host = new EngineHost({ modelPath: file, contextSize: 2048 });
      const t0 = performance.now();
      await host.start();
      loads.push(performance.now() - t0);
      const t1 = performance.now();
      // Banning the end-of-turn token keeps every run at maxTokens.
      const res = await host.complete({
        prompt,
        maxTokens,
        temperature: 1,
        seed: r,
        tokenBias: [
          { token: '<|im_end|>', bias: 'never' },
          { token: '<|endoftext|>', bias: 'never' },
        ],
      });
      rates.push(res.tokens.length / ((performance.now() - t1) / 1000));
      if (type === 'F32' && r === 0) sampled = res.tokens;
      if (r === reps - 1) {
        dists[type] = await host.nextTokenDistributions({ prompt, continuation: gold, topK: 5, full: true });
        sampledDists[type] = await host.nextTokenDistributions({ prompt, continuation: sampled, topK: 5, full: true });
      }
      await host.close();
    }
    rows.push(`| ${type} | ${statSync(file).size} | ${median(loads).toFixed(0)} | ${median(rates).toFixed(0)} |`);
  }
  console.log(
    `test model: hermes template, seed ${seed}, 2 layers, width 64, ${dists.F32!.steps.length - 1} gold tokens; random weights (not a model's result)\n`,
  );
  console.log('| type | file bytes | start + load ms (child process) | tokens/s (1 thread) |\n|---|---|---|---|');
  for (const r of rows) console.log(r);
  for (const other of ['F16', 'Q8_0'] as const) {
    for (const [what, d] of [
      ['the gold call', dists],
      [`F32's own sampled text (temperature 1)`, sampledDists],
    ] as const) {
      const c = compareDistributions(d.F32!, d[other]!);
      console.log(
        `\n${other} vs F32, teacher-forced over ${what} (${c.steps} steps): top-1 agreement ${(c.top1Agreement * 100).toFixed(1)}%, mean KL ${c.meanKl.toExponential(2)} nats, max KL ${c.maxKl.toExponential(2)}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

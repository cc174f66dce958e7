import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from '../../harness/apibank/testkit.ts';
import { apibankSuite } from '../../harness/apibank/suite.ts';
import { bfclSuite } from '../../harness/bfcl/suite.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { planRun, settingsOf } from '../../harness/kit/plan.ts';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { AnySuite } from '../../harness/kit/types.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { startSimServer, type ChatBody, type Responder } from '../../harness/sim/server.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { tempDir } from '../helpers/cli.ts';

// The reproducibility header's generation block says what every request carried. What was sent is read from the
// request bodies the simulator received (a recording proxy in front of it), never from the header code; the trial a
// request belongs to from the trial header the simulator reads. With --seed 7 --trials 2 the seed rule the docs state
// (seed + trial) gives trial 0 seed 7 and trial 1 seed 8, and each suite's source fixes its base values.

const SEED = 7;
const TRIALS = 2;

type Body = Record<string, unknown>;
type Sent = { body: Body; trial: number };
type Values = { temperature: number; top_p: number | null; max_tokens: number | null };

/** A simulator for the suite, behind a proxy that keeps every completions request body with its trial header. */
async function recordingSim(
  name: string,
  responder: Responder,
): Promise<{ url: string; sent: Sent[]; close(): Promise<void> }> {
  const sim = await startSimServer({ responders: { [name]: responder } });
  const sent: Sent[] = [];
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && /completions$/.test(req.url ?? ''))
        sent.push({ body: JSON.parse(raw) as Body, trial: Number(req.headers['x-toolgauge-trial'] ?? Number.NaN) });
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k]) => !['host', 'content-length', 'connection'].includes(k))
          .map(([k, v]) => [k, String(v)]),
      );
      const r = await fetch(sim.url.replace(/\/v1$/, '') + req.url, {
        method: req.method!,
        headers,
        ...(req.method === 'POST' ? { body: raw } : {}),
      });
      res
        .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' })
        .end(Buffer.from(await r.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
  return { url, sent, close: async () => (await new Promise<void>((r) => proxy.close(() => r())), await sim.close()) };
}

const valuesOf = (x: Record<string, unknown>): Values => ({
  temperature: x.temperature as number,
  top_p: (x.top_p as number | undefined) ?? null,
  max_tokens: (x.max_tokens as number | undefined) ?? null,
});

/**
 * The header records the source's base values, the run's seed and the rule; every request carries the base values
 * (or those of a phase the header names) and seed + its trial; each trial's requests are there.
 */
function expectEverySent(sent: Sent[], generation: Record<string, unknown>, base: Values) {
  // What was sent: each request carries seed + its trial, and each trial's requests are there.
  expect(sent.length).toBeGreaterThan(0);
  for (const { body, trial } of sent) {
    expect([0, 1], 'the request names its trial').toContain(trial);
    expect(body.seed, `seed of a trial-${trial} request`).toBe(SEED + trial);
  }
  // Trials are distinct samples: exactly the two seeds the rule gives, each sent.
  expect([...new Set(sent.map((s) => s.body.seed))].sort()).toEqual([SEED, SEED + 1]);
  // What the header says: the source's base values, the run's seed and the rule …
  expect(valuesOf(generation)).toEqual(base);
  expect({ seed: generation.seed, seed_rule: generation.seed_rule }).toEqual({ seed: SEED, seed_rule: 'seed + trial' });
  // … and every request carries the base values, or those of a phase the header names.
  const phases = Object.values((generation.phases ?? {}) as Record<string, Record<string, unknown>>).map(valuesOf);
  for (const { body } of sent) expect([base, ...phases], 'sampling of a request').toContainEqual(valuesOf(body));
}

/** Run the suite in process with --seed 7 --trials 2 against a recording simulator. */
async function runRecorded(def: AnySuite, env: Record<string, string>, responder?: Responder) {
  const full = {
    TOOLGAUGE_MODEL: 'sim:oracle',
    TOOLGAUGE_SEED: String(SEED),
    TOOLGAUGE_TRIALS: String(TRIALS),
    ...env,
  };
  const kc = planRun(full, [def]);
  const rec = await recordingSim(def.name, responder ?? def.responder!(kc.run, settingsOf(kc, def)));
  try {
    const run = await runSuite(def, {
      ...full,
      TOOLGAUGE_SIM_URL: rec.url,
      TOOLGAUGE_OUT_DIR: tempDir(`sampling-${def.name}`),
    });
    expect(run.finalized.harnessErrors).toBe(0);
    expect(run.metas.length).toBeGreaterThan(0);
    return { sent: rec.sent, generation: run.finalized.summary.header.generation };
  } finally {
    await rec.close();
  }
}

describe('the generation settings in the header are the ones sent (seed 7, 2 trials)', () => {
  for (const transport of ['chat', 'completions'] as const) {
    it(`probe ${transport}: temperature 0, top_p 1, seed + trial`, async () => {
      const { sent, generation } = await runRecorded(probeSuite, {
        TOOLGAUGE_PROBE_TRANSPORT: transport,
        TOOLGAUGE_PROBE_ONLY: 'c1_weather_dev_000,c1_weather_dev_001',
      });
      // completions asks for 1024 tokens when none is set (OpenAI-style servers stop at 16)
      expectEverySent(sent, generation, {
        temperature: 0,
        top_p: 1,
        max_tokens: transport === 'completions' ? 1024 : null,
      });
    });
  }

  it("maze: the run's temperature, top_p 1, seed + trial", async () => {
    const { sent, generation } = await runRecorded(mazeSuite, {
      TOOLGAUGE_TEMPERATURE: '0.3',
      TOOLGAUGE_MAZE_ONLY: 'C1_task_001',
      TOOLGAUGE_MAZE_MODES: 'P0,P1',
    });
    expectEverySent(sent, generation, { temperature: 0.3, top_p: 1, max_tokens: null });
  });

  it("bfcl: the run's temperature and max tokens, seed + trial", async () => {
    const { sent, generation } = await runRecorded(bfclSuite, {
      TOOLGAUGE_MAX_TOKENS: '300',
      TOOLGAUGE_BFCL_DATA: fromRoot('fixtures', 'bfcl', 'data'),
      TOOLGAUGE_BFCL_CATEGORY: 'simple_python',
      TOOLGAUGE_BFCL_LIMIT: '2',
    });
    expectEverySent(sent, generation, { temperature: 0, top_p: null, max_tokens: 300 });
  });

  it("toolhop: the reference preset's turns (0.2, 0.9, 512) and final call (0, 0.9, 64), seed + trial", async () => {
    const { sent, generation } = await runRecorded(toolhopSuite, {
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
      TOOLGAUGE_SANDBOX: 'python',
      TOOLHOP_DATA: fromRoot('cases', 'toolhop', 'sample.json'),
      TOOLHOP_LIMIT: '2',
    });
    expectEverySent(sent, generation, { temperature: 0.2, top_p: 0.9, max_tokens: 512 });
    expect(Object.values(generation.phases as object).map(valuesOf)).toEqual([
      { temperature: 0, top_p: 0.9, max_tokens: 64 },
    ]);
  });

  it.skipIf(!HAS_SHARED_APIBANK)(
    `apibank: the reference preset (0.2, 0.9, 1024), seed + trial${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
    async () => {
      const { sent, generation } = await runRecorded(apibankSuite, {
        TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
        TOOLGAUGE_APIBANK_LEVEL: '1',
        TOOLGAUGE_APIBANK_LIMIT: '2',
      });
      expectEverySent(sent, generation, { temperature: 0.2, top_p: 0.9, max_tokens: 1024 });
    },
  );

  it("describeEval with toolLoop: the run's temperature, seed + trial (its trials are distinct samples)", async () => {
    const add = /(-?\d+)\s+plus\s+(-?\d+)/;
    // Calls `add` with the question's numbers, then answers the tool's result.
    const responder: Responder = {
      chat: (_spec, body: ChatBody) => {
        const m = add.exec(String(body.messages.find((x) => x.role === 'user')?.content ?? ''));
        const result = body.messages.find((x) => x.role === 'tool');
        if (!m || result) return { content: `<answer>${String(result?.content ?? '')}</answer>` };
        const args = JSON.stringify({ a: Number(m[1]), b: Number(m[2]) });
        return {
          content: null,
          tool_calls: [{ id: 'c0', type: 'function', function: { name: 'add', arguments: args } }],
        };
      },
    };
    const def = evalSuite('sampling-eval', {
      data: () => [
        { id: 'a', input: 'What is 2 plus 3?', expected: '5' },
        { id: 'b', input: 'What is 19 plus 23?', expected: '42' },
      ],
      tools: [
        {
          name: 'add',
          parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
          run: ({ a, b }) => String(a + b),
        },
      ],
      task: toolLoop({ maxTurns: 3 }),
      scorers: [scorers.answerMatches()],
    });
    const { sent, generation } = await runRecorded(def, { TOOLGAUGE_TEMPERATURE: '0.5' }, responder);
    expectEverySent(sent, generation, { temperature: 0.5, top_p: null, max_tokens: null });
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatBody, SimReply } from '../../harness/api/index.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject } from '../../scripts/fresh-project.mjs';
import { packed } from './pack.ts';
import { cleanEnv, inProcess, readJson, tempDir } from '../helpers/cli.ts';

// The everyday paths of a user's eval in a fresh folder: `toolgauge eval` with --concurrency, a request cache
// replayed without the endpoint, an output directory that cannot be written, and plain `vitest run --reporter=json`.

const EVAL = `import { describeEval, scorers, toolLoop } from 'toolgauge';
describeEval('paths', {
  data: async () => Array.from({ length: 10 }, (_, i) => ({ id: 'c' + i, input: 'What is ' + i + ' plus ' + i + '?', expected: String(2 * i) })),
  tools: [{ name: 'add', description: 'Add two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, run: ({ a, b }) => String(a + b) }],
  task: toolLoop({ maxTurns: 3 }),
  scorers: [scorers.answerMatches()],
});
`;

/**
 * Adds with the tool, then answers. A model named `wait-N` holds each request until N are in flight at once (or
 * 2 s pass): the peak it saw is how many instances the run had in flight.
 */
const requests = new Map<string, number>();
const peak = new Map<string, number>();
let inFlight = 0;
const waiters: Array<() => void> = [];
async function respond(body: ChatBody): Promise<SimReply> {
  requests.set(body.model, (requests.get(body.model) ?? 0) + 1);
  const want = /^wait-(\d+)$/.exec(body.model)?.[1];
  if (want) {
    inFlight++;
    peak.set(body.model, Math.max(peak.get(body.model) ?? 0, inFlight));
    if (inFlight >= Number(want)) for (const w of waiters.splice(0)) w();
    else
      await new Promise<void>((res) => {
        waiters.push(res);
        setTimeout(res, 2_000);
      });
    inFlight--;
  }
  const result = body.messages.find((m) => m.role === 'tool');
  if (result) return { content: `<answer>${result.content}</answer>` };
  const [, a, b] = /(\d+) plus (\d+)/.exec(String(body.messages.find((m) => m.role === 'user')?.content)) ?? [];
  return {
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: { name: 'add', arguments: JSON.stringify({ a: Number(a), b: Number(b) }) },
      },
    ],
  };
}

let sim: SimServer;
let dir: string;
beforeAll(async () => {
  sim = await startSimServer({ responders: { paths: { chat: (_s, body) => respond(body) } } });
  // toolgauge installed from the packed tarball, as a user's project has it.
  dir = freshProject(tempDir('eval-paths'), { type: 'module', ...(await packed()) }) as string;
  writeFileSync(join(dir, 'paths.eval.ts'), EVAL);
  // Plain Vitest with toolgauge's eval configuration, as docs/eval.md has it.
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { evalConfig } from 'toolgauge/vitest-config';\nexport default evalConfig({ include: ['paths.eval.ts'] });\n`,
  );
  writeFileSync(join(dir, 'blocker'), 'a file where the output directory would go\n');
});
afterAll(() => sim.close());

const cli = (args: string[]) =>
  execa('node', [join(dir, 'node_modules', 'toolgauge', 'bin', 'toolgauge.mjs'), 'eval', 'paths.eval.ts', ...args], {
    cwd: dir,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
const vitest = (args: string[], env: Record<string, string>) =>
  execa('node', [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], {
    cwd: dir,
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });

/** A loopback URL where nothing listens. */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as { port: number }).port;
  await new Promise((res) => srv.close(res));
  return `http://127.0.0.1:${port}/v1`;
}

// The three tests wait on their own processes and use their own model names: they run at once.
describe.concurrent('toolgauge eval in a fresh folder', () => {
  it('--concurrency 10 has 10 instances in flight; the trace keeps each model call; --cache replay then runs without the endpoint', async () => {
    const a = await cli([
      '--base-url',
      sim.url,
      '--model',
      'wait-10',
      '--concurrency',
      '10',
      '--out-dir',
      'results/conc',
      '--cache',
      'record',
      '--cache-dir',
      'cache',
    ]);
    expect(a.exitCode, a.stdout + a.stderr).toBe(0);
    expect(peak.get('wait-10')).toBe(10);
    const trace = readJson<{
      output: { modelCalls: Array<{ latencyMs: number; attempts: number; retried: string[]; cached: boolean }> };
    }>(join(dir, 'results/conc/traces/c3.json'));
    expect(trace.output.modelCalls).toHaveLength(2);
    for (const c of trace.output.modelCalls)
      expect(c).toMatchObject({ attempts: 1, retried: [], cached: false, latencyMs: expect.any(Number) });

    const sent = requests.get('wait-10');
    const b = await cli([
      '--base-url',
      await deadUrl(),
      '--model',
      'wait-10',
      '--out-dir',
      'results/replay',
      '--cache',
      'replay',
      '--cache-dir',
      'cache',
    ]);
    expect(b.exitCode, b.stdout + b.stderr).toBe(0);
    expect(requests.get('wait-10')).toBe(sent);
    expect(
      readJson<{ metrics: { pass_rate: { value: number; n: number } } }>(join(dir, 'results/replay/summary.json'))
        .metrics.pass_rate,
    ).toMatchObject({ value: 1, n: 10 });
  });

  it('an output directory that cannot be written is one line and exit 2 before any request (CLI and plain Vitest)', async () => {
    // The CLI's check runs before Vitest starts: in this process (the same main() as the command).
    const r = await inProcess(
      [
        'eval',
        join(dir, 'paths.eval.ts'),
        '--base-url',
        sim.url,
        '--model',
        'never-asked',
        '--out-dir',
        join(dir, 'blocker', 'out'),
      ],
      {},
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^toolgauge eval: cannot write the output directory \S*blocker\/out: \S*blocker is not a directory\n?$/,
    );
    const v = await vitest([], {
      OPENAI_BASE_URL: sim.url,
      TOOLGAUGE_MODEL: 'never-asked',
      TOOLGAUGE_OUT_DIR: 'blocker/out',
    });
    expect(v.exitCode).not.toBe(0);
    expect(v.stdout + v.stderr).toMatch(
      /cannot write the output directory \S*blocker\/out: \S*blocker is not a directory/,
    );
    expect(requests.get('never-asked')).toBeUndefined();
  });

  it("plain `vitest run --reporter=json` prints exactly one JSON document on stdout; toolgauge's summary goes to stderr", async () => {
    const v = await vitest(['--reporter=json'], {
      OPENAI_BASE_URL: sim.url,
      TOOLGAUGE_MODEL: 'json-run',
      TOOLGAUGE_OUT_DIR: 'results/json',
    });
    expect(v.exitCode, v.stderr).toBe(0);
    const doc = JSON.parse(v.stdout) as { numTotalTests: number; numPassedTests: number };
    expect(doc).toMatchObject({ numTotalTests: 10, numPassedTests: 10 });
    expect(v.stderr).toMatch(/pass_rate/);
    expect(readFileSync(join(dir, 'results/json/summary.json'), 'utf8')).toMatch(/"pass_rate"/);
  });
});

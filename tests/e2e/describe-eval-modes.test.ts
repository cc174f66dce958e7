import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv, readJson, readLines, tempDir } from '../helpers/cli.ts';
import { type CacheUsage, codeCacheProbe, expectCached, shebangNodeFlags } from '../helpers/code-cache-probe.ts';

// describeEval.skip / .only / .each, an eval's own trials and timeout, and an eval whose tools come from an MCP server
// named in the run's --config file, through `toolgauge eval` (one process, three eval files). The tasks are the
// files' own (no model requests) except the MCP eval's, which sim:oracle answers: what is asserted is which tests
// ran, with which trial and seed, where the output went, and that the server answered and was closed at the end —
// politely (its stdin ended, which the server itself writes down), not left running. The process is started as its
// shebang line starts it, with a probe of Node's code cache loaded first (tests/helpers/code-cache-probe.ts): the
// same run carries the check of what the command's own process compiles with that cache.
const API = JSON.stringify(fromRoot('harness', 'api', 'index.ts'));
const COMMON = `import { describeEval, type TaskOutput } from ${API};
const answer = (text: string): TaskOutput => ({
  output: text, answer: text, toolCalls: [], messages: [],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 0,
});
const pass = [{ name: 'ok', score: () => true }];
`;

const MODES = `${COMMON}
describeEval.skip('skipped', {
  data: () => { throw new Error('data() of a skipped eval ran'); },
  task: () => answer(''),
  scorers: pass,
});
describeEval.each([{ op: 'add' }, { op: 'mul' }])('calc-$op', (row) => ({
  data: () => [{ id: 'a', input: row.op }],
  task: (input, ctx) => answer(input + ':' + ctx.trial + ':' + ctx.sampling.seed),
  scorers: pass,
  trials: 2,
}));
describeEval('slow', {
  data: () => [{ id: 'hang', input: 'x' }],
  task: () => new Promise<TaskOutput>(() => {}),
  scorers: pass,
  timeout: 300,
});
`;

const SERVER = fromRoot('tests', 'fixtures', 'mcp', 'hostile-server.mjs');
const SERVED = `import { describeEval, mcp, scorers, toolLoop } from ${API};
describeEval('served', {
  data: () => [{ id: 'a', input: 'say hi', expected: 'hi', expectedTools: [{ name: 'echo', arguments: { text: 'hi' } }] }],
  tools: [mcp.fromConfig('hostile')],
  task: toolLoop({ maxTurns: 3 }),
  scorers: [scorers.toolCalls(), scorers.custom('echoed', ({ output }) => output.toolCalls[0]?.result === 'hi')],
});
`;

const ONLY = `${COMMON}
describeEval.only('picked', { data: () => [{ input: 'q' }], task: () => answer('x'), scorers: pass });
describeEval('unpicked', { data: () => [{ input: 'q' }], task: () => answer('x'), scorers: pass });
`;

interface ModesRun {
  dir: string;
  out: string;
  code: number | undefined;
  pidFile: string;
  endFile: string;
  usage: () => CacheUsage;
}

/** The one `toolgauge eval` run both tests below read. */
async function modesRun(): Promise<ModesRun> {
  const dir = tempDir('eval-modes');
  writeFileSync(join(dir, 'modes.eval.ts'), MODES);
  writeFileSync(join(dir, 'only.eval.ts'), ONLY);
  writeFileSync(join(dir, 'served.eval.ts'), SERVED);
  const [pidFile, endFile] = [join(dir, 'pid'), join(dir, 'end')];
  const server = { command: process.execPath, args: [SERVER], env: { PID_FILE: pidFile, END_FILE: endFile } };
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { hostile: server } }));
  const probe = codeCacheProbe(dir);
  const r = await execa(
    'node',
    [
      ...probe.nodeArgs,
      ...shebangNodeFlags(),
      fromRoot('bin', 'toolgauge.mjs'),
      'eval',
      'modes.eval.ts',
      'only.eval.ts',
      'served.eval.ts',
      '--config',
      'mcp.json',
      '--model',
      'sim:oracle',
      '--seed',
      '5',
    ],
    {
      cwd: dir,
      env: cleanEnv({ CI: '', GITHUB_ACTIONS: '', CONTINUOUS_INTEGRATION: '', ...probe.env }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    },
  );
  const out = String(r.stdout) + String(r.stderr);
  return { dir, out, code: r.exitCode, pidFile, endFile, usage: probe.read };
}

describe('describeEval modifiers and per-eval options', () => {
  let run: ModesRun;
  beforeAll(async () => {
    run = await modesRun();
  }, 180_000);

  it('.skip loads nothing, .only skips the rest of its file (leaving its output), .each names one eval per row; trials and timeout are per eval', () => {
    const { dir, out, code, pidFile, endFile } = run;
    // The hanging case fails at its own 300 ms timeout (the run's default is far longer): a harness error.
    expect(code, out).toBe(1);
    expect(out).toContain('slow › hang: Test timed out in 300ms');
    expect(out).not.toContain('data() of a skipped eval ran');
    const results = join(dir, 'results');
    expect(existsSync(join(results, 'skipped'))).toBe(false);
    expect(existsSync(join(results, 'unpicked'))).toBe(false);
    expect(out).toContain('toolgauge: unpicked: every test was skipped; its output is left as it was');
    expect(readJson<{ counts: { runs: number } }>(join(results, 'picked', 'summary.json')).counts.runs).toBe(1);
    for (const op of ['add', 'mul']) {
      const s = readJson<{ header: { trials: number }; counts: Record<string, number> }>(
        join(results, `calc-${op}`, 'summary.json'),
      );
      expect(s.header.trials).toBe(2);
      expect(s.counts).toMatchObject({ instances: 1, runs: 2, passed: 2 });
      const answers = readLines<{ trial: number; trace: string }>(join(results, `calc-${op}`, 'instances.jsonl'))
        .sort((a, b) => a.trial - b.trial)
        .map((m) => readJson<{ output: { answer: string } }>(join(results, `calc-${op}`, m.trace)).output.answer);
      // Trial t is sent the run's seed + t.
      expect(answers).toEqual([`${op}:0:5`, `${op}:1:6`]);
    }
    // The MCP server named in mcp.json answered the call, and the eval's end closed it.
    const served = readJson<{ metrics: Record<string, { value: number }> }>(join(results, 'served', 'summary.json'));
    expect(served.metrics.echoed!.value).toBe(1);
    expect(served.metrics.tool_calls!.value).toBe(1);
    expect(readFileSync(endFile, 'utf8')).toBe('stdin ended');
    expect(() => process.kill(Number(readFileSync(pidFile, 'utf8')), 0)).toThrow();
  });

  it("`toolgauge eval`, started as its shebang line starts it, compiles the Node modules it loads with Node's code cache, and keeps the shebang's young generation", () => {
    expect(shebangNodeFlags()).toContain('--max-semi-space-size=2');
    // What Node loads before the command's first statement runs (its module loader, the standard streams) is
    // compiled without the cache; what the command loads after is not: the simulator's HTTP server and the run's
    // crypto before Vitest, Vite's and Vitest's worker_threads and zlib.
    const u = run.usage();
    expectCached(u, ['http', 'crypto', 'worker_threads', 'zlib']);
    // Two semi-spaces of 2 MiB (V8's default would have grown them to 16 MiB each).
    expect(u.youngMiB).toBeLessThanOrEqual(4);
  });
});

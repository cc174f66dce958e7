import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LATE_V8_FLAGS_KEY } from '../../harness/core/late-v8-flags.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { EVAL_WORKER_EXEC_ARGV } from '../../harness/vitest/eval-project.ts';
import { cleanEnv, tempDir } from '../helpers/cli.ts';

// V8 refuses Node's built-in code cache once any of its flags differs from the values Node was built with; Node
// then compiles each of its own modules loaded after from source. Node's own count of which built-ins were
// compiled with the cache (its internal `builtins` binding, behind --expose-internals, a Node flag and not V8's) is
// the oracle.

const PROBE = `const { internalBinding } = require('internal/test/binding');
const { getHeapSpaceStatistics } = require('node:v8');
process.on('exit', () => {
  // Short-lived objects enough to grow the young generation to its limit.
  const keep = [];
  for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i });
  const u = internalBinding('builtins').getCacheUsage();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({
    withCache: [...u.compiledWithCache], withoutCache: [...u.compiledWithoutCache],
    youngMiB: young.space_size / 2 ** 20, kept: keep.length,
  }));
});
`;

interface Usage {
  withCache: string[];
  withoutCache: string[];
  youngMiB: number;
}

function probeIn(dir: string): { probe: string; out: string; read: () => Usage } {
  const probe = join(dir, 'probe.cjs');
  const out = join(dir, 'usage.json');
  writeFileSync(probe, PROBE);
  return { probe, out, read: () => JSON.parse(readFileSync(out, 'utf8')) as Usage };
}

/** Node modules loaded after the process's first statement: each was compiled with the cache. */
function expectCached(usage: Usage, modules: readonly string[]): void {
  for (const m of modules) {
    expect(usage.withCache, m).toContain(m);
    expect(usage.withoutCache, m).not.toContain(m);
  }
}

describe('the processes a toolgauge run starts', () => {
  it("`toolgauge eval`, started as its shebang line starts it, compiles the Node modules it loads with Node's code cache, and keeps the shebang's young generation", async () => {
    const dir = tempDir('cli-start');
    const { probe, out, read } = probeIn(dir);
    const file = join(dir, 'one.eval.ts');
    writeFileSync(
      file,
      `import { describeEval, scorers, toolLoop } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
describeEval('one', {
  data: async () => [{ id: 'a', input: 'What is 2 plus 3?', expected: '5', expectedTools: [{ name: 'add', arguments: { a: 2, b: 3 } }] }],
  tools: [{ name: 'add', description: 'Add two numbers',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    run: ({ a, b }) => String(a + b) }],
  task: toolLoop({ system: 'Use the tools. End with <answer>…</answer>.', maxTurns: 3 }),
  scorers: [scorers.answerMatches()],
});
`,
    );
    const bin = fromRoot('bin', 'toolgauge.mjs');
    const shebang = readFileSync(bin, 'utf8').split('\n')[0]!;
    const nodeFlags = shebang.slice(shebang.indexOf(' node ') + ' node '.length).split(' ');
    expect(nodeFlags).toContain('--max-semi-space-size=2');
    const args = ['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, 'out')];
    const r = await execa('node', ['--expose-internals', ...nodeFlags, '--require', probe, bin, ...args], {
      env: cleanEnv({ PROBE_OUT: out }),
      extendEnv: false,
      reject: false,
      cwd: dir,
    });
    expect(r.exitCode, String(r.stdout) + String(r.stderr)).toBe(0);
    const usage = read();
    // What Node loads before the command's first statement runs (its module loader, the standard streams) is
    // compiled without the cache; what the command loads after is not: the simulator's HTTP server and the run's
    // crypto before Vitest, Vite's and Vitest's worker_threads and zlib.
    expectCached(usage, ['http', 'crypto', 'worker_threads', 'zlib']);
    // Two semi-spaces of 2 MiB (V8's default would have grown them to 16 MiB each).
    expect(usage.youngMiB).toBeLessThanOrEqual(4);
  });

  it("the eval worker, started with its node flags, compiles the Node modules it loads with Node's code cache, and keeps its young generation", async () => {
    const dir = tempDir('eval-worker-start');
    const { probe, out, read } = probeIn(dir);
    // Vitest's own flags come first and its program after; what a test of the eval worker loads is represented here
    // by the modules a model request and the suite's files load.
    const load = `for (const m of ['node:http', 'node:https', 'node:zlib', 'node:crypto']) require(m);
console.log(JSON.stringify(globalThis[Symbol.for(${JSON.stringify(LATE_V8_FLAGS_KEY)})] ?? null));`;
    const r = await execa('node', ['--expose-internals', ...EVAL_WORKER_EXEC_ARGV, '--require', probe, '-e', load], {
      env: cleanEnv({ PROBE_OUT: out }),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const usage = read();
    expectCached(usage, ['http', 'https', 'zlib', 'crypto']);
    // The old generation's growth is handed over, for the suite to set once its cases are loaded (suite-tests.ts).
    expect(JSON.parse(String(r.stdout))).toEqual(['--heap-growing-percent=50']);
    // Two semi-spaces of 8 MiB, the eval worker's size (V8's default would have grown them to 16 MiB each).
    expect(usage.youngMiB).toBeGreaterThan(4);
    expect(usage.youngMiB).toBeLessThanOrEqual(16);
  });
});

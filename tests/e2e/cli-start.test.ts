import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LATE_V8_FLAGS_KEY } from '../../harness/core/late-v8-flags.ts';
import { EVAL_WORKER_EXEC_ARGV } from '../../harness/vitest/eval-project.ts';
import { cleanEnv, tempDir } from '../helpers/cli.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { codeCacheProbe, expectCached, shebangNodeFlags } from '../helpers/code-cache-probe.ts';

// The processes a toolgauge run starts and Node's built-in code cache (tests/helpers/code-cache-probe.ts). The
// `toolgauge eval` process itself is probed in tests/e2e/describe-eval-modes.test.ts, on that file's run.

describe('the processes a toolgauge run starts', () => {
  it("the eval worker, started with its node flags, compiles the Node modules it loads with Node's code cache, and keeps its young generation", async () => {
    const probe = codeCacheProbe(tempDir('eval-worker-start'));
    // Vitest's own flags come first and its program after; what a test of the eval worker loads is represented here
    // by the modules a model request and the suite's files load.
    const load = `for (const m of ['node:http', 'node:https', 'node:zlib', 'node:crypto']) require(m);
console.log(JSON.stringify(globalThis[Symbol.for(${JSON.stringify(LATE_V8_FLAGS_KEY)})] ?? null));`;
    const r = await execa('node', [...EVAL_WORKER_EXEC_ARGV, ...probe.nodeArgs, '-e', load], {
      env: cleanEnv(probe.env),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const usage = probe.read();
    expectCached(usage, ['http', 'https', 'zlib', 'crypto']);
    // The old generation's growth is handed over, for the suite to set once its cases are loaded (suite-tests.ts).
    expect(JSON.parse(String(r.stdout))).toEqual(['--heap-growing-percent=50']);
    // Two semi-spaces of 8 MiB, the eval worker's size (V8's default would have grown them to 16 MiB each).
    expect(usage.youngMiB).toBeGreaterThan(4);
    expect(usage.youngMiB).toBeLessThanOrEqual(16);
  });

  it("the command's own process, started as its shebang line starts it, loads the CLI's Node modules with Node's code cache", async () => {
    const probe = codeCacheProbe(tempDir('cli-process-start'));
    const r = await execa(
      'node',
      [...probe.nodeArgs, ...shebangNodeFlags(), fromRoot('bin', 'toolgauge.mjs'), '--help'],
      {
        env: cleanEnv(probe.env),
        extendEnv: false,
        reject: false,
      },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    // Loaded by the CLI's modules, after bin/toolgauge.mjs has put the shebang's semi-space size back to V8's default.
    expectCached(probe.read(), ['child_process', 'crypto']);
  });
});

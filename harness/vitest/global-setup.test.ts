import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestProject } from 'vitest/node';
import { tempDir } from '../../tests/helpers/cli.ts';
import { createGlobalSetup } from './global-setup.ts';

// Plain `vitest run` with evalConfig: a bad setting or an endpoint that does not answer, found by the global setup
// before anything runs, is one line and exit code 2, as under `toolgauge eval` (docs/eval.md, "Exit codes").

const project = {
  getProvidedContext: () => ({}),
  provide: () => undefined,
  vitest: { config: { testNamePattern: undefined, reporters: [], shard: undefined } },
} as unknown as TestProject;

class Exited extends Error {}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("the eval global setup's usage errors", () => {
  it.each([
    ['a bad setting', { TOOLGAUGE_TRIALS: 'abc' }, /^TOOLGAUGE_TRIALS: .*'abc'/],
    ['an endpoint that does not answer', { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, /127\.0\.0\.1:9.*ECONNREFUSED/],
  ])('%s: one line, exit code 2', async (_what, env, line) => {
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    vi.stubEnv('TOOLGAUGE_MODEL', 'm');
    vi.stubEnv('TOOLGAUGE_OUT_DIR', tempDir('setup-usage'));
    // the setup marks its run id in the environment: restored after the test
    vi.stubEnv('TOOLGAUGE_RUN_ID', '');
    vi.stubEnv('TOOLGAUGE_RUN_ID_PID', '');
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => {
      throw new Exited();
    });
    let err = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
    await expect(createGlobalSetup([])(project)).rejects.toBeInstanceOf(Exited);
    expect(exit).toHaveBeenCalledWith(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(line);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { parseKitConfig } from './config.ts';
import { adoptPrewarmedSandbox, prewarmSandbox } from './prewarmed-sandbox.ts';
import { createRuntime } from './runtime.ts';
import { sandboxOptionsOf } from './sandbox-options.ts';
import { toolhopSuite } from '../toolhop/suite.ts';

// The CPython backend: what is checked is the hand-over, not the interpreter.
const env = { TOOLGAUGE_SANDBOX: 'python', TOOLGAUGE_MODEL: 'sim:oracle' };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('prewarmed sandbox', () => {
  it('the process runtime adopts the pool a setup file started, once, and starts no second one', async () => {
    const run = { ...readConfig(env), sandbox: { ...readConfig(env).sandbox, poolSize: 1, toolTimeoutMs: 4321 } };
    const started = prewarmSandbox(sandboxOptionsOf(run));
    expect(started).toBeDefined();
    expect(prewarmSandbox(sandboxOptionsOf(run))).toBeUndefined(); // the setup file runs before every test file
    const rt = createRuntime(run, 'http://127.0.0.1:1', { adoptPrewarmed: true });
    closers.push(() => rt.close());
    const sb = rt.sandbox();
    expect(sb).toBe(started);
    await sb.warm();
    expect(sb.stats().starts).toBe(1);
    // Handed over once: a second runtime gets a pool of its own.
    expect(adoptPrewarmedSandbox(run)).toBeUndefined();
    const other = createRuntime(run, 'http://127.0.0.1:1', { adoptPrewarmed: true });
    closers.push(() => other.close());
    expect(other.sandbox()).not.toBe(sb);
    expect(other.sandbox().stats().starts).toBe(0);
  });

  it('a pool started for other options is not adopted', async () => {
    const run = { ...readConfig(env), sandbox: { ...readConfig(env).sandbox, toolTimeoutMs: 1234 } };
    prewarmSandbox(sandboxOptionsOf({ ...run, sandbox: { ...run.sandbox, toolTimeoutMs: 999 } }));
    const stray = adoptPrewarmedSandbox({ ...run, sandbox: { ...run.sandbox, toolTimeoutMs: 999 } });
    closers.push(async () => stray?.close());
    const started = prewarmSandbox(sandboxOptionsOf({ ...run, sandbox: { ...run.sandbox, toolTimeoutMs: 998 } }));
    expect(adoptPrewarmedSandbox(run)).toBeUndefined();
    const again = adoptPrewarmedSandbox({ ...run, sandbox: { ...run.sandbox, toolTimeoutMs: 998 } });
    closers.push(async () => again?.close());
    expect(again).toBe(started);
  });

  it('only a run that will execute dataset tools asks for a prewarmed sandbox', () => {
    const ask = (e: Record<string, string>) => parseKitConfig({ ...env, ...e }, [toolhopSuite]).prewarmSandbox;
    expect(ask({ TOOLHOP_ALLOW_DATASET_EXEC: '1' })).toBe(true);
    expect(ask({})).toBe(false);
    expect(ask({ TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLHOP_LIMIT: '0' })).toBe(false);
    expect(ask({ TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLHOP_LIMIT: '0', TOOLHOP_ONLY: '3' })).toBe(true);
    expect(parseKitConfig({ ...env, TOOLHOP_ALLOW_DATASET_EXEC: '1' }, []).prewarmSandbox).toBe(false);
  });
});

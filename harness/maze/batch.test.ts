// The batch's own logic with a stand-in for the single-model run (no Vitest run): what counts as a failed model,
// the one retry with --resume, what each run is given, and that each run's environment is its own.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.ts';
import { batchEntries, parallelModels, runMazeBatch, withoutFlags } from './batch.ts';

const root = mkdtempSync(join(tmpdir(), 'tg-maze-batch-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const flag = (argv: string[], f: string) => argv[argv.indexOf(f) + 1];
const meta = (task: string, mode: string, pass: boolean, trial = 0) => ({
  suite: 'maze',
  id: `${task}:${mode}`,
  trial,
  error: null,
  task_id: task,
  complexity: 'c1',
  mode,
  pass,
  hit: true,
  rc: 0,
  recovery: 'none',
  failure_reason: null,
  c_act: 0,
  c_oracle: 0,
  turns: 1,
  tool_calls: 1,
});

/** What a run leaves: summary.json with the harness-error count, and its journal. */
function leave(dir: string, errors: number, metas: object[]) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'summary.json'),
    JSON.stringify({ counts: { runs: metas.length, errors }, gate: null, notice: 'SIMULATOR' }),
  );
  writeFileSync(join(dir, 'instances.jsonl'), metas.map((m) => JSON.stringify(m)).join('\n') + '\n');
}

async function quiet<T>(fn: () => Promise<T>): Promise<T> {
  const w = { o: process.stdout.write, e: process.stderr.write };
  process.stdout.write = (() => true) as never;
  process.stderr.write = (() => true) as never;
  try {
    return await fn();
  } finally {
    process.stdout.write = w.o;
    process.stderr.write = w.e;
  }
}

describe('maze batch', () => {
  it('retries a model with harness errors once with --resume; a second failure is FAILED and not compared, a retry that succeeds is complete', async () => {
    const out = join(root, 'a');
    const calls: string[][] = [];
    const code = await quiet(() =>
      runMazeBatch(
        ['--models', 'good,flaky,broken,also-good', '--modes', 'P0', '--out-dir', out, '--parallel-models', '1'],
        async (argv) => {
          calls.push(argv);
          const model = flag(argv, '--model')!;
          const dir = flag(argv, '--out-dir')!;
          const resumed = argv.includes('--resume');
          if (model === 'broken') leave(dir, 2, [meta('T1', 'P0', false), meta('T2', 'P0', false)]);
          else if (model === 'flaky' && !resumed) leave(dir, 1, [meta('T1', 'P0', true)]);
          else leave(dir, 0, [meta('T1', 'P0', model !== 'also-good'), meta('T2', 'P0', true)]);
          return 0;
        },
      ),
    );
    expect(code).toBe(1);
    expect(calls.map((a) => `${flag(a, '--model')}${a.includes('--resume') ? '+resume' : ''}`)).toEqual([
      'good',
      'flaky',
      'flaky+resume',
      'broken',
      'broken+resume',
      'also-good',
    ]);
    expect(calls.every((a) => !a.includes('--models'))).toBe(true);
    expect(flag(calls[0]!, '--out-dir')).toBe(join(out, 'good', 'fc'));
    const batch = JSON.parse(
      (await import('node:fs')).readFileSync(join(out, 'reports', 'maze_batch_fc.json'), 'utf8'),
    );
    expect(
      batch.models.map(
        (m: { label: string; status: string; attempts: number }) => `${m.label}:${m.status}:${m.attempts}`,
      ),
    ).toEqual(['good:complete:1', 'flaky:complete:2', 'broken:failed:2', 'also-good:complete:1']);
    expect(batch.models[2].reason).toBe('2 of 2 runs ended in a harness error');
    const pairs = batch.comparison.pairs.map((p: { a: string; b: string }) => `${p.a}>${p.b}`);
    expect(pairs).toEqual(['good>flaky', 'good>also-good', 'flaky>also-good']);
  });

  it("an endpoint that fails the pre-run check is the model's failure; any other usage error stops the batch", async () => {
    const out = join(root, 'b');
    const code = await quiet(() =>
      runMazeBatch(['--models', 'up,down', '--out-dir', out], async (argv) => {
        if (flag(argv, '--model') === 'down')
          throw new UsageError('toolgauge maze: endpoint http://127.0.0.1:9/v1 is not usable: ECONNREFUSED');
        leave(flag(argv, '--out-dir')!, 0, [meta('T1', 'P0', true)]);
        return 0;
      }),
    );
    expect(code).toBe(1);
    await expect(
      quiet(() =>
        runMazeBatch(['--models', 'x,y', '--out-dir', join(root, 'c')], async () => {
          throw new UsageError('toolgauge maze: --gate: bad expression');
        }),
      ),
    ).rejects.toThrow(/--gate/);
  });

  it("gives each run its lineup entry's base URL and key, and restores the environment after it", async () => {
    const lineup = join(root, 'lineup.yaml');
    writeFileSync(
      lineup,
      'models:\n  - { label: a, model: m-a, base_url: "http://127.0.0.1:1/v1", api_key_env: A_API_KEY }\n  - { label: b, model: m-b }\n',
    );
    const seen: Array<{ url: string | undefined; key: string | undefined }> = [];
    const env: NodeJS.ProcessEnv = { OPENAI_API_KEY: 'user-key', A_API_KEY: 'a-key' };
    await quiet(() =>
      runMazeBatch(
        ['--lineup', lineup, '--base-url', 'http://127.0.0.1:2/v1', '--out-dir', join(root, 'd')],
        async (argv, runEnv) => {
          seen.push({ url: flag(argv, '--base-url'), key: runEnv.OPENAI_API_KEY });
          runEnv.TOOLGAUGE_LEFTOVER = 'x';
          leave(flag(argv, '--out-dir')!, 0, [meta('T1', 'P0', true)]);
          return 0;
        },
        env,
      ),
    );
    expect(seen).toEqual([
      { url: 'http://127.0.0.1:1/v1', key: 'a-key' },
      { url: 'http://127.0.0.1:2/v1', key: 'user-key' },
    ]);
    // each run had a copy: the batch's environment is as it was
    expect(env).toEqual({ OPENAI_API_KEY: 'user-key', A_API_KEY: 'a-key' });
  });

  it('refuses --model with a batch, --models with --lineup, and two models sharing a folder', () => {
    expect(() => batchEntries(['--models', 'a,b', '--model', 'c'], {})).toThrow(/--model names one model/);
    expect(() => batchEntries(['--models', 'a', '--lineup', 'x.yaml'], {})).toThrow(/not both/);
    expect(() => batchEntries(['--models', 'org/m,org_m'], {})).toThrow(/share the folder org_m/);
    expect(withoutFlags(['--models=a,b', '--modes', 'P0', '--lineup', 'f'], ['--models', '--lineup'])).toEqual([
      '--modes',
      'P0',
    ]);
  });

  it('runs --parallel-models models at once (default: the run concurrency), each its own summary, in the batch order', async () => {
    const inFlight = async (extra: string[]) => {
      let now = 0;
      let most = 0;
      const out = join(root, `p${extra.join('')}`);
      await quiet(() =>
        runMazeBatch(['--models', 'm1,m2,m3', '--modes', 'P0', '--out-dir', out, ...extra], async (argv) => {
          now++;
          most = Math.max(most, now);
          // Every run waits for the others to start before it ends, so runs allowed to overlap do.
          await new Promise((r) => setTimeout(r, 20));
          const model = flag(argv, '--model')!;
          leave(flag(argv, '--out-dir')!, 0, [meta('T1', 'P0', model !== 'm2')]);
          now--;
          return 0;
        }),
      );
      const batch = JSON.parse(readFileSync(join(out, 'reports', 'maze_batch_fc.json'), 'utf8')) as {
        models: Array<{ label: string; status: string; runs: number }>;
      };
      expect(batch.models.map((m) => [m.label, m.status, m.runs])).toEqual([
        ['m1', 'complete', 1],
        ['m2', 'complete', 1],
        ['m3', 'complete', 1],
      ]);
      return most;
    };
    expect(await inFlight(['--parallel-models', '2'])).toBe(2);
    expect(await inFlight(['--parallel-models', '1'])).toBe(1);
    expect(await inFlight([])).toBe(3);
    expect(parallelModels(['--concurrency', '2'], {}, 5)).toBe(2);
    expect(parallelModels([], { TOOLGAUGE_CONCURRENCY: '8' }, 3)).toBe(3);
    expect(() => parallelModels(['--parallel-models', '0'], {}, 3)).toThrow(
      "toolgauge maze: --parallel-models must be a whole number >= 1 (got '0')",
    );
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BUNDLED_SAMPLE, loadDatasetFile } from '../../toolhop/dataset.ts';
import { goldSandbox } from '../../toolhop/gold-sandbox.ts';
import { runOptimize } from '../../optimize/run.ts';
import { readJson, spawnToolgauge, tempDir, toolgauge } from '../../../tests/helpers/cli.ts';
import { main } from '../main.ts';
import { optimizeRequest } from './optimize.ts';

const ENV = { TOOLHOP_ALLOW_DATASET_EXEC: '1' };
const BASE = [
  '--method',
  'gepa',
  '--model',
  'sim:trait',
  '--reflection-model',
  'sim:reflect',
  '--train-size',
  '5',
  '--val-size',
  '6',
  '--budget',
  '60',
  '--out',
  '/tmp/x',
  '--allow-eval-ids',
];
const without = (flag: string) => {
  const i = BASE.indexOf(flag);
  return [...BASE.slice(0, i), ...BASE.slice(i + 2)];
};

describe('toolgauge optimize flags', () => {
  it('the seed command runs as written: the task model reflects, and sizes, budget and folder have defaults', () => {
    const r = optimizeRequest(
      ['--method', 'gepa', '--topology', 'centralized', '--model', 'qwen', '--base-url', 'http://127.0.0.1:9/v1'],
      ENV,
    );
    expect(r.reflection).toMatchObject({ model: 'qwen', baseUrl: undefined });
    expect(r.run.baseUrl).toBe('http://127.0.0.1:9/v1');
    expect([r.trainSize, r.valSize, r.budget]).toEqual([30, 30, 600]);
    expect(r.out).toBe(join('results', 'optimize', 'centralized_toolhop_gepa'));
    // The budget follows a smaller validation set; explicit values win.
    expect(
      optimizeRequest(
        ['--method', 'mipro', '--model', 'sim:trait', '--reflection-model', 'sim:reflect', '--val-size', '10'],
        ENV,
      ),
    ).toMatchObject({ valSize: 10, budget: 200, out: join('results', 'optimize', 'single_toolhop_mipro') });
  });

  it("refuses a cell outside the method's part of the reference's grid in one line unless --allow-any-cell", () => {
    // On ToolHop the grid holds each topology at its baseline team (r = 4, freeform): cells.py of the reference.
    for (const cell of [
      ['--topology', 'independent', '--agents', '8'],
      ['--topology', 'centralized', '--agents', '7'],
      ['--topology', 'decentralized', '--rounds', '3'],
      ['--topology', 'sequential', '--comm', 'structured'],
    ]) {
      expect(() => optimizeRequest([...BASE, ...cell], ENV)).toThrow(
        /^toolgauge optimize: .* is outside gepa's part of the reference's experiment grid on ToolHop: .*; pass --allow-any-cell to run it as a non-conformant job$/,
      );
      expect(optimizeRequest([...BASE, ...cell, '--allow-any-cell'], ENV).allowAnyCell).toBe(true);
    }
    for (const cell of [
      ['--topology', 'single'],
      ['--topology', 'independent', '--agents', '4'],
      ['--topology', 'centralized', '--agents', '3'],
      ['--topology', 'decentralized'],
    ])
      expect(optimizeRequest([...BASE, ...cell], ENV).allowAnyCell).toBe(false);
  });

  it('map onto the run, the suite settings and the search', () => {
    const r = optimizeRequest(
      [
        ...BASE,
        '--topology',
        'centralized',
        '--agents',
        '2',
        '--allow-any-cell',
        '--seed',
        '7',
        '--minibatch',
        '4',
        '--no-merge',
        '--heldout',
        '30',
        '--prompts',
        BUNDLED_SAMPLE.replace(/sample\.json$/, ''),
      ],
      ENV,
    );
    expect(r.method).toBe('gepa');
    expect(r.settings.topology).toBe('centralized');
    expect(r.settings.teamSize).toBe(2);
    expect(r.settings.allowDatasetExec).toBe(true);
    expect(r.run.model).toBe('sim:trait');
    expect(r.run.seed).toBe(7);
    expect(r.seed).toBe(7);
    expect(r.gepa).toEqual({ minibatch: 4, merge: false });
    expect(r.heldout).toBe(30);
    expect(r.reflection.model).toBe('sim:reflect');
    expect(r.allowEvalIds).toBe(true);
  });

  it.each([
    [without('--method'), /--method gepa\|mipro is required/],
    [[...without('--method'), '--method', 'tpe'], /--method must be one of gepa\|mipro \(got 'tpe'\)/],
    [without('--reflection-model'), /--reflection-model \(default: --model\) sim:trait cannot reflect/],
    [
      [...without('--budget'), '--budget', '5'],
      /--budget 5 does not cover the seed's validation \(--val-size 6 rollouts\)/,
    ],
    [[...without('--budget'), '--budget', 'lots'], /--budget must be a number/],
    [
      [...without('--reflection-model'), '--reflection-model', 'sim:oracle'],
      /sim:oracle cannot reflect; the simulated reflection model is sim:reflect/,
    ],
    [[...without('--model'), '--model', 'sim:reflect'], /sim:reflect is a reflection model/],
    [[...without('--reflection-model'), '--reflection-model', 'qwen3'], /--reflection-model 'qwen3' needs an endpoint/],
    [[...without('--model'), '--model', 'qwen3'], /TOOLGAUGE_MODEL 'qwen3' needs an endpoint/],
    [[...BASE, '--num-trials', '3'], /MIPRO settings/],
    [[...BASE, '--agents', '3'], /team settings need a team topology/],
    [[...BASE, '--prompts', '/no/such/dir'], /--prompts '\/no\/such\/dir' does not exist/],
    [[...BASE, '--topology', 'star'], /--topology must be one of single\|independent/],
    [[...BASE, '--bogus'], /unknown flag '--bogus'/],
  ])('%j is refused in one line', (argv, message) => {
    expect(() => optimizeRequest(argv as string[], ENV)).toThrow(message);
  });

  it('a bad flag exits 2 with one line; running without TOOLHOP_ALLOW_DATASET_EXEC is refused the same way', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['optimize', ...without('--method')])).toBe(2);
      const saved = process.env.TOOLHOP_ALLOW_DATASET_EXEC;
      delete process.env.TOOLHOP_ALLOW_DATASET_EXEC;
      try {
        expect(await main(['optimize', ...BASE])).toBe(2);
      } finally {
        if (saved !== undefined) process.env.TOOLHOP_ALLOW_DATASET_EXEC = saved;
      }
      const lines = err.mock.calls.map((c) => String(c[0]));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^toolgauge optimize: --method gepa\|mipro is required\n$/);
      expect(lines[1]).toMatch(
        /^toolgauge optimize: every rollout runs the dataset's Python tools; set TOOLHOP_ALLOW_DATASET_EXEC=1/,
      );
    } finally {
      err.mockRestore();
    }
  });
});

const rolloutLines = (log: string) =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"rollout"'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { key: string; error: string | null }];
      } catch {
        return [];
      }
    });

describe('toolgauge optimize, killed and resumed (a real process, SIGKILL)', () => {
  it('resumes from the log with no lost or duplicated rollouts, and ends where an uninterrupted run ends', async () => {
    const out = tempDir('optimize-kill');
    // A little latency per request, so the kill lands mid-search.
    const flags = [
      ...without('--out').map((a) => (a === 'sim:trait' ? 'sim:trait?latency_ms=15' : a)),
      '--out',
      out,
      '--seed',
      '3',
      '--concurrency',
      '2',
    ];
    const args = ['optimize', ...flags, '--sandbox', 'python'];
    const child = spawnToolgauge(args, ENV);
    const log = join(out, 'log.jsonl');
    const deadline = Date.now() + 90_000;
    while ((!existsSync(log) || rolloutLines(log).length < 14) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, 'SIGKILL');
    await child;
    const before = rolloutLines(log).filter((l) => l.error === null).length;
    expect(before).toBeGreaterThanOrEqual(14);

    const r = await toolgauge([...args, '--resume'], ENV);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const keys = rolloutLines(log).map((l) => l.key);
    expect(new Set(keys).size, 'no rollout logged twice').toBe(keys.length);
    const s = readJson<{
      spent: number;
      budget: number;
      replayed_rollouts: number;
      resumed: boolean;
      best: string;
      candidates: Array<{ id: string }>;
    }>(join(out, 'summary.json'));
    expect(s.resumed).toBe(true);
    expect(s.replayed_rollouts).toBe(before);
    expect(s.spent).toBe(keys.length);
    expect(before, 'the kill landed mid-search').toBeLessThan(s.spent);
    expect(s.spent).toBeLessThanOrEqual(s.budget);

    // The same search without a kill (in process; the fixture's scores do not depend on the tools' results).
    const rows = new Map(
      loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])),
    );
    const whole = await runOptimize(
      optimizeRequest(
        [...without('--out'), '--out', tempDir('optimize-whole'), '--seed', '3', '--concurrency', '2'],
        ENV,
      ),
      { sandbox: () => goldSandbox((id) => rows.get(id)), durableLog: false },
    );
    expect(s.spent).toBe(whole.summary.spent);
    expect(s.best).toBe(whole.summary.best);
    expect(s.candidates.map((c) => c.id)).toEqual(whole.summary.candidates.map((c) => c.id));
    expect(readFileSync(join(out, 'best', 'single', 'solver.txt'), 'utf8').trim()).toBe(whole.best.prompts.solver);
  });
});

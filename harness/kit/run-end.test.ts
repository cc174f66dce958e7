import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import type { RunPlan } from './plan.ts';
import { appendJournal } from './journal.ts';
import { acquireDirLock, LOCK_FILE } from './lock.ts';
import { endRun, type EndedModule } from './run-end.ts';
import type { InstanceMetaBase } from './types.ts';

const root = mkdtempSync(join(tmpdir(), 'tg-runend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const times = { startedAt: new Date(0), endedAt: new Date(1), interrupted: false, unhandled: [] as string[] };
const kit = (outDir: string, env: Record<string, string> = {}, filter: string | null = null): RunPlan => ({
  runId: 'r',
  run: readConfig({ TOOLGAUGE_OUT_DIR: outDir, ...env }),
  suites: {},
  simUrl: undefined,
  filter,
  sharded: true,
  prewarmSandbox: false,
  vitest: { maxConcurrency: 4, testTimeout: 1_800_000, hookTimeout: 600_000 },
});
const meta = (suite: string, id: string, pass: boolean, error: string | null = null): InstanceMetaBase => ({
  suite,
  id,
  trial: 0,
  error,
  pass,
});
const mod = (file: string, metas: InstanceMetaBase[], errors: EndedModule['errors'] = []): EndedModule => ({
  file,
  errors,
  tests: metas.map((m) => ({
    name: `${m.suite} › ${m.id}`,
    state: m.pass ? 'passed' : 'failed',
    meta: m,
    ident: undefined,
    error: undefined,
  })),
});

describe('the end of an eval run', () => {
  it('finalizes a suite it has never seen with the generic aggregation; without a gate, plain Vitest keeps its own exit code', () => {
    const out = join(root, 'plain');
    const end = endRun([mod('my.eval.ts', [meta('mine', 'a', true), meta('mine', 'b', false)])], kit(out), {
      ...times,
      cli: false,
    });
    expect(end.exitCode).toBeUndefined();
    expect(end.suites.map((s) => s.suite)).toEqual(['mine']);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      metrics: { pass_rate: { value: number; n: number } };
    };
    expect(summary.metrics.pass_rate).toMatchObject({ value: 0.5, n: 2 });
  });

  it('with a gate the gate and harness errors decide; under the CLI harness errors decide', () => {
    const pass = [mod('x.eval.ts', [meta('mine', 'a', true), meta('mine', 'b', true)])];
    const withError = [mod('x.eval.ts', [meta('mine', 'a', true), meta('mine', 'b', false, 'endpoint down')])];
    expect(
      endRun(pass, kit(join(root, 'g1'), { TOOLGAUGE_GATE: 'pass_rate>=1' }), { ...times, cli: false }).exitCode,
    ).toBe(0);
    expect(
      endRun(pass, kit(join(root, 'g2'), { TOOLGAUGE_GATE: 'pass_rate>=1.5' }), { ...times, cli: false }).exitCode,
    ).toBe(1);
    expect(
      endRun(withError, kit(join(root, 'g3'), { TOOLGAUGE_GATE: 'pass_rate>=0' }), { ...times, cli: false }).exitCode,
    ).toBe(1);
    expect(endRun(withError, kit(join(root, 'g4')), { ...times, cli: true }).exitCode).toBe(1);
    expect(
      endRun([mod('x.eval.ts', [meta('mine', 'a', false)])], kit(join(root, 'g5')), { ...times, cli: true }).exitCode,
    ).toBe(0);
  });

  it('a usage error while collecting exits 2; a file that failed to load is a harness error; an empty run fails', () => {
    const usage = endRun(
      [mod('x.eval.ts', [], [{ name: 'GateSyntaxError', message: "gate clause 'x>=1' names metric 'x'" }])],
      kit(join(root, 'u')),
      { ...times, cli: true },
    );
    expect(usage.exitCode).toBe(2);
    const broken = endRun(
      [
        mod('x.eval.ts', [meta('mine', 'a', true)]),
        mod('y.eval.ts', [], [{ name: 'Error', message: 'cannot load data' }]),
      ],
      kit(join(root, 'b')),
      { ...times, cli: true },
    );
    expect(broken.exitCode).toBe(1);
    expect(broken.suites[0]!.errors).toEqual(['y.eval.ts: cannot load data']);
    // The parts of a suite that all fail to load the same data: the error once, the other files counted.
    const data = { name: 'DataError', message: 'd.json: row 2: field q: expected string' };
    const parts = endRun(
      ['p1', 'p2', 'p3']
        .map((p) => mod(`${p}.eval.ts`, [], [data]))
        .concat(mod('p4.eval.ts', [], [{ name: 'Error', message: 'other' }])),
      kit(join(root, 'parts')),
      { ...times, cli: true },
    );
    expect(parts.messages.filter((m) => m.includes('eval.ts'))).toEqual([
      'toolgauge: p1.eval.ts and 2 more files: d.json: row 2: field q: expected string',
      'toolgauge: p4.eval.ts: other',
    ]);
    const empty = endRun([mod('x.eval.ts', [])], kit(join(root, 'e'), { TOOLGAUGE_GATE: 'pass_rate>=0' }), {
      ...times,
      cli: false,
    });
    expect(empty.exitCode).toBe(1);
  });

  it('an error every eval of the run meets (a refusal of the run, in each file and block) is said once; others each', () => {
    const refusal = {
      name: 'UsageError',
      message: "describeEval: the eval 'e' is defined in a.eval.ts and in b.eval.ts",
    };
    const end = endRun(
      [
        mod('a.eval.ts', [], [refusal, refusal]),
        mod('b.eval.ts', [], [refusal, { name: 'UsageError', message: 'bad setting' }]),
      ],
      kit(join(root, 'once')),
      { ...times, cli: true },
    );
    expect([end.exitCode, end.messages]).toEqual([
      2,
      [`toolgauge: a.eval.ts and 1 more file: ${refusal.message}`, 'toolgauge: b.eval.ts: bad setting'],
    ]);
  });

  it('an eval whose data has no cases fails under the CLI and under plain Vitest alike (no test failed there)', () => {
    const emptyData = (out: string): EndedModule => ({
      file: 'x.eval.ts',
      errors: [],
      // describeEval's placeholder for a block without instances: skipped, with the block's identity
      tests: [
        {
          name: 'mine › (no instances in part 1/1)',
          state: 'skipped',
          meta: undefined,
          ident: { suite: 'mine', title: 'Mine', dataset: null, outDir: out, instances: 0 },
          error: undefined,
        },
      ],
    });
    for (const cli of [true, false]) {
      const out = join(root, `empty-data-${cli}`);
      const end = endRun([emptyData(out)], kit(out), { ...times, cli });
      expect(end.exitCode, `cli: ${cli}`).toBe(1);
      expect(end.suites[0]!.errors).toEqual(['no case ran: the data has no cases']);
    }
  });

  it('the directory lock is given back on every way out: a usage error while collecting, a refused suite, a normal end', () => {
    const ended = (out: string, m: EndedModule[]) => {
      acquireDirLock(out, 'r');
      expect(existsSync(join(out, LOCK_FILE))).toBe(true);
      return endRun(m, kit(out), { ...times, cli: false });
    };
    // One file ran instances (and took the lock), another failed to collect with a usage error: the run stops early.
    const usage = join(root, 'lock-usage');
    expect(
      ended(usage, [
        mod('a.eval.ts', [meta('mine', 'a', true)]),
        mod('b.eval.ts', [], [{ name: 'UsageError', message: 'bad setting' }]),
      ]).exitCode,
    ).toBe(2);
    expect(existsSync(join(usage, LOCK_FILE))).toBe(false);
    const refusedDir = join(root, 'lock-refused');
    const refusal = mod('a.eval.ts', [meta('mine', 'a', true)]);
    refusal.tests.push({
      name: 'mine › b',
      state: 'failed',
      meta: undefined,
      ident: { suite: 'mine', title: 'Mine', dataset: null, outDir: refusedDir },
      error: 'journal refused',
      errorName: 'JournalRefused',
    });
    expect(ended(refusedDir, [refusal]).exitCode).toBe(2);
    expect(existsSync(join(refusedDir, LOCK_FILE))).toBe(false);
    const normal = join(root, 'lock-normal');
    ended(normal, [mod('a.eval.ts', [meta('mine', 'a', true)])]);
    expect(existsSync(join(normal, LOCK_FILE))).toBe(false);
  });

  it('instances collected but never reported (a test worker that died) are taken from the journal when they finished, else counted with the cause; the run fails', () => {
    /** Instance a reported; b, c and d collected but never reported; e skipped by a filter. */
    const killed = (outDir: string): EndedModule => {
      const ident = { suite: 'mine', title: 'Mine', dataset: null, outDir };
      const m = mod('x.eval.ts', [meta('mine', 'a', true)]);
      m.tests = [
        { ...m.tests[0]!, ident, instance: { id: 'a', trial: 0 } },
        ...['b', 'c', 'd'].map((id) => ({
          name: `mine › ${id}`,
          state: 'pending' as const,
          meta: undefined,
          ident,
          instance: { id, trial: 0 },
          error: undefined,
        })),
        {
          name: 'mine › e',
          state: 'skipped' as const,
          meta: undefined,
          ident,
          instance: { id: 'e', trial: 0 },
          error: undefined,
        },
      ];
      return m;
    };
    const out = join(root, 'died');
    // b finished (its files and journal line written) but the worker died before Vitest heard of it.
    appendJournal(out, meta('mine', 'b', false));
    const end = endRun([killed(out)], kit(out), {
      ...times,
      unhandled: ['Worker forks emitted error.: Worker exited unexpectedly'],
      cli: true,
    });
    expect(end.exitCode).toBe(1);
    const errors = end.suites[0]!.errors;
    expect(errors).toContain(
      '2 of 4 instances did not run (the run ended with an error: Worker forks emitted error.: Worker exited unexpectedly)',
    );
    expect(errors).toContain('Vitest: Worker forks emitted error.: Worker exited unexpectedly');
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      metrics: { pass_rate: { value: number; n: number } };
      extra: { collection_errors: string[] };
    };
    expect(summary.metrics.pass_rate).toMatchObject({ value: 0.5, n: 2 });
    expect(summary.extra.collection_errors).toEqual(errors);
    // The rewritten journal keeps b, so --resume does not run it again.
    expect(
      readFileSync(join(out, 'instances.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['a', 'b']);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    const notice = report.indexOf('harness errors outside the scored instances');
    expect(notice).toBeGreaterThan(0);
    expect(notice).toBeLessThan(report.indexOf('pass_rate'));
    expect(report).toContain('2 of 4 instances did not run');

    const ctrlC = join(root, 'ctrl-c');
    const interrupted = endRun([killed(ctrlC)], kit(ctrlC), { ...times, interrupted: true, cli: true });
    expect(interrupted.suites[0]!.errors).toEqual(['3 of 4 instances did not run (the run was interrupted)']);
    // A run where every collected instance finished reports none of this.
    const whole = endRun([mod('x.eval.ts', [meta('mine', 'a', true)])], kit(join(root, 'whole')), {
      ...times,
      cli: true,
    });
    expect(whole.suites[0]!.errors).toEqual([]);
    expect(readFileSync(join(root, 'whole', 'report.md'), 'utf8')).not.toContain('outside the scored instances');
  });

  it('a filtered re-run reports the journal’s finished instances with the re-run ones replacing theirs', () => {
    const out = join(root, 'filtered');
    for (const m of [meta('mine', 'a', true), meta('mine', 'b', false), meta('mine', 'c', true)]) appendJournal(out, m);
    const end = endRun([mod('x.eval.ts', [meta('mine', 'b', true)])], kit(out, {}, 'mine › b'), {
      ...times,
      cli: true,
    });
    expect(end.suites[0]!.finalized.summary.metrics.pass_rate).toMatchObject({ value: 1, n: 3 });
  });
});

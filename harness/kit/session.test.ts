import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import type { RunPlan } from './plan.ts';
import { genericAggregator, type ScoredMeta } from './generic.ts';
import { JOURNAL, readJournal } from './journal.ts';
import { releaseDirLock } from './lock.ts';
import { tracePath } from './names.ts';
import type { Runtime } from './runtime.ts';
import { SuiteSession } from './session.ts';
import type { SuiteDefinition } from './types.ts';

// A suite whose instances are numbers: an instance passes when it is even, throws when it is 13, and errors
// (harness error, e.g. an endpoint down) when it is 7 and the endpoint is down.
type Inst = { id: string; n: number };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(outDir: string, runs: string[], endpoint = { down: true }) {
  const def: SuiteDefinition<Inst, ScoredMeta, null> = {
    name: 'nums',
    title: 'Nums',
    settings: () => null,
    outDir: () => outDir,
    outputs: ['rows.jsonl'],
    recordFiles: ['rows.jsonl'],
    load: () => ({ instances: [], dataset: null }),
    testName: (i) => `nums › ${i.id}`,
    async run(i, ctx) {
      runs.push(`${i.id}/${ctx.trial}`);
      if (i.n === 13) throw new Error('unlucky');
      const error = i.n === 7 && endpoint.down ? 'endpoint down' : null;
      const trace = ctx.tracePath(i.id, ctx.trial);
      return {
        meta: { suite: 'nums', id: i.id, trial: ctx.trial, error, pass: !error && i.n % 2 === 0, trace },
        records: { 'rows.jsonl': { id: i.id, trial: ctx.trial, n: i.n } },
        files: { [trace]: JSON.stringify({ n: i.n }) },
      };
    },
    failed: (i, trial, message) => ({ suite: 'nums', id: i.id, trial, error: message, pass: false }),
    verdict: (m) => ({ pass: m.pass, message: m.reason ?? '', summary: '' }),
    aggregator: genericAggregator,
    config: () => ({}),
    metricNames: () => ['pass_rate'],
  };
  return def;
}

const runtime: Runtime = {
  client: () => {
    throw new Error('no client');
  },
  sandbox: () => {
    throw new Error('no sandbox');
  },
  close: async () => undefined,
};
const kit = (runId: string, env: Record<string, string> = {}, filter: string | null = null): RunPlan => ({
  runId,
  run: readConfig(env),
  suites: {},
  simUrl: undefined,
  filter,
  sharded: true,
  prewarmSandbox: false,
  vitest: { maxConcurrency: 4, testTimeout: 1_800_000, hookTimeout: 600_000 },
});
const insts: Inst[] = [2, 3, 7, 13].map((n) => ({ id: String(n), n }));

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-session-'));
  dirs.push(d);
  return d;
}

describe('SuiteSession', () => {
  it('writes files, then record lines, then the journal; an exception becomes an errored instance, not a gap', async () => {
    const out = tmp();
    const runs: string[] = [];
    const s = new SuiteSession(setup(out, runs), kit('r1'), null, runtime, insts);
    const results = await Promise.all(insts.map((i) => s.runOne(i, 0)));
    expect(results.map((r) => [r.meta.id, r.meta.pass, r.meta.error])).toEqual([
      ['2', true, null],
      ['3', false, null],
      ['7', false, 'endpoint down'],
      ['13', false, 'Error: unlucky'],
    ]);
    expect(results.map((r) => r.meta.order)).toEqual([0, 1, 2, 3]);
    const journal = readJournal(out);
    expect([...journal.values()].map((m) => m.id).sort()).toEqual(['13', '2', '3', '7']);
    expect(JSON.parse(readFileSync(join(out, tracePath('2', 0)), 'utf8'))).toEqual({ n: 2 });
    // The failed instance has no record line (its run produced none), but it is in the journal as an error.
    expect(readFileSync(join(out, 'rows.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('does not touch the output directory until the first instance runs', () => {
    const out = join(tmp(), 'out');
    new SuiteSession(setup(out, []), kit('r1'), null, runtime, insts);
    expect(existsSync(out)).toBe(false);
  });

  it('a fresh run empties only the files this suite writes', async () => {
    const out = tmp();
    writeFileSync(join(out, 'keep.txt'), 'mine');
    mkdirSync(join(out, 'notes'));
    writeFileSync(join(out, 'rows.jsonl'), '{"id":"old"}\n');
    writeFileSync(join(out, JOURNAL), '{"suite":"nums","id":"old","trial":0,"error":null,"pass":true}\n');
    const s = new SuiteSession(setup(out, []), kit('r2'), null, runtime, insts);
    await s.runOne(insts[0]!, 0);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(out, 'notes'))).toBe(true);
    expect(readFileSync(join(out, 'rows.jsonl'), 'utf8')).not.toContain('old');
    expect([...readJournal(out).keys()]).toHaveLength(1);
  });

  it('--resume skips instances finished without error, runs errored ones again, and tidies record files', async () => {
    const out = tmp();
    const first: string[] = [];
    const a = new SuiteSession(setup(out, first), kit('r1'), null, runtime, insts);
    for (const i of insts) await a.runOne(i, 0);
    releaseDirLock(out, 'r1'); // the first run ended (or was killed)
    // A torn line and an orphan record, as a killed run leaves them.
    writeFileSync(
      join(out, 'rows.jsonl'),
      readFileSync(join(out, 'rows.jsonl'), 'utf8') + '{"id":"99","trial":0,"n":99}\n{"id":',
    );
    const second: string[] = [];
    const b = new SuiteSession(
      setup(out, second, { down: false }),
      kit('r2', { TOOLGAUGE_RESUME: '1' }),
      null,
      runtime,
      insts,
    );
    const results = await Promise.all(insts.map((i) => b.runOne(i, 0)));
    expect(second.sort()).toEqual(['13/0', '7/0']);
    expect(results.find((r) => r.meta.id === '2')!.meta.resumed).toBe(true);
    expect(results.find((r) => r.meta.id === '7')!.meta.error).toBeNull();
    const rows = readFileSync(join(out, 'rows.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(rows.map((r) => r.id).sort()).toEqual(['2', '3', '7']);
  });

  it('a filtered re-run (merge) keeps the earlier run and appends the instance run again', async () => {
    const out = tmp();
    const a = new SuiteSession(setup(out, []), kit('r1'), null, runtime, insts);
    for (const i of insts) await a.runOne(i, 0);
    releaseDirLock(out, 'r1');
    const b = new SuiteSession(setup(out, []), kit('r2', {}, 'nums › 3'), null, runtime, insts);
    expect(b.mode).toBe('merge');
    await b.runOne(insts[1]!, 0);
    expect(readJournal(out).size).toBe(4);
    expect(readFileSync(join(out, JOURNAL), 'utf8').trim().split('\n')).toHaveLength(5);
  });

  it("--resume and a -t re-run refuse another run's directory (fingerprint), an edited record line, and a planted link", async () => {
    const out = tmp();
    const a = new SuiteSession(setup(out, []), kit('r1'), null, runtime, insts);
    for (const i of insts) await a.runOne(i, 0);
    releaseDirLock(out, 'r1');
    // Another seed: another generation, so another run.
    const seed = new SuiteSession(
      setup(out, []),
      kit('r2', { TOOLGAUGE_RESUME: '1', TOOLGAUGE_SEED: '1' }),
      null,
      runtime,
      insts,
    );
    await expect(seed.runOne(insts[0]!, 0)).rejects.toThrow(
      /--resume: .* holds a run with generation\.seed 0, but this run has generation\.seed 1/,
    );
    releaseDirLock(out, 'r2');
    // A record line changed after the run wrote it.
    const rows = join(out, 'rows.jsonl');
    const original = readFileSync(rows, 'utf8');
    writeFileSync(rows, original.replace('"n":2', '"n":4'));
    const edited = new SuiteSession(setup(out, []), kit('r3', {}, 'nums › 3'), null, runtime, insts);
    await expect(edited.runOne(insts[1]!, 0)).rejects.toThrow(
      /rows\.jsonl: no line for id "2" matches .*instances\.jsonl line 1/,
    );
    releaseDirLock(out, 'r3');
    writeFileSync(rows, original);
    rmSync(join(out, 'traces'), { recursive: true });
    const victim = tmp();
    symlinkSync(victim, join(out, 'traces'));
    const linked = new SuiteSession(setup(out, []), kit('r4', { TOOLGAUGE_RESUME: '1' }), null, runtime, insts);
    await expect(linked.runOne(insts[2]!, 0)).rejects.toThrow(/traces is a symbolic link/);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("a record line edited together with its journal line's record digests (emptied, no hash computed) is refused", async () => {
    const out = tmp();
    const a = new SuiteSession(setup(out, []), kit('s1'), null, runtime, insts);
    for (const i of insts) await a.runOne(i, 0);
    releaseDirLock(out, 's1');
    const rows = join(out, 'rows.jsonl');
    writeFileSync(rows, readFileSync(rows, 'utf8').replace('"n":2', '"n":4'));
    const journal = join(out, JOURNAL);
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seal: { records: object } });
    for (const l of lines) l.seal.records = {};
    writeFileSync(journal, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const resumed = new SuiteSession(setup(out, []), kit('s2', { TOOLGAUGE_RESUME: '1' }), null, runtime, insts);
    await expect(resumed.runOne(insts[1]!, 0)).rejects.toThrow(/instances\.jsonl line 1 .*does not match its seal/);
  });
});

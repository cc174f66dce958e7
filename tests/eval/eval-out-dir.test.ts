import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { readJson, tempDir, toolgauge } from '../helpers/cli.ts';

// `toolgauge eval`'s output folders, as real processes: several evals under one --out-dir each get a folder of their
// own, and a --merge-reports run claims its folder as a run does (lock, marker, an earlier run's files removed).

/** An eval file whose describeEval (or, for several names, describeEval.each) defines evals over `ids`; no model call. */
function evalFile(dir: string, file: string, names: string[], ids: string[]): string {
  const path = join(dir, `${file}.eval.ts`);
  const options = `{
  data: () => ${JSON.stringify(ids.map((id) => ({ id, input: id })))},
  task: async (input) => ({ output: input, answer: input, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 }),
  scorers: [scorers.custom('answered', ({ output }) => output.answer.length > 0)],
}`;
  const define =
    names.length === 1
      ? `describeEval(${JSON.stringify(names[0])}, ${options});`
      : `describeEval.each(${JSON.stringify(names.map((name) => ({ name })))})('$name', () => (${options}));`;
  writeFileSync(
    path,
    `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};\n${define}\n`,
  );
  return path;
}

/** What a summary.json says of its run: the eval's name and how many cases it counted. */
function summaryOf(dir: string): { suite: string; n: number } {
  const s = readJson<{ suite: string; counts: { instances: number } }>(join(dir, 'summary.json'));
  return { suite: s.suite, n: s.counts.instances };
}

const eval_ = (dir: string, ...args: string[]) => toolgauge(['eval', ...args], {}, 180_000, dir);

/**
 * One one-model run of three eval files, one of them defining two evals (describeEval.each), into one --out-dir: made
 * once per file, read by the test of where each eval writes, reused by the model list's refusal, and its eval
 * 'merged' (cases o1, o2) is the earlier run the merges replace (copied: each test changes a copy of its own).
 */
let severalEvals: Promise<{ dir: string; files: string[]; out: string; code: number; stderr: string }> | undefined;
function severalEvalsRun() {
  severalEvals ??= (async () => {
    const dir = tempDir('evals-out');
    const files = [
      evalFile(dir, 'a', ['alpha'], ['1', '2']),
      evalFile(dir, 'sweep', ['left', 'right'], ['1', '2', '3']),
      evalFile(dir, 'earlier', ['merged'], ['o1', 'o2']),
    ];
    const out = join(dir, 'out');
    const r = await eval_(dir, ...files, '--model', 'sim:oracle', '--out-dir', out);
    return { dir, files, out, code: r.code, stderr: r.stderr };
  })();
  return severalEvals;
}

describe('toolgauge eval --out-dir with several evals', () => {
  it('two eval files, one defining two evals (describeEval.each): --out-dir is their parent, each eval in <dir>/<eval name>/ with its own summary', async () => {
    const { out, code, stderr } = await severalEvalsRun();
    expect(code, stderr).toBe(0);
    expect(summaryOf(join(out, 'alpha'))).toEqual({ suite: 'alpha', n: 2 });
    expect(summaryOf(join(out, 'left'))).toEqual({ suite: 'left', n: 3 });
    expect(summaryOf(join(out, 'right'))).toEqual({ suite: 'right', n: 3 });
    expect(summaryOf(join(out, 'merged'))).toEqual({ suite: 'merged', n: 2 });
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  });

  it('two evals and two models: <dir>/<eval>/<model folder>/, each eval comparing its models in <dir>/<eval>/', async () => {
    const dir = tempDir('evals-models');
    const a = evalFile(dir, 'a', ['alpha'], ['1', '2']);
    const b = evalFile(dir, 'b', ['beta'], ['1', '2', '3']);
    const out = join(dir, 'out');
    const r = await eval_(dir, a, b, '--model', 'sim:oracle,sim:wrong', '--out-dir', out);
    expect(r.code, r.stderr).toBe(0);
    for (const [name, n] of [
      ['alpha', 2],
      ['beta', 3],
    ] as const) {
      for (const model of ['sim_oracle', 'sim_wrong'])
        expect(summaryOf(join(out, name, model)), `${name}/${model}`).toEqual({ suite: name, n });
      // The eval's own comparison: its cases paired, as many as it has.
      const rows = readJson<Array<{ baseline: string; candidate: string; shared: number }>>(
        join(out, name, 'comparison.json'),
      );
      expect(
        rows.map((c) => [c.baseline, c.candidate, c.shared]),
        name,
      ).toEqual([['sim:oracle', 'sim:wrong', n]]);
    }
  });
});

describe('toolgauge eval --model a,b --out-dir with several evals', () => {
  it("an eval's folder in --out-dir that holds a one-model run: one line naming it (exit 2), before any model's case runs", async () => {
    // A one-model run of the same evals: DIR/alpha/, DIR/left/, DIR/right/ and DIR/merged/ hold its files, DIR none.
    const { dir, files, out, code, stderr } = await severalEvalsRun();
    expect(code, stderr).toBe(0);
    const before = readdirSync(out).sort();
    const r = await eval_(dir, ...files, '--model', 'sim:oracle,sim:wrong', '--out-dir', out);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const said = r.stderr.split('\n').filter((l) => l.startsWith('toolgauge') && l.includes('holds a one-model run'));
    expect(said, r.stderr).toHaveLength(1);
    expect(said[0]).toMatch(
      /the folder of the eval '(alpha|left|right|merged)' in --out-dir, \S*out\/\1, holds a one-model run \((\.toolgauge-run|instances\.jsonl|summary\.json)\)/,
    );
    // No model's folder was made in any eval's folder.
    expect(readdirSync(out).sort()).toEqual(before);
    for (const name of ['alpha', 'left', 'right', 'merged'])
      expect(
        readdirSync(join(out, name)).filter((f) => f.startsWith('sim_')),
        name,
      ).toEqual([]);
  });
});

/**
 * Blobs of one sharded run of the eval 'merged' (cases m1..m4, two part files, two shards), made once per file: each
 * test that merges them needs only the blobs.
 */
let blobs: Promise<{ dir: string; blobs: string }> | undefined;
function shardedBlobs() {
  blobs ??= (async () => {
    const dir = tempDir('eval-merge-dir');
    const file = evalFile(dir, 'merged', ['merged'], ['m1', 'm2', 'm3', 'm4']);
    const blobDir = join(dir, 'blobs');
    for (const shard of ['1/2', '2/2']) {
      const s = await eval_(
        dir,
        file,
        '--model',
        'sim:oracle',
        '--parts',
        '2',
        '--shard',
        shard,
        '--blob-dir',
        blobDir,
      );
      expect(s.code, s.stderr).toBe(0);
    }
    return { dir, blobs: blobDir };
  })();
  return blobs;
}

/**
 * `out` as an earlier run of the eval 'merged' on other cases (o1, o2: the several evals' run), with a kept run and a
 * user's file: a copy of its own for each test that merges into it.
 */
async function earlierRun(out: string): Promise<void> {
  const { out: several, code, stderr } = await severalEvalsRun();
  expect(code, stderr).toBe(0);
  cpSync(join(several, 'merged'), out, { recursive: true });
  expect(readdirSync(join(out, 'traces')).sort()).toEqual(['o1.json', 'o2.json']);
  mkdirSync(join(out, 'runs', '2025-01-02T03-04-05.678Z'), { recursive: true });
  writeFileSync(join(out, 'runs', '2025-01-02T03-04-05.678Z', 'summary.json'), '{}');
  writeFileSync(join(out, 'notes.txt'), 'mine');
}

describe('toolgauge eval --merge-reports into a folder', () => {
  it('an earlier run there: its files are replaced as a fresh run replaces them (no stale trace), the marker written', async () => {
    const { dir, blobs } = await shardedBlobs();
    const out = join(dir, 'merge-over');
    await earlierRun(out);
    const m = await eval_(dir, '--merge-reports', blobs, '--out-dir', out);
    expect(m.code, m.stderr).toBe(0);
    expect(summaryOf(out)).toEqual({ suite: 'merged', n: 4 });
    expect(readdirSync(join(out, 'traces')).sort()).toEqual(['m1.json', 'm2.json', 'm3.json', 'm4.json']);
    expect(readFileSync(join(out, 'instances.jsonl'), 'utf8')).not.toMatch(/"o[12]"/);
    // The marker names the merge's run: the run id its run.json records.
    const marker = readFileSync(join(out, '.toolgauge-run'), 'utf8').trim();
    expect(marker).not.toBe('');
    expect(readJson<{ suites: Record<string, { run_id: string }> }>(join(out, 'run.json')).suites.merged?.run_id).toBe(
      marker,
    );
    // What a fresh run leaves alone: the kept runs and files that are not a run's, and no lock once it ended.
    expect(readFileSync(join(out, 'runs', '2025-01-02T03-04-05.678Z', 'summary.json'), 'utf8')).toBe('{}');
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(out, '.toolgauge-lock'))).toBe(false);
  });

  it('a folder whose lock another live process holds: refused in one line naming the folder, nothing changed', async () => {
    const { dir, blobs } = await shardedBlobs();
    const out = join(dir, 'merge-locked');
    await earlierRun(out);
    const before = readFileSync(join(out, 'summary.json'), 'utf8');
    // Another run's lock, held by a live process (the lock's format: harness/kit/lock.ts's LockOwner).
    const holder = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      const stat = readFileSync(`/proc/${holder.pid}/stat`, 'utf8');
      const owner = {
        run_id: 'another-run',
        pid: holder.pid,
        boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        pid_start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19],
        started_at: new Date().toISOString(),
      };
      writeFileSync(join(out, '.toolgauge-lock'), `${JSON.stringify(owner)}\n`);
      const m = await eval_(dir, '--merge-reports', blobs, '--out-dir', out);
      expect(m.code, m.stdout + m.stderr).toBe(2);
      // The run end's refusals are said on stderr, as every usage error is: one line, no stack.
      expect(m.stdout).not.toContain('another-run');
      const said = m.stderr.split('\n').filter((l) => l.includes('another-run'));
      expect(said).toEqual([
        `toolgauge: ${out} is in use by run another-run (pid ${holder.pid}, started ${owner.started_at}); wait for it to end or choose another --out-dir`,
      ]);
      expect(m.stderr).not.toMatch(/^\s+at /m);
      expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(before);
      expect(readdirSync(join(out, 'traces')).sort()).toEqual(['o1.json', 'o2.json']);
    } finally {
      holder.kill();
    }
  });
});

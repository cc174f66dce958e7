import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { inProcess, readJson, tempDir } from '../helpers/cli.ts';

// `toolgauge eval` in this process on a tiny eval file (no model request: the task answers itself) — what it prints
// where, and its exit codes.

/** An eval file named `name` whose cases pass or fail as `cases` says, or whose task throws for the id 'throws'. */
function evalFile(dir: string, name: string, cases: Record<string, boolean>): string {
  const file = join(dir, `${name}.eval.ts`);
  writeFileSync(
    file,
    `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
const out = (answer) => ({ output: answer, answer, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 });
describeEval(${JSON.stringify(name)}, {
  data: () => ${JSON.stringify(Object.keys(cases).map((id) => ({ id, input: id })))},
  task: async (input) => {
    if (input === 'throws') throw new Error('boom');
    return out(${JSON.stringify(cases)}[input] ? 'yes' : 'no');
  },
  scorers: [scorers.custom('said_yes', ({ output }) => output.answer === 'yes')],
});
`,
  );
  return file;
}

/**
 * Eval-file code that writes to `out` whether the worker's bundle is named and the eval's `describeEval` and `scorers`
 * are the very objects the bundle's file for harness/api/index.ts exports (its worker-entries.json names the file).
 */
function sameApiAsBundle(out: string): string {
  return `
const bundleDir = process.env.TOOLGAUGE_WORKER_BUNDLE;
const fs = await import('node:fs');
let bundled = {};
if (bundleDir) {
  const entries = JSON.parse(fs.readFileSync(bundleDir + '/worker-entries.json', 'utf8'));
  bundled = await import((await import('node:url')).pathToFileURL(bundleDir + '/' + entries['harness/api/index.ts']).href);
}
fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({
  bundle: Boolean(bundleDir),
  sameDescribeEval: bundled.describeEval === describeEval,
  sameScorers: bundled.scorers === scorers,
}));
`;
}

/**
 * A run of eleven cases and one whose task throws, in one part, under a gate that passes: made once per file (the
 * exit-code test reads its exit code and stderr, the --parts test compares runs in parts with it). Each call of the
 * task is appended to `calls`, by case.
 */
let partedWhole:
  | Promise<{ dir: string; file: string; calls: string; cases: Record<string, boolean>; first: Run }>
  | undefined;
type Run = { code: number; stderr: string; summary: Record<string, unknown>; journal: string };
// The gate passes whatever the cases score: a harness error still exits 1 under it.
const GATE = ['--gate', 'pass_rate>=0'];

/** `toolgauge eval` of `file` into `dir/out` with the gate; the summary without its clock times, and the journal. */
async function runInto(file: string, dir: string, out: string, ...more: string[]): Promise<Run> {
  const r = await inProcess(['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, out), ...GATE, ...more], {});
  const summary = readJson<{ header: Record<string, unknown> }>(join(dir, out, 'summary.json'));
  const { started_at: _s, ended_at: _e, ...header } = summary.header;
  return {
    code: r.code,
    stderr: r.stderr,
    summary: { ...summary, header },
    journal: readFileSync(join(dir, out, 'instances.jsonl'), 'utf8'),
  };
}

function wholeRun() {
  partedWhole ??= (async () => {
    const dir = tempDir('eval-parts');
    const cases = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`c${i}`, i % 3 !== 0]));
    const file = evalFile(dir, 'parted', { ...cases, throws: true });
    const calls = join(dir, 'calls.txt');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'task: async (input) => {',
        `task: async (input) => {\n    (await import('node:fs')).appendFileSync(${JSON.stringify(calls)}, input + '\\n');`,
      ),
    );
    return { dir, file, calls, cases, first: await runInto(file, dir, 'whole') };
  })();
  return partedWhole;
}

describe('toolgauge eval', () => {
  it('--json: one JSON document on stdout (each eval with its summary.json and the exit code), the rest on stderr', async () => {
    const dir = tempDir('eval-json');
    const file = evalFile(dir, 'jsoned', { a: true, b: false });
    // The same run: its worker's public API is the CLI bundle's copy, which Node loaded itself (the bundle the launcher
    // names: inProcess names it as the launcher does), not one Vite transformed from the sources.
    const loaded = join(dir, 'loaded.json');
    writeFileSync(file, `${readFileSync(file, 'utf8')}${sameApiAsBundle(loaded)}`);
    const r = await inProcess(['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, 'out'), '--json'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(readJson(loaded)).toEqual({ bundle: true, sameDescribeEval: true, sameScorers: true });
    const doc = JSON.parse(r.stdout) as {
      evals: Array<{ name: string; outDir: string; summary: { metrics: Record<string, { value: number }> } }>;
      exitCode: number;
    };
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(doc.exitCode).toBe(0);
    expect(doc.evals.map((e) => [e.name, e.outDir])).toEqual([['jsoned', join(dir, 'out')]]);
    expect(doc.evals[0]!.summary.metrics.pass_rate!.value).toBe(0.5);
    // Vitest's output and the terminal summary went to stderr
    expect(r.stderr).toContain('jsoned › b');
    expect(r.stderr).toContain('pass_rate');
  });

  // The table in docs/eval.md ("Exit codes"); the run end's rule itself: harness/kit/run-end.test.ts.
  it('exit codes: failing cases without a gate 0 (above); a harness error 1, even under a gate that passes; usage 2', async () => {
    const { file, first } = await wholeRun();
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('parted throws: harness error: Error: boom');
    for (const args of [['missing.eval.ts'], [file, '--gate', 'pass_rate>>1'], [file, '--no-such-flag']]) {
      const u = await inProcess(['eval', ...args], {});
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('--parts N: each case runs once, in one part; the journal, summary and a --resume equal a run in one part', async () => {
    const { dir, file, calls, cases, first } = await wholeRun();
    const run = async (out: string, ...more: string[]) => {
      const r = await runInto(file, dir, out, ...more);
      expect(r.code, r.stderr).toBe(1); // the case that throws is a harness error
      return r;
    };
    expect(first.code, first.stderr).toBe(1);
    const whole = first;
    // Each call of the task, by case: every case must run exactly once across the parts.
    writeFileSync(calls, '');
    const parted = await run('parted', '--parts', '3');
    expect(readFileSync(calls, 'utf8').trim().split('\n').sort()).toEqual(['throws', ...Object.keys(cases)].sort());
    expect(parted.stderr).toContain('parted (part 3/3)');
    expect(parted.journal).toBe(whole.journal);
    expect(parted.summary).toEqual(whole.summary);
    // A resume in another number of parts runs the errored case again, and nothing else, as a resume in one does.
    writeFileSync(calls, '');
    const resumed = await run('parted', '--parts', '2', '--resume');
    expect(readFileSync(calls, 'utf8')).toBe('throws\n');
    const resumedWhole = await run('whole', '--resume');
    expect(resumed.journal).toBe(resumedWhole.journal);
    expect(resumed.summary).toEqual(resumedWhole.summary);
  });

  it('--parts 2 --shard i/2 --blob-dir, then --merge-reports --out-dir: the merged folder equals the unsharded run', async () => {
    const { dir, file, calls, first } = await wholeRun();
    const blobs = join(dir, 'blobs');
    const codes: number[] = [];
    for (const shard of ['1/2', '2/2']) {
      const s = await runInto(file, dir, `shard-${shard[0]}`, '--parts', '2', '--shard', shard, '--blob-dir', blobs);
      codes.push(s.code);
    }
    // Each shard ran one part file: the case that throws (a harness error, exit 1) in one of them.
    expect(codes.sort()).toEqual([0, 1]);
    // No eval file, no model: the run is the blobs'; the merge writes where its --out-dir says.
    const m = await inProcess(['eval', '--merge-reports', blobs, '--out-dir', join(dir, 'merged'), ...GATE], {});
    expect(m.code, m.stderr).toBe(1);
    expect(m.stdout + m.stderr).toContain(`report: ${join(dir, 'merged', 'report.md')}`);
    const merged = readJson<{ header: Record<string, unknown> }>(join(dir, 'merged', 'summary.json'));
    const { started_at: _s, ended_at: _e, ...header } = merged.header;
    expect({ ...merged, header }).toEqual(first.summary);
    expect(readFileSync(join(dir, 'merged', 'instances.jsonl'), 'utf8')).toBe(first.journal);
    const report = (d: string) => readFileSync(join(dir, d, 'report.md'), 'utf8').replace(/^\| time \|.*$/m, '');
    expect(report('merged')).toBe(report('whole'));
    // The unsharded run's fingerprint in run.json: the merged folder resumes as the run's would (the errored case only).
    type RunFile = { suites: Record<string, { fingerprint: Record<string, unknown> }> };
    const fingerprint = (d: string) => readJson<RunFile>(join(dir, d, 'run.json')).suites.parted?.fingerprint;
    expect(fingerprint('merged')).toHaveProperty('dataset_sha256');
    expect(fingerprint('merged')).toEqual(fingerprint('whole'));
    writeFileSync(calls, '');
    const resumed = await runInto(file, dir, 'merged', '--resume');
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(readFileSync(calls, 'utf8')).toBe('throws\n');
  });

  it('--shard i/n with fewer than n test files: one usage line naming both numbers, before Vitest starts', async () => {
    const dir = tempDir('eval-shard-count');
    const file = evalFile(dir, 'single', { a: true, b: true });
    const cases: Array<[string[], RegExp]> = [
      [['--shard', '1/2'], /--shard 1\/2 needs at least 2 test files and the run has 1 eval file; --parts 2 /],
      [['--shard', '2/3', '--parts', '2'], /--shard 2\/3 needs at least 3 test files and the run has 2 part files/],
      [['--shard', '3/2'], /--shard must be i\/n with 1 <= i <= n/],
    ];
    for (const [more, line] of cases) {
      const r = await inProcess(['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, 'out'), ...more], {});
      expect(r.code, more.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), more.join(' ')).toEqual([expect.stringMatching(line)]);
    }
  });
});

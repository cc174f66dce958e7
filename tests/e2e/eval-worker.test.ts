// Where a ToolHop run's rows run: a thread of the CLI's process by default (harness/vitest/prethread.ts), a forked
// Vitest worker with TOOLGAUGE_EVAL_WORKER=fork. The thread is one process fewer; a crash of the process that holds
// it loses no finished row (each is in the journal as it finishes) and --resume runs only the others. A forked worker
// can die alone: the run ends with exit 1, its report names the instances that did not run, and --resume runs them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultPromise } from 'execa';
import {
  cmdline,
  countLines,
  descendants,
  inProcess,
  readJson,
  readLines,
  spawnToolgauge,
  tempDir,
} from '../helpers/cli.ts';

// The CPython sandbox: these tests are about the run's processes and files, not the interpreter.
const EXEC = { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' };
const ARGS = ['toolhop', '--model', 'sim:oracle?latency_ms=250', '--limit', '20'];

/** Start a run (11 rows in the bundled sample) and wait until `n` lines are in its `file` (a record file). */
async function startUntil(out: string, file: string, n: number, env: Record<string, string> = {}) {
  const child = spawnToolgauge([...ARGS, '--concurrency', '2', '--out-dir', out], { ...EXEC, ...env });
  const deadline = Date.now() + 60_000;
  while (countLines(join(out, file)) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // In an object: awaiting the child itself would wait for it to end.
  return { child };
}

/** The processes below the CLI that run Vitest's worker programs (a forked worker, or a thread's own process). */
const vitestWorkers = (cli: number) =>
  descendants(cli).filter((pid) => /vitest\/dist\/workers\/(forks|threads)\.js/.test(cmdline(pid)));

interface Crashed {
  out: string;
  /** Vitest's worker processes under the CLI while rows were finishing. */
  workers: number[];
  /** The journal's ids right after the crash. */
  kept: string[];
  /** Whether the output directory's lock was still there right after the crash. */
  lockLeft: boolean;
  result: Awaited<ResultPromise>;
}

// Each run below is made once per file (the first test that needs it starts it) and carries the checks of the tests
// that use it: its worker processes seen mid-run, its crash, and its --resume (the one test that changes its folder).

/** A default (thread) run, the CLI SIGKILLed (its process group) once 3 rows are in the journal. */
let threadRun: Promise<Crashed> | undefined;
const threadCrashed = () =>
  (threadRun ??= (async () => {
    const out = tempDir('thread-crash');
    const { child } = await startUntil(out, 'instances.jsonl', 3);
    // Rows are finishing: whatever runs them is up.
    expect(countLines(join(out, 'instances.jsonl'))).toBeGreaterThanOrEqual(3);
    const workers = vitestWorkers(child.pid!);
    process.kill(-child.pid!, 'SIGKILL');
    const result = await child;
    return { out, workers, kept: ids(join(out, 'instances.jsonl')), lockLeft: hasLock(out), result };
  })());

/** A TOOLGAUGE_EVAL_WORKER=fork run whose worker process alone is SIGKILLed once 2 rows are in results.jsonl. */
let forkRun: Promise<Crashed> | undefined;
const forkWorkerKilled = () =>
  (forkRun ??= (async () => {
    const out = tempDir('worker-killed');
    const { child } = await startUntil(out, 'results.jsonl', 2, { TOOLGAUGE_EVAL_WORKER: 'fork' });
    expect(countLines(join(out, 'results.jsonl'))).toBeGreaterThanOrEqual(2);
    const workers = vitestWorkers(child.pid!);
    const worker = workers.find((pid) => cmdline(pid).includes('vitest/dist/workers/forks'));
    expect(worker, 'a Vitest fork worker under the CLI').toBeDefined();
    process.kill(worker!, 'SIGKILL');
    const result = await child;
    return { out, workers, kept: ids(join(out, 'instances.jsonl')), lockLeft: hasLock(out), result };
  })());

const ids = (file: string) => readLines<{ id: string }>(file).map((m) => m.id);
const hasLock = (out: string) => existsSync(join(out, '.toolgauge-lock'));

describe('the eval worker of a ToolHop run', () => {
  it('is a thread of the CLI by default, one process fewer than TOOLGAUGE_EVAL_WORKER=fork', async () => {
    const seen = {
      thread: (await threadCrashed()).workers.length,
      fork: (await forkWorkerKilled()).workers.length,
    };
    expect(seen).toEqual({ thread: 0, fork: 1 });
  });

  // The kill of the CLI is also the kill of a run mid-way (tests/e2e/resume.test.ts covers the other ways a run ends
  // early): every instance ends up exactly once in each record file.
  it('crashing with the CLI mid-run (SIGKILL) keeps every finished row; --resume runs only the others, each instance once in results.jsonl and predictions.jsonl', async () => {
    const { out, workers, kept, lockLeft } = await threadCrashed();
    expect(workers).toEqual([]);
    // The killed CLI could not give the directory back: the resume takes its lock over.
    expect(lockLeft).toBe(true);
    const journal = join(out, 'instances.jsonl');
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(11);
    const results = join(out, 'results.jsonl');
    expect(countLines(results)).toBeLessThan(11);

    const r = await inProcess([...ARGS, '--concurrency', '2', '--out-dir', out, '--resume'], EXEC);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The rows finished before the crash are kept (counted as resumed, not run again); the resume ran the rest.
    const again = ids(journal);
    expect(new Set(again).size).toBe(11);
    expect(again).toHaveLength(11);
    expect(again).toEqual(expect.arrayContaining(kept));
    const summary = readJson<{ counts: { resumed: number; correct: number } }>(join(out, 'summary.json'));
    expect(summary.counts.resumed).toBe(kept.length);
    expect(summary.counts.correct).toBe(11);
    const rows = ids(results);
    expect(rows).toHaveLength(11);
    expect(new Set(rows).size).toBe(11);
    const preds = ids(join(out, 'predictions.jsonl'));
    expect(preds.sort()).toEqual([...rows].sort());
  });

  it('the forked worker killed mid-run: the run ends with exit 1, its report says how many instances did not run and why, and --resume finishes them', async () => {
    const { out, kept: finished, lockLeft, result: r } = await forkWorkerKilled();
    const results = join(out, 'results.jsonl');
    expect(r.exitCode).toBe(1);
    // The CLI outlived its worker and gave the directory back.
    expect(lockLeft).toBe(false);
    // Finished means in the journal (files, then record lines, then the journal line): a kill between an instance's
    // record line and its journal line leaves that line in results.jsonl for an instance that did not finish (at most
    // one per instance in flight, --concurrency 2), which --resume runs again.
    const done = finished.length;
    expect(countLines(results) - done).toBeGreaterThanOrEqual(0);
    expect(countLines(results) - done).toBeLessThanOrEqual(2);
    const summary = readJson<{ counts: { runs: number }; extra: { collection_errors: string[] } }>(
      join(out, 'summary.json'),
    );
    expect(summary.counts.runs).toBe(done);
    const notRun = summary.extra.collection_errors
      .map((e) => /^(\d+) of (\d+) instances did not run \((.*)\)$/.exec(e))
      .find(Boolean);
    expect(notRun, summary.extra.collection_errors.join('\n')).toBeDefined();
    const [, missing, planned, cause] = notRun!;
    // The cause is the worker's death as Vitest reported it (the first of the run's unhandled errors, also listed on
    // its own), not "the run ended before them". Vitest words it by what it saw first: the worker's exit, or a write
    // to its closed pipe or IPC channel (seen under load).
    expect(cause).toMatch(/^the run ended with an error: /);
    const vitestError = cause!.replace(/^the run ended with an error: /, '');
    expect(vitestError).toMatch(/Worker exited unexpectedly|\bEPIPE\b|ERR_IPC_CHANNEL_CLOSED|[Cc]hannel closed/);
    expect(summary.extra.collection_errors).toContain(`Vitest: ${vitestError}`);
    expect(Number(missing)).toBeGreaterThan(0);
    expect(done + Number(missing)).toBe(Number(planned)); // every row the run planned: finished or named as not run
    const line = `${missing} of ${planned} instances did not run`;
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report.slice(0, report.indexOf('## Result'))).toContain(line);
    expect(String(r.stdout)).toContain(`harness error: ${line}`);

    // The rows the forked worker finished were ToolHop's in a fork; forked runs that end normally are every other
    // suite command's (their default worker).
    const again = await inProcess([...ARGS, '--concurrency', '4', '--out-dir', out, '--resume'], EXEC);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const rows = ids(results);
    expect(rows).toHaveLength(Number(planned)); // each row once: none lost, none run twice
    expect(new Set(rows).size).toBe(Number(planned));
    expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toContain('did not run');
    expect(readJson<{ counts: { correct: number } }>(join(out, 'summary.json')).counts.correct).toBe(Number(planned));
  });
});

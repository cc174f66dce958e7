// Where a ToolHop run's rows run: a thread of the CLI's process by default (harness/vitest/prethread.ts), a forked
// Vitest worker with TOOLGAUGE_EVAL_WORKER=fork. The thread is one process fewer; a crash of the process that holds
// it loses no finished row (each is in the journal as it finishes) and --resume runs only the others.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
const ARGS = ['toolhop', '--model', 'sim:oracle?latency_ms=250', '--limit', '20', '--concurrency', '2'];

/** Start a run (11 rows in the bundled sample) and wait until `n` rows are in its journal. */
async function startUntilFinished(out: string, n: number, env: Record<string, string> = {}) {
  const child = spawnToolgauge([...ARGS, '--out-dir', out], { ...EXEC, ...env });
  const journal = join(out, 'instances.jsonl');
  const deadline = Date.now() + 60_000;
  while (countLines(journal) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return { child, journal };
}

/** The processes below the CLI that run Vitest's worker programs (a forked worker, or a thread's own process). */
const vitestWorkers = (cli: number) =>
  descendants(cli).filter((pid) => /vitest\/dist\/workers\/(forks|threads)\.js/.test(cmdline(pid)));

describe('the eval worker of a ToolHop run', () => {
  it('is a thread of the CLI by default, one process fewer than TOOLGAUGE_EVAL_WORKER=fork', async () => {
    const seen: Record<string, number> = {};
    for (const kind of ['thread', 'fork'] as const) {
      const out = tempDir(`worker-${kind}`);
      const { child, journal } = await startUntilFinished(
        out,
        1,
        kind === 'fork' ? { TOOLGAUGE_EVAL_WORKER: kind } : {},
      );
      // Rows are finishing: whatever runs them is up.
      expect(countLines(journal), kind).toBeGreaterThanOrEqual(1);
      seen[kind] = vitestWorkers(child.pid!).length;
      const r = await child;
      expect(r.exitCode, `${kind}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(countLines(journal), kind).toBe(11);
    }
    expect(seen).toEqual({ thread: 0, fork: 1 });
  });

  // The kill of the CLI is also the kill of a run mid-way (tests/e2e/resume.test.ts covers the other ways a run ends
  // early): every instance ends up exactly once in each record file.
  it('crashing with the CLI mid-run (SIGKILL) keeps every finished row; --resume runs only the others, each instance once in results.jsonl and predictions.jsonl', async () => {
    const out = tempDir('thread-crash');
    const { child, journal } = await startUntilFinished(out, 3);
    expect(vitestWorkers(child.pid!)).toEqual([]);
    process.kill(-child.pid!, 'SIGKILL');
    await child;
    const kept = readLines<{ id: string }>(journal).map((m) => m.id);
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(11);
    const results = join(out, 'results.jsonl');
    expect(countLines(results)).toBeLessThan(11);

    const r = await inProcess([...ARGS, '--out-dir', out, '--resume'], EXEC);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The rows finished before the crash are kept (counted as resumed, not run again); the resume ran the rest.
    const ids = readLines<{ id: string }>(journal).map((m) => m.id);
    expect(new Set(ids).size).toBe(11);
    expect(ids).toHaveLength(11);
    expect(ids).toEqual(expect.arrayContaining(kept));
    const summary = readJson<{ counts: { resumed: number; correct: number } }>(join(out, 'summary.json'));
    expect(summary.counts.resumed).toBe(kept.length);
    expect(summary.counts.correct).toBe(11);
    const rows = readLines<{ id: string }>(results).map((x) => x.id);
    expect(rows).toHaveLength(11);
    expect(new Set(rows).size).toBe(11);
    const preds = readLines<{ id: string }>(join(out, 'predictions.jsonl')).map((x) => x.id);
    expect(preds.sort()).toEqual([...rows].sort());
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, readLines, spawnToolgauge, tempDir, toolgauge } from '../helpers/cli.ts';

// The CPython sandbox: this test is about the run's files, not the interpreter.
const EXEC = { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' };
const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).length : 0);

const model = 'sim:oracle?latency_ms=250';

/** Start a 20-row run (11 rows in the bundled sample) and wait until `n` rows have finished. */
async function startUntilFinished(out: string, n: number) {
  const child = spawnToolgauge(['toolhop', '--model', model, '--limit', '20', '--out-dir', out, '--concurrency', '2'], EXEC);
  const results = join(out, 'results.jsonl');
  const deadline = Date.now() + 60_000;
  while (lines(results) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return { child, results };
}

describe('a killed run resumes', () => {
  it('SIGKILL mid-run, then --resume: every instance exactly once in results.jsonl and predictions.jsonl', async () => {
    const out = tempDir('resume');
    const { child, results } = await startUntilFinished(out, 3);
    const before = lines(results);
    expect(before).toBeGreaterThanOrEqual(3);
    process.kill(-child.pid!, 'SIGKILL');
    await child;
    expect(lines(results)).toBeLessThan(11);

    const r = await toolgauge(['toolhop', '--model', model, '--limit', '20', '--out-dir', out, '--concurrency', '4', '--resume'], EXEC);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const ids = readLines<{ id: string }>(results).map((x) => x.id);
    expect(ids).toHaveLength(11);
    expect(new Set(ids).size).toBe(11);
    const preds = readLines<{ id: string }>(join(out, 'predictions.jsonl')).map((x) => x.id);
    expect(preds.sort()).toEqual([...ids].sort());
    const summary = readJson<{ counts: { resumed: number; correct: number } }>(join(out, 'summary.json'));
    expect(summary.counts.resumed).toBeGreaterThanOrEqual(before);
    expect(summary.counts.correct).toBe(11);
  });

  it('the test worker killed mid-run: the run ends with exit 1, its report says how many instances did not run and why, and --resume finishes them', async () => {
    const out = tempDir('worker-killed');
    const { child, results } = await startUntilFinished(out, 2);
    const worker = descendants(child.pid!).find((pid) => cmdline(pid).includes('vitest/dist/workers/forks'));
    expect(worker, 'a Vitest fork worker under the CLI').toBeDefined();
    process.kill(worker!, 'SIGKILL');
    const r = await child;
    expect(r.exitCode).toBe(1);
    const done = lines(results);
    const summary = readJson<{ counts: { runs: number }; extra: { collection_errors: string[] } }>(join(out, 'summary.json'));
    expect(summary.counts.runs).toBe(done);
    const notRun = summary.extra.collection_errors.map((e) => /^(\d+) of (\d+) instances did not run \((.*)\)$/.exec(e)).find(Boolean);
    expect(notRun, summary.extra.collection_errors.join('\n')).toBeDefined();
    const [, missing, planned, cause] = notRun!;
    expect(cause).toMatch(/Worker exited unexpectedly/);
    expect(Number(missing)).toBeGreaterThan(0);
    expect(done + Number(missing)).toBe(Number(planned)); // every row the run planned: finished or named as not run
    const line = `${missing} of ${planned} instances did not run`;
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report.slice(0, report.indexOf('## Result'))).toContain(line);
    expect(String(r.stdout)).toContain(`harness error: ${line}`);

    const again = await toolgauge(['toolhop', '--model', model, '--limit', '20', '--out-dir', out, '--concurrency', '4', '--resume'], EXEC);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const ids = readLines<{ id: string }>(results).map((x) => x.id);
    expect(ids).toHaveLength(Number(planned)); // each row once: none lost, none run twice
    expect(new Set(ids).size).toBe(Number(planned));
    expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toContain('did not run');
  });
});

/** Every process below `root` (from /proc). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, pp] of parent) {
      if ((pp === root || out.includes(pp)) && !out.includes(pid)) {
        out.push(pid);
        grew = true;
      }
    }
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

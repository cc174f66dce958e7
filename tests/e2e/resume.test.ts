import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, readLines, spawnToolgauge, tempDir, toolgauge } from '../helpers/cli.ts';

// The CPython sandbox: this test is about the run's files, not the interpreter.
const EXEC = { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' };
const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).length : 0);

describe('a killed run resumes', () => {
  it('SIGKILL mid-run, then --resume: every instance exactly once in results.jsonl and predictions.jsonl', async () => {
    const out = tempDir('resume');
    const model = 'sim:oracle?latency_ms=250';
    const child = spawnToolgauge(['toolhop', '--model', model, '--limit', '20', '--out-dir', out, '--concurrency', '2'], EXEC);
    const results = join(out, 'results.jsonl');
    const deadline = Date.now() + 60_000;
    while (lines(results) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
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
});

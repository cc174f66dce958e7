// Maze benchmark: `npx tsx bench/maze.ts` — the whole maze (every task × P0–P4) through the real CLI on
// sim:oracle over HTTP: wall time and runs per second; plus the in-memory engine + judge rate for comparison.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { round, timedToolgauge } from './lib.ts';

const out = mkdtempSync(join(tmpdir(), 'bench-maze-'));
const r = await timedToolgauge(['maze', '--model', 'sim:oracle', '--concurrency', '16', '--out-dir', out], {
  ...process.env,
} as Record<string, string>);
const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
  counts: { runs: number; passes: number; errors: number };
};
const inMemory = await execa('npx', ['tsx', fromRoot('harness', 'maze', 'bench.ts'), '--reps', '3'], {
  reject: false,
  cwd: fromRoot(),
});
const result = {
  node: process.version,
  http_sim_oracle: {
    exit: r.code,
    runs: summary.counts.runs,
    passes: summary.counts.passes,
    harness_errors: summary.counts.errors,
    wall_s: round(r.wallMs / 1000),
    runs_per_s: round(summary.counts.runs / (r.wallMs / 1000)),
    peak_tree_rss_mb: r.peakTreeRssMb,
  },
  in_memory: String(inMemory.stdout).trim(),
};
writeFileAtomic(fromRoot('results', 'bench', 'maze.json'), JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));

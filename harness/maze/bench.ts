// Quick Maze bench: `npx tsx harness/maze/bench.ts [--reps N] [--policy oracle|naive]` — every task × P0–P4
// with the in-memory policy, each run judged (compat), N repetitions; prints runs per second.

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { judge } from './judge.ts';
import { runLocal } from './run-local.ts';
import { MODES, loadMazeTasks } from './task.ts';
import type { MazePolicyName } from './policies.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { reps: { type: 'string' }, policy: { type: 'string' } },
  strict: true,
});
const reps = Number(values.reps ?? 5);
const policy = (values.policy ?? 'oracle') as MazePolicyName;
if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a positive integer');
if (policy !== 'oracle' && policy !== 'naive') throw new Error('--policy must be oracle|naive');

const tasks = loadMazeTasks();
function once(): { runs: number; passes: number; calls: number } {
  let runs = 0;
  let passes = 0;
  let calls = 0;
  for (const t of tasks) {
    for (const m of MODES) {
      const r = runLocal(t, m, policy);
      if (judge(t, m, r.trace, r.finalAnswer, { mode: 'compat' }).pass) passes++;
      calls += r.trace.length;
      runs++;
    }
  }
  return { runs, passes, calls };
}

once(); // warm-up (JIT, ajv compilation)
const times: number[] = [];
let last = { runs: 0, passes: 0, calls: 0 };
for (let i = 0; i < reps; i++) {
  const t0 = performance.now();
  last = once();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
console.log(
  `maze bench (${policy}, in memory, judged): ${tasks.length} tasks × ${MODES.length} modes = ${last.runs} runs, ` +
    `${last.calls} tool calls, ${last.passes} passes per repetition; median ${median.toFixed(0)} ms → ` +
    `${Math.round((last.runs / median) * 1000)} runs/s, ${Math.round((last.calls / median) * 1000)} tool calls/s (${reps} reps, node ${process.version})`,
);

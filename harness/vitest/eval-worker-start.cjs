// The eval worker's first module: a `--require` among its node flags (EVAL_WORKER_EXEC_ARGV,
// harness/vitest/eval-project.ts). V8 refuses Node's built-in code cache once any of its flags differs from the
// values Node was built with, and every Node module loaded after that is compiled from source (docs/benchmarks.md).
// The young generation's semi-space size is read once, when this thread's heap is set up: set back to V8's default
// here, the command line's size still holds for that heap and no longer costs the cache. The old generation's growth
// matters only once the run's tests pile up: it is handed over (harness/core/late-v8-flags.ts) and set when the suite's
// block has loaded its cases (harness/vitest/suite-tests.ts).
'use strict';
const { setFlagsFromString } = require('node:v8');

if (process.execArgv.some((a) => a.startsWith('--max-semi-space-size='))) setFlagsFromString('--max-semi-space-size=0');
globalThis[Symbol.for('toolgauge.lateV8Flags')] = ['--heap-growing-percent=50'];

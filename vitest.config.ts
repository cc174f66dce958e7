import { defineConfig } from 'vitest/config';
import { readConfig } from './harness/core/config.ts';
import { vitestOptionsOf } from './harness/kit/vitest-options.ts';
import { builtinEvalProject } from './harness/vitest/eval-project.ts';
import { toolgaugePlugin } from './harness/vitest/plugin.ts';
import { REPORTER_PATH } from './reporters/path.ts';
import LongFirstSequencer from './tests/helpers/sequencer.ts';

// Three projects: `unit` (code beside its *.test.ts, plus tests/), `package` (the packed package in fresh projects;
// npm test runs both) and `eval` (the benchmark suites, one test per benchmark instance). The toolgauge reporter aggregates eval runs into summary.json / report.md and applies the
// gate; it ignores unit tests. TOOLGAUGE_VITEST_JSON adds Vitest's JSON reporter (.ci/run counts tests with it).
const jsonOut = process.env.TOOLGAUGE_VITEST_JSON;
// The end-to-end and package files mostly wait on the processes they start (and on simulated latency): three workers
// keep both cores of a 2-core machine busy with CPU-bound unit files while two such files wait (a fresh clone's
// npm test: 188 s with two, 147 s with three).
const TEST_WORKERS = Number(process.env.TOOLGAUGE_TEST_WORKERS ?? 3) || 3;
// TOOLGAUGE_TEST_CPU=<file.jsonl>: one line per test file with the CPU-seconds it cost (tests/helpers/cpu-per-file.ts).
const cpuPerFile = process.env.TOOLGAUGE_TEST_CPU ? ['./tests/helpers/cpu-per-file.ts'] : [];
const setupFiles = cpuPerFile;
// Each test file removes the temporary folders it made (tests/helpers/temp-dirs.ts) through this runner.
const runner = './tests/helpers/temp-dirs-runner.ts';

function evalVitestOptions() {
  try {
    return vitestOptionsOf(readConfig(process.env));
  } catch {
    return vitestOptionsOf(readConfig({}));
  }
}

// Keeps toolgauge's reporter registered when `--reporter` replaces the configured ones (Vitest calls the projects'
// plugins). Each project names it rather than `extends: true`: a project that extends this file has Vite bundle and
// evaluate it once more, each of the three even when `--project` selects one (about 0.15 CPU-s a run); the root's
// `test` options that matter here (sequencer, reporters, fsModuleCache) are Vitest's global ones anyway.
const plugins = [toolgaugePlugin(REPORTER_PATH)];

export default defineConfig({
  test: {
    // Transformed modules are cached on disk between runs: every CLI run (and every end-to-end test) starts faster.
    experimental: { fsModuleCache: true },
    // Unit runs: the files that wait on other processes start first (tests/helpers/sequencer.ts).
    sequence: { sequencer: LongFirstSequencer },
    reporters: [
      ...(process.env.TOOLGAUGE_QUIET_DEFAULT_REPORTER ? [] : ['default' as const]),
      './reporters/toolgauge.ts',
      ...(jsonOut ? [['json', { outputFile: jsonOut }] as ['json', { outputFile: string }]] : []),
    ],
    projects: [
      {
        plugins,
        test: {
          name: 'unit',
          setupFiles,
          runner,
          maxWorkers: TEST_WORKERS,
          include: [
            'harness/**/*.test.ts',
            'reporters/**/*.test.ts',
            'scripts/**/*.test.ts',
            'tests/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          // The packed package's end-to-end tests are their own project (tests/package: one npm pack for all of them).
          exclude: ['tests/package/**', '**/node_modules/**'],
          // Generous: a busy machine slows every test; the suite's total time is what is budgeted (under 3 minutes).
          testTimeout: 300_000,
          hookTimeout: 120_000,
          // Test files share their worker's loaded modules (about 60 s less on 2 cores): tests restore what they
          // change (environment through tests/helpers, spies through restoreMocks) and keep state in their own temp dirs.
          isolate: false,
          restoreMocks: true,
          // Larger young-generation semi-spaces (V8's default is 16 MiB): the statistics and property tests allocate
          // heavily, and fewer scavenges cut about a tenth of their CPU time. Property sites that see up to 32 object
          // shapes stay polymorphic (V8's default is 4): the template engine's value classes set their fields in a
          // shared base constructor, which went megamorphic and took a slow path (about a third of a render's CPU).
          execArgv: ['--max-semi-space-size=32', '--max-valid-polymorphic-map-count=32'],
        },
      },
      // toolgauge as a user installs it (tests/package): packs, builds and installs it into fresh projects.
      {
        plugins,
        // Its files wait on the processes they start: they share the unit project's workers (one group, run together).
        test: {
          name: 'package',
          include: ['tests/package/**/*.test.ts'],
          globalSetup: ['tests/package/global-setup.ts'],
          setupFiles,
          runner,
          maxWorkers: TEST_WORKERS,
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      // The benchmark suites: harness/vitest/eval-project.ts (the CLI runs the same project without this file). Its
      // Vitest options come from the run's configuration, as a CLI run's do (harness/kit/plan.ts); a configuration
      // that does not parse leaves the defaults here, and the global setup reports it.
      {
        plugins,
        test: builtinEvalProject(evalVitestOptions(), ['./harness/builtin/global-setup.ts']),
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

// Two projects: `unit` (npm test: code beside its *.test.ts, plus tests/) and `eval` (the benchmark suites,
// one test per benchmark instance). Reporters for eval runs are added by the toolgauge CLI and by
// harness/vitest/eval-config.ts; the JSON reporter below exists so .ci/run can count tests.
const jsonOut = process.env.TOOLGAUGE_VITEST_JSON;

export default defineConfig({
  test: {
    reporters: jsonOut ? ['default', ['json', { outputFile: jsonOut }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['harness/**/*.test.ts', 'reporters/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'eval',
          include: ['suites/**/*.eval.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});

// The Vitest configuration for a project's eval files (the package subpath 'toolgauge/vitest-config').
export { evalConfig, type EvalConfigOptions } from '../vitest/eval-config.ts';

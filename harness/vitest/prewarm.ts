// A setup file of the eval projects: the first thing a test worker runs, before any suite module loads. When a suite
// of the run will call tools, the sandbox's workers start booting here (about a second for pyodide), in parallel with
// loading the suite and reading its dataset, instead of after. Imports nothing heavy on purpose.
import { inject } from 'vitest';
import { prewarmSandbox } from '../kit/prewarmed-sandbox.ts';
import { sandboxOptionsOf } from '../kit/sandbox-options.ts';
import './context.ts';

const kc = inject('toolgauge');
if (kc?.prewarmSandbox) prewarmSandbox(sandboxOptionsOf(kc.run));

import { inject } from 'vitest';
import { planRun, type RunPlan } from '../kit/plan.ts';
import type {} from './task-meta.ts'; // inject('toolgauge') is typed there

/**
 * The run's configuration in a worker: what the global setup parsed and provided. Without the global setup (a
 * user's own Vitest config without toolgauge's preset) the environment is parsed here instead — the worker is
 * then the edge — and no simulator is running, so an endpoint must be given.
 */
export function runPlan(): RunPlan {
  const provided = inject('toolgauge');
  return provided ?? planRun(process.env, []);
}

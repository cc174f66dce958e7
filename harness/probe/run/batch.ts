import type { ProbeCase } from '../cases/types.ts';
import { runProbeCase, type ProbeRunContext } from './run-case.ts';
import type { ProbeRecord } from './types.ts';

/**
 * Run many cases outside Vitest (calibration tests, benchmarks): the same per-case pipeline the suite runs, with
 * at most `concurrency` cases in flight (the model client has its own limit too). Results in case order.
 */
export async function runProbeCases(
  cases: readonly ProbeCase[],
  ctx: ProbeRunContext,
  concurrency = 8,
  trial = 0,
): Promise<ProbeRecord[]> {
  const out = new Array<ProbeRecord>(cases.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) out[i] = await runProbeCase(cases[i]!, ctx, trial);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, cases.length)) }, worker));
  return out;
}

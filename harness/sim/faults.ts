import { deriveSeed, Rng } from '../core/rng.ts';

export type Fault = 'none' | 'rate_limit' | 'server_error' | 'hang' | 'truncated';
const KINDS: Fault[] = ['rate_limit', 'server_error', 'hang', 'truncated'];

/**
 * `sim:flaky`: whether this attempt fails, and how. Seeded by the request's identity and its attempt number, so a
 * retry of the same request draws again (and a re-run of the whole suite sees the same faults).
 */
export function pickFault(rate: number, seed: number, requestKey: string, attempt: number): Fault {
  const rng = new Rng(deriveSeed(seed, 'flaky', requestKey, attempt));
  if (!rng.chance(rate)) return 'none';
  return rng.pick(KINDS);
}

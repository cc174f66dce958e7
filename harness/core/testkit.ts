/**
 * Test support: how much of an exhaustive check the default `npm test` runs. The default takes a deterministic
 * sample (every k-th item) so the whole suite fits its time budget on a busy machine; `TOOLGAUGE_HEAVY_TESTS=1`
 * runs everything (the figures in docs/ come from the heavy mode).
 */
import fc from 'fast-check';

export const HEAVY_TESTS = process.env.TOOLGAUGE_HEAVY_TESTS === '1';

/** Every k-th item by default (always the first), all of them in the heavy mode. */
export function sampled<T>(items: readonly T[], k: number): T[] {
  return HEAVY_TESTS ? [...items] : items.filter((_, i) => i % k === 0);
}

/** fast-check runs: `n` in the heavy mode, `n / k` (at least 20) by default. */
export function runs(n: number, k = 3): number {
  return HEAVY_TESTS ? n : Math.max(20, Math.round(n / k));
}

/** Answers requests one JSON value at a time, or an array of them with an array (JsonLinesChild). */
export interface Oracle {
  ask<A = unknown>(req: unknown): Promise<A>;
}

/**
 * A differential property's oracle answers for the values a run will draw, asked for before the run in one batch:
 * the values are sampled with the run's own seed (pass the returned `seed` to fc.assert, with the same `numRuns`) and
 * their requests sent as one JSON array, one round trip where each value took its own. The returned `ask` answers
 * from the batch and asks the oracle itself for a request the batch did not hold (a shrink after a failure). A
 * request may be an array of requests (answered by an array, and each part on its own); `undefined` is no request.
 */
export async function prefetchedOracle<T>(
  oracle: Oracle,
  arb: fc.Arbitrary<T>,
  numRuns: number,
  requestOf: (v: T) => unknown,
): Promise<{ seed: number; ask: <A>(req: unknown) => Promise<A> }> {
  const seed = (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  const requests = fc
    .sample(arb, { seed, numRuns })
    .map(requestOf)
    .filter((r) => r !== undefined);
  const flat = requests.flatMap((r) => (Array.isArray(r) ? r : [r]));
  const answers = flat.length ? await oracle.ask<unknown[]>(flat) : [];
  const known = new Map<string, unknown>();
  let at = 0;
  for (const r of requests) {
    const n = Array.isArray(r) ? r.length : 1;
    known.set(JSON.stringify(r), Array.isArray(r) ? answers.slice(at, at + n) : answers[at]);
    // the parts of an array request are answered on their own too
    if (Array.isArray(r)) r.forEach((part, k) => known.set(JSON.stringify(part), answers[at + k]));
    at += n;
  }
  const ask = async <A>(req: unknown): Promise<A> => {
    const key = JSON.stringify(req);
    return (known.has(key) ? known.get(key) : await oracle.ask(req)) as A;
  };
  return { seed, ask };
}

/**
 * Test support: how much of an exhaustive check the default `npm test` runs. The default takes a deterministic
 * sample (every k-th item) so the whole suite fits its time budget on a busy machine; `TOOLGAUGE_HEAVY_TESTS=1`
 * runs everything (the figures in docs/ come from the heavy mode).
 */
export const HEAVY_TESTS = process.env.TOOLGAUGE_HEAVY_TESTS === '1';

/** Every k-th item by default (always the first), all of them in the heavy mode. */
export function sampled<T>(items: readonly T[], k: number): T[] {
  return HEAVY_TESTS ? [...items] : items.filter((_, i) => i % k === 0);
}

/** fast-check runs: `n` in the heavy mode, `n / k` (at least 20) by default. */
export function runs(n: number, k = 3): number {
  return HEAVY_TESTS ? n : Math.max(20, Math.round(n / k));
}

/**
 * Deal instances over a suite's part files so `--shard` spreads the work: sorted heaviest first (ties by position),
 * then round-robin, so every part gets a similar mix. Pure; every part computes the same dealing. Each part keeps
 * its instances in dataset order.
 */
export function dealToPart<I>(
  instances: readonly I[],
  part: number,
  parts: number,
  weight: (i: I) => number = () => 1,
): I[] {
  if (parts <= 1) return part <= 1 ? [...instances] : [];
  const order = instances.map((inst, i) => ({ inst, i, w: weight(inst) })).sort((a, b) => b.w - a.w || a.i - b.i);
  return order
    .filter((_, k) => k % parts === part - 1)
    .sort((a, b) => a.i - b.i)
    .map((e) => e.inst);
}

/**
 * Vitest collects all of a test file's tests before it runs one and keeps them until the file ends (about 4 KiB a
 * test in the worker): a run of many tests is dealt over the suite's part files even when it is not sharded, so the
 * worker holds one part's tests at a time and drops them when the part ends. Up to this many tests (instances ×
 * trials) they stay in the first part, where the run does not wait for each part's slowest instance in turn.
 */
export const TESTS_PER_UNSHARDED_PART = 1000;

/** How many of a suite's `parts` files a run deals its instances over: all when sharded, by its tests when not. */
export function partsInUse(o: { tests: number; parts: number; sharded: boolean }): number {
  if (o.sharded) return o.parts;
  return Math.max(1, Math.min(o.parts, Math.ceil(o.tests / TESTS_PER_UNSHARDED_PART)));
}

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

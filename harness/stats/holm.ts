// Holm–Bonferroni step-down adjustment: controls the family-wise error rate under any dependence between tests,
// and is uniformly more powerful than plain Bonferroni.

/**
 * Holm-adjusted p-values, in the input order. With the m p-values sorted ascending p(1) ≤ … ≤ p(m):
 * adj(i) = max_{j ≤ i} min(1, (m − j + 1)·p(j)), so adjusted values are ≥ raw, ≤ 1, and keep the raw order
 * (ties get equal adjusted values). Reject at family-wise level α exactly where adj ≤ α.
 * NaN entries (a comparison that could not be made, e.g. no shared instances) stay NaN and are not counted in m.
 */
export function holm(pValues: readonly number[]): number[] {
  const idx: number[] = [];
  pValues.forEach((p, i) => {
    if (Number.isNaN(p)) return;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holm: p-value at index ${i} must be in [0, 1], got ${p}`);
    idx.push(i);
  });
  idx.sort((x, y) => (pValues[x] as number) - (pValues[y] as number) || x - y);
  const out = pValues.map(() => NaN);
  const m = idx.length;
  let running = 0;
  idx.forEach((i, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * (pValues[i] as number)));
    out[i] = running;
  });
  return out;
}

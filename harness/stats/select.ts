// Type-7 quantiles of an unsorted sample by selection rather than a full sort: a bootstrap interval needs two order
// statistics (and their upper neighbours) of thousands of resampled statistics, and sorting them all was the largest
// single cost of a run's end-of-run statistics.
import { quantile } from './describe.ts';

/** Moves the k-th smallest of a[lo..hi] to index k, with no larger value before it and no smaller one after (Hoare). */
function selectInPlace(a: Float64Array, k: number, lo: number, hi: number): void {
  while (hi > lo) {
    const x = a[lo]!;
    const y = a[(lo + hi) >>> 1]!;
    const z = a[hi]!;
    // The median of three as the pivot: sorted or constant runs (common in bootstrap statistics) stay linear.
    const pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function minFrom(a: Float64Array, from: number): number {
  let m = a[from]!;
  for (let i = from + 1; i < a.length; i++) if (a[i]! < m) m = a[i]!;
  return m;
}

/** Whether ordering by `<` alone could place a value where a numeric sort would not (NaN, or -0 beside +0). */
function needsSort(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (Number.isNaN(x) || (x === 0 && 1 / x < 0)) return true;
  }
  return false;
}

/**
 * The type-7 quantiles at `qs` (ascending) of `a`, exactly as `quantile` of the sorted sample gives them. Reorders
 * `a` in place (a partial sort: each selected statistic at its sorted index).
 */
export function quantilesBySelection(a: Float64Array, qs: readonly number[]): number[] {
  const n = a.length;
  if (n === 0 || needsSort(a)) {
    a.sort();
    return qs.map((q) => quantile(a, q));
  }
  const out: number[] = [];
  let from = 0;
  for (const q of qs) {
    if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be in [0, 1], got ${q}`);
    const h = (n - 1) * q;
    const i = Math.floor(h);
    // Everything before `from` is no larger than anything after it (an earlier selection), so the search starts there.
    if (i >= from) selectInPlace(a, i, from, n - 1);
    const x0 = a[i]!;
    if (i + 1 >= n) {
      out.push(x0);
      continue;
    }
    const x1 = minFrom(a, i + 1);
    out.push(x0 === x1 ? x0 : x0 + (h - i) * (x1 - x0));
    from = i + 1;
  }
  return out;
}

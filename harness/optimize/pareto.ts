import type { Rng } from '../core/rng.ts';

/**
 * GEPA's candidate selection (Agrawal et al., 2025), pure. `scores[c][i]` is candidate c's score on validation
 * instance i. For every instance the best candidates form its front; a candidate is dropped when every front it is
 * in also holds another surviving candidate (it adds no instance of its own); the survivors are drawn with
 * probability proportional to the number of fronts they are in. Candidates with the lower mean are tested for
 * dropping first, and among equal means the newer one, so of two identical score vectors the older survives.
 */
export interface ParetoFront {
  /** Per instance, the candidates with the best score on it. */
  fronts: number[][];
  /** Candidates that survive the dominance pruning, ascending. */
  survivors: number[];
  /** Fronts each survivor is in (the sampling weight). */
  weight: Map<number, number>;
}

export function paretoFront(scores: readonly (readonly number[])[]): ParetoFront {
  const nc = scores.length;
  const ni = nc ? scores[0]!.length : 0;
  const fronts: number[][] = [];
  for (let i = 0; i < ni; i++) {
    let best = -Infinity;
    for (let c = 0; c < nc; c++) best = Math.max(best, scores[c]![i]!);
    const f: number[] = [];
    for (let c = 0; c < nc; c++) if (scores[c]![i] === best) f.push(c);
    fronts.push(f);
  }
  const mean = (c: number) => (ni ? scores[c]!.reduce((s, x) => s + x, 0) / ni : 0);
  const alive = new Set(Array.from({ length: nc }, (_, c) => c));
  const order = [...alive].sort((a, b) => mean(a) - mean(b) || b - a);
  for (const c of order) {
    const mine = fronts.filter((f) => f.includes(c));
    // A candidate in no front at all adds nothing either.
    const covered = mine.every((f) => f.some((o) => o !== c && alive.has(o)));
    if (covered && alive.size > 1) alive.delete(c);
  }
  const survivors = [...alive].sort((a, b) => a - b);
  const weight = new Map(survivors.map((c) => [c, fronts.filter((f) => f.includes(c)).length]));
  return { fronts, survivors, weight };
}

/** Draw a candidate from the Pareto front, weighted by how many instances it is best on. */
export function selectFromFront(front: ParetoFront, rng: Rng): number {
  const total = [...front.weight.values()].reduce((s, w) => s + w, 0);
  if (total === 0) return front.survivors[0] ?? 0;
  let r = rng.next() * total;
  for (const c of front.survivors) {
    r -= front.weight.get(c)!;
    if (r < 0) return c;
  }
  return front.survivors[front.survivors.length - 1]!;
}

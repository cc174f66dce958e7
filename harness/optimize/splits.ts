import { UsageError } from '../core/errors.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import { pushTo } from '../core/push-to.ts';

/** ToolHop's reported eval set, read from its data file. Optimization never trains or selects on them unless told to. */
export { toolhopEvalIds } from '../toolhop/eval-ids.ts';

/** The eval ids as a short description for files and reports: `0-99` for a run of consecutive numbers, else the count. */
export function describeIds(ids: ReadonlySet<string>): string {
  const ns = [...ids].map(Number);
  if (ns.every((n) => Number.isInteger(n))) {
    ns.sort((a, b) => a - b);
    if (ns.every((n, i) => n === ns[0]! + i)) return `${ns[0]}–${ns.at(-1)}`;
  }
  return `${ids.size} ids`;
}

export interface SplitRow {
  id: string;
  /** The stratum the split balances (ToolHop: the answer type), so train and val look like the pool. */
  stratum: string;
}

export interface SplitOptions {
  trainSize: number;
  valSize: number;
  seed: number;
  /** Draw from the eval ids too (recorded as overlap). */
  allowEvalIds: boolean;
  evalIds: ReadonlySet<string>;
}

export interface Splits {
  train: string[];
  val: string[];
  /** Pool rows in neither split, in dataset order: where optimised prompts are judged. */
  heldout: string[];
  /** Rows the pool was drawn from. */
  pool: number;
  /** Eval ids present in the data and kept out of the pool. */
  excludedEvalIds: string[];
  /** Eval ids in train or val (only with allowEvalIds). */
  evalOverlap: string[];
  seed: number;
}

/**
 * Seeded, stratified train/val splits from the rows outside the eval ids. Each split takes from every stratum in
 * proportion to the pool (largest remainders), rows chosen in a seeded shuffle; the two splits never share a row.
 */
export function drawSplits(rows: readonly SplitRow[], o: SplitOptions): Splits {
  if (o.trainSize < 1 || o.valSize < 1)
    throw new UsageError('toolgauge optimize: --train-size and --val-size must be at least 1');
  const excluded = o.allowEvalIds ? [] : rows.filter((r) => o.evalIds.has(r.id)).map((r) => r.id);
  const pool = o.allowEvalIds ? rows.slice() : rows.filter((r) => !o.evalIds.has(r.id));
  const need = o.trainSize + o.valSize;
  if (pool.length < need) {
    const where = o.allowEvalIds
      ? 'in the data'
      : `outside the eval ids ${describeIds(o.evalIds)} (${excluded.length} eval rows left out; --allow-eval-ids draws from them too)`;
    throw new UsageError(
      `toolgauge optimize: --train-size ${o.trainSize} + --val-size ${o.valSize} needs ${need} rows, but only ${pool.length} valid rows are ${where}`,
    );
  }
  const shuffled = new Rng(deriveSeed(o.seed, 'optimize-split')).shuffle(pool);
  const train = take(shuffled, o.trainSize);
  const trainIds = new Set(train.map((r) => r.id));
  const val = take(
    shuffled.filter((r) => !trainIds.has(r.id)),
    o.valSize,
  );
  const used = new Set([...trainIds, ...val.map((r) => r.id)]);
  const order = new Rng(deriveSeed(o.seed, 'optimize-split-order'));
  return {
    train: order.shuffle(train.map((r) => r.id)),
    val: order.shuffle(val.map((r) => r.id)),
    heldout: pool.filter((r) => !used.has(r.id)).map((r) => r.id),
    pool: pool.length,
    excludedEvalIds: excluded,
    evalOverlap: [...used].filter((id) => o.evalIds.has(id)),
    seed: o.seed,
  };
}

/** `size` rows, each stratum in proportion to its share of `rows` (largest remainders), in `rows` order. */
function take(rows: readonly SplitRow[], size: number): SplitRow[] {
  const by = new Map<string, SplitRow[]>();
  for (const r of rows) pushTo(by, r.stratum, r);
  const quota = [...by].map(([k, rs]) => ({
    k,
    exact: (rs.length * size) / rows.length,
    n: Math.floor((rs.length * size) / rows.length),
  }));
  let left = size - quota.reduce((s, q) => s + q.n, 0);
  // Ties in the remainder go to the larger stratum, then the stratum seen first.
  for (const q of [...quota].sort(
    (a, b) => b.exact - b.n - (a.exact - a.n) || by.get(b.k)!.length - by.get(a.k)!.length,
  )) {
    if (left <= 0) break;
    q.n++;
    left--;
  }
  const picked = new Set(quota.flatMap((q) => by.get(q.k)!.slice(0, q.n)));
  return rows.filter((r) => picked.has(r));
}

// Exact rational arithmetic (BigInt) used by the tests as an independent reference for the floating-point code.
// Not used by the statistics themselves.

/** C(n, 0..n) as BigInts. */
export function binomialRow(n: number): bigint[] {
  const row: bigint[] = [1n];
  for (let i = 0; i < n; i++) row.push(((row[i] as bigint) * BigInt(n - i)) / BigInt(i + 1));
  return row;
}

/** C(n, k) as a BigInt (0 when k < 0 or k > n). */
export function choose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  return binomialRow(n)[k] as bigint;
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** ln(num/den) for positive BigInts, to about 1e-15 relative, however large or small the ratio. */
export function logRatio(num: bigint, den: bigint): number {
  const lg = (x: bigint) => {
    const shift = Math.max(0, bitLength(x) - 60);
    return Math.log(Number(x >> BigInt(shift))) + shift * Math.LN2;
  };
  return lg(num) - lg(den);
}

/** num/den as the nearest double (for ratios within the normal double range). */
export function ratio(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  return Math.exp(logRatio(num, den));
}

/**
 * Exact two-sided binomial p-value for p = a/b: the total probability of outcomes whose probability is ≤ that of
 * k (exact comparison, no tolerance), as a numerator over the common denominator b^n.
 */
export function exactTwoSidedRational(k: number, n: number, a: number, b: number): { num: bigint; den: bigint } {
  const row = binomialRow(n);
  const A = BigInt(a);
  const B = BigInt(b - a);
  const weights = row.map((c, i) => c * A ** BigInt(i) * B ** BigInt(n - i));
  const wk = weights[k] as bigint;
  let num = 0n;
  for (const w of weights) if (w <= wk) num += w;
  return { num, den: BigInt(b) ** BigInt(n) };
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The closest known name within two edits (or one the name starts), for an unknown key or flag. */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key, k);
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k ?? known.find((k) => k.startsWith(key) && key.length >= 3);
}

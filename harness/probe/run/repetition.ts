/**
 * Degenerate repetition in a model's output — the honest cost of constrained decoding (a model pushed off its path
 * inside a free string can loop until the budget ends) and a failure of free decoding too. Pure, linear in the
 * text per unit length.
 */

export interface RepeatedUnit {
  unit: string;
  times: number;
  at: number;
}

/**
 * The longest stretch where a unit of 1–`maxUnit` characters repeats back to back at least `minTimes` times and
 * covers at least `minChars` characters; null when there is none. Markdown rules (`-----`) and short
 * emphasis are below the default bounds.
 */
export function repeatedUnit(
  text: string,
  opts: { maxUnit?: number; minTimes?: number; minChars?: number } = {},
): RepeatedUnit | null {
  const maxUnit = opts.maxUnit ?? 40;
  const minTimes = opts.minTimes ?? 8;
  const minChars = opts.minChars ?? 64;
  let best: RepeatedUnit | null = null;
  let bestLen = 0;
  for (let L = 1; L <= maxUnit && 2 * L <= text.length; L++) {
    // run = how many consecutive positions i satisfy text[i] === text[i + L]: a run of r means a period-L stretch of r + L chars
    let run = 0;
    for (let i = 0; i + L <= text.length; i++) {
      if (i + L < text.length && text[i] === text[i + L]) {
        run++;
        continue;
      }
      const len = run + L;
      const times = Math.floor(len / L);
      if (run > 0 && times >= minTimes && len >= minChars && len > bestLen) {
        const start = i - run;
        best = { unit: text.slice(start, start + L), times, at: start };
        bestLen = len;
      }
      run = 0;
    }
  }
  return best;
}

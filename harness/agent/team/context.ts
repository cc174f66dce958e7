/**
 * What one agent sees of others: chunks (one per report), each cut to its tail, then as many whole chunks as fit
 * in a character budget, newest last. Selection goes from the last chunk backwards and skips a chunk that does
 * not fit while trying earlier, smaller ones, so a long report cannot crowd out every other.
 */
export interface Chunk {
  /** Who wrote it (index into the caller's list of producers). */
  from: number;
  text: string;
}

export interface FittedContext {
  text: string;
  /** Producers whose chunk made it in, in output order. */
  included: number[];
  /** Producers whose chunk was left out for lack of room. */
  dropped: number[];
}

const SEP = '\n\n';

/** The last `max` characters (code points), marked when something was cut. */
export function clipTail(text: string, max: number): string {
  const cps = Array.from(text);
  if (cps.length <= max) return text;
  const marker = '[…] ';
  if (max <= marker.length) return cps.slice(cps.length - max).join('');
  return marker + cps.slice(cps.length - (max - marker.length)).join('');
}

export function fitChunks(chunks: readonly Chunk[], budget: number): FittedContext {
  const picked: Chunk[] = [];
  const dropped: number[] = [];
  let size = 0;
  for (let i = chunks.length - 1; i >= 0; i--) {
    const c = chunks[i]!;
    const len = Array.from(c.text).length + (picked.length ? SEP.length : 0);
    if (size + len > budget) {
      // Even alone it is too long: keep its tail, so the receiver is never left with nothing.
      if (!picked.length && budget > 0) {
        picked.push({ from: c.from, text: clipTail(c.text, budget) });
        size = budget;
        continue;
      }
      dropped.push(c.from);
      continue;
    }
    picked.push(c);
    size += len;
  }
  picked.reverse();
  return { text: picked.map((c) => c.text).join(SEP), included: picked.map((c) => c.from), dropped: dropped.reverse() };
}

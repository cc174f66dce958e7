import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../core/testkit.ts';
import { accepts, acceptsLazy, rootEnds } from './recognize.ts';

// A root that refers to itself: the inner root's derivations begin at later offsets, and only a root that began at
// the start offset may end the match. The oracles are hand-written membership tests for small language families,
// sharing nothing with the Earley recognizer.

/** Every prefix length of `s` that `inLang` accepts: what rootEnds must return. */
function prefixEnds(s: string, inLang: (x: string) => boolean): number[] {
  const out: number[] = [];
  for (let j = 0; j <= s.length; j++) if (inLang(s.slice(0, j))) out.push(j);
  return out;
}

/** `root ::= L root R | M` derives exactly L^k M R^k for k ≥ 0. */
function inNested(l: string, m: string, r: string, s: string): boolean {
  for (let k = 0; k * l.length <= s.length; k++) if (s === l.repeat(k) + m + r.repeat(k)) return true;
  return false;
}

/** Balanced parentheses (the empty string included). */
function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
    else if (c !== '(' && c !== ')') return false;
  }
  return depth === 0;
}

/** Every string over `alphabet` of length at most `max`. */
function allStrings(alphabet: string, max: number): string[] {
  const out = [''];
  for (let i = 0; out[i] !== undefined && out[i]!.length < max; i++) for (const c of alphabet) out.push(out[i] + c);
  return out;
}

describe('a recursive root', () => {
  it('matches only derivations that begin at the start (hand-derived cases)', () => {
    const parens = 'root ::= "(" root ")" | "x"';
    for (const s of ['x', '(x)', '((x))']) expect(accepts(parens, s), s).toBe(true);
    // each of these ends where an inner root (begun after an unmatched "(") ends
    for (const s of ['(x', '((x)', '(((x))']) expect(accepts(parens, s), s).toBe(false);
    expect(rootEnds(parens, '((x)))')).toEqual([5]);
    expect(rootEnds(parens, '((x)')).toEqual([]);

    const suffixed = 'root ::= "a" root "b" | "a"';
    expect(rootEnds(suffixed, 'aaabb')).toEqual([1, 5]);
    expect(accepts(suffixed, 'aa')).toBe(false);
    expect(accepts(suffixed, 'aab')).toBe(true);

    const dyck = 'root ::= "(" root ")" root | ""';
    expect(rootEnds(dyck, '(()')).toEqual([0]);
    expect(rootEnds(dyck, '()(())(')).toEqual([0, 2, 6]);
  });

  it('after a trigger, an inner root ending at the end of the text is not a match', () => {
    const g = 'root ::= "<" root ">" | "x"';
    expect(acceptsLazy(g, ['<'], 'prose <<x>>')).toEqual({ accepted: true, triggeredAt: 6 });
    expect(acceptsLazy(g, ['<'], 'prose <<x>')).toEqual({ accepted: false, triggeredAt: 6 });
  });

  it('balanced parentheses: every string of "()x" up to length 8 ends where the counter says', () => {
    const g = 'root ::= "(" root ")" root | ""';
    for (const s of allStrings('()x', 8)) expect(rootEnds(g, s), s).toEqual(prefixEnds(s, balanced));
  });

  it('root ::= L root R | M: rootEnds equals the prefixes of the form L^k M R^k', () => {
    const word = (min: number) => fc.string({ unit: fc.constantFrom('a', 'b'), minLength: min, maxLength: 2 });
    // texts near the language: L^k M R^j plus a tail, with j around k, and free strings
    const case_ = fc.record({ l: word(1), m: word(0), r: word(0) }).chain(({ l, m, r }) =>
      fc.record({
        l: fc.constant(l),
        m: fc.constant(m),
        r: fc.constant(r),
        text: fc.oneof(
          fc
            .tuple(fc.nat(4), fc.integer({ min: -1, max: 1 }), word(0))
            .map(([k, dj, tail]) => l.repeat(k) + m + r.repeat(Math.max(0, k + dj)) + tail),
          fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 10 }),
        ),
      }),
    );
    fc.assert(
      fc.property(case_, ({ l, m, r, text }) => {
        const g = `root ::= "${l}" root "${r}" | "${m}"`;
        expect(rootEnds(g, text)).toEqual(prefixEnds(text, (x) => inNested(l, m, r, x)));
      }),
      { numRuns: runs(300) },
    );
  });
});

/**
 * A string a GBNF grammar admits: the shortest derivation from `root` (fewest code points), each character class
 * answered by a plain printable character it allows. What a constrained decoder could be pushed to write when the
 * model's own call is not in the grammar at all (a grammar that only admits another tool). Pure.
 */
import { compileGrammar, type Grammar } from './recognize.ts';

type Matcher = { ranges: Array<[number, number]>; negated: boolean };

function allows(m: Matcher, cp: number): boolean {
  const hit = m.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
  return hit !== m.negated;
}

// letters first, then digits, then the rest of printable ASCII: a derived string reads as text
const PREFERRED = [...'abcdefghijklmnopqrstuvwxyz0123456789']
  .map((c) => c.codePointAt(0)!)
  .concat([...Array(95).keys()].map((i) => i + 32));

function charFor(m: Matcher): number | null {
  for (const cp of PREFERRED) if (allows(m, cp)) return cp;
  if (!m.negated) return m.ranges[0]?.[0] ?? null;
  for (let cp = 0xa0; cp < 0x3000; cp++) if (allows(m, cp)) return cp;
  return null;
}

/** The shortest string derivable from the grammar's root, or null when root derives nothing (or only unanswerable classes). */
export function shortestDerivation(grammar: Grammar | string): string | null {
  const g = typeof grammar === 'string' ? compileGrammar(grammar) : grammar;
  const INF = Number.POSITIVE_INFINITY;
  const cost = new Array<number>(g.byLhs.length).fill(INF);
  const chars = new Map<Matcher, number | null>();
  const termCost = (m: Matcher): number => {
    if (!chars.has(m)) chars.set(m, charFor(m));
    return chars.get(m) === null ? INF : 1;
  };
  const prodCost = (p: number): number =>
    g.prods[p]!.rhs.reduce((s, x) => s + ('nt' in x ? cost[x.nt]! : termCost(x.t)), 0);
  // Relaxation (Knuth's shortest derivation): costs only fall; each rule keeps the production that last lowered its
  // cost, and those choices never form a cycle, so expanding them terminates
  const best = new Array<number>(g.byLhs.length).fill(-1);
  for (let changed = true; changed; ) {
    changed = false;
    for (let p = 0; p < g.prods.length; p++) {
      const c = prodCost(p);
      const lhs = g.prods[p]!.lhs;
      if (c < cost[lhs]!) {
        cost[lhs] = c;
        best[lhs] = p;
        changed = true;
      }
    }
  }
  if (cost[g.root] === INF) return null;
  const out: number[] = [];
  const expand = (nt: number, depth: number): void => {
    if (depth > 10_000) throw new Error('grammar derivation did not terminate');
    for (const s of g.prods[best[nt]!]!.rhs) {
      if ('nt' in s) expand(s.nt, depth + 1);
      else out.push(chars.get(s.t)!);
    }
  };
  expand(g.root, 0);
  return String.fromCodePoint(...out);
}

import type { RolePrompts } from './types.ts';

/**
 * GEPA's merge (system-aware crossover), pure: two candidates that descend from a common ancestor each changed
 * some roles; the merge takes, role by role, the version that moved away from the ancestor. Where both moved, it
 * takes the version of `prefer` (the candidate with the better validation score). Null when the merge would be one
 * of the two (nothing to combine).
 */
export function mergePrompts(
  ancestor: RolePrompts,
  a: RolePrompts,
  b: RolePrompts,
  prefer: 'a' | 'b',
): RolePrompts | null {
  const out: RolePrompts = {};
  for (const role of Object.keys(ancestor)) {
    const fromA = a[role] !== ancestor[role];
    const fromB = b[role] !== ancestor[role];
    out[role] =
      fromA && fromB ? (prefer === 'a' ? a[role]! : b[role]!) : fromA ? a[role]! : fromB ? b[role]! : ancestor[role]!;
  }
  const same = (x: RolePrompts) => Object.keys(out).every((r) => out[r] === x[r]);
  return same(a) || same(b) ? null : out;
}

/** Every ancestor of a candidate (parents, their parents, …), nearest first. */
export function ancestorsOf(id: string, parentsOf: (id: string) => readonly string[]): string[] {
  const seen: string[] = [];
  let layer = [...parentsOf(id)];
  while (layer.length) {
    const next: string[] = [];
    for (const p of layer) {
      if (seen.includes(p)) continue;
      seen.push(p);
      next.push(...parentsOf(p));
    }
    layer = next;
  }
  return seen;
}

/** The nearest common ancestor of two candidates that is neither of them, or null. */
export function commonAncestor(a: string, b: string, parentsOf: (id: string) => readonly string[]): string | null {
  const ofA = ancestorsOf(a, parentsOf);
  const ofB = new Set(ancestorsOf(b, parentsOf));
  if (ofB.has(a) || ofA.includes(b)) return null; // one descends from the other: a merge adds nothing
  return ofA.find((x) => ofB.has(x)) ?? null;
}

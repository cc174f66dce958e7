import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// Grouping by copying the group's list on every append (`map.set(k, [...(map.get(k) ?? []), v])`) is quadratic in
// the group's size: `toolgauge report` of a 10^5-run ToolHop run spent about a minute in one such line (three
// breakdowns of about 25,000 runs per group). harness/core/push-to.ts appends in place.
const COPYING_APPEND = /\.set\(\s*([^,]+?),\s*\[\s*\.\.\.\(\s*[\w.]+\.get\(\s*\1\s*\)\s*\?\?\s*\[\]\s*\)\s*,/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'node_modules') return [];
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|mjs)$/.test(n) && !/\.test\.ts$/.test(n) ? [p] : [];
  });
}

describe('grouping', () => {
  it('the pattern is recognised', () => {
    expect(COPYING_APPEND.test('byKey.set(of(m), [...(byKey.get(of(m)) ?? []), m]);')).toBe(true);
    expect(COPYING_APPEND.test('groups.set(k, [...(groups.get(k) ?? []), x])')).toBe(true);
    expect(COPYING_APPEND.test('pushTo(byKey, of(m), m);')).toBe(false);
  });

  it('no module of the harness, the reporters or the suites groups by copying the list on every append', () => {
    const found = ['harness', 'reporters', 'suites']
      .flatMap((d) => sources(fromRoot(d)))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) =>
            COPYING_APPEND.test(line) && !/^\s*(\*|\/\/)/.test(line)
              ? `${relative(fromRoot(), f)}:${i + 1}: ${line.trim()}`
              : '',
          )
          .filter(Boolean),
      );
    expect(found).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// The benches are plain tsx scripts: a test helper they load must not load Vitest (a test helper that registers a
// hook at its top level throws "Vitest failed to find the current suite" outside a test run, and the bench never
// starts). Every module under tests/ that a bench reaches, through relative imports, is checked.

const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s))
    .filter((p) => existsSync(p));
}

/** Modules under tests/ reached from `entry`, each with whether it imports vitest itself. */
function testModulesReached(entry: string): Array<{ file: string; vitest: boolean }> {
  const testsDir = fromRoot('tests') + '/';
  const seen = new Set<string>();
  const out: Array<{ file: string; vitest: boolean }> = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (file.startsWith(testsDir)) {
      const text = readFileSync(file, 'utf8');
      out.push({ file: file.slice(testsDir.length), vitest: /\bfrom\s*['"]vitest['"]/.test(text) });
    }
    // Harness modules are the library: only what tests/ holds is a test helper.
    if (file.startsWith(testsDir) || file === entry) for (const dep of relativeImports(file)) visit(dep);
  };
  visit(entry);
  return out;
}

const benches = readdirSync(fromRoot('bench'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => join(fromRoot('bench'), f));

describe('bench scripts', () => {
  it('load no test helper that imports vitest', () => {
    expect(benches.length).toBeGreaterThan(10);
    const bad = benches.flatMap((b) =>
      testModulesReached(b)
        .filter((m) => m.vitest)
        .map((m) => `${b.slice(fromRoot().length + 1)} -> tests/${m.file}`),
    );
    expect(bad).toEqual([]);
  });

  it('the check sees a helper that imports vitest (tests/helpers/weather-eval.ts) when a script reaches it', () => {
    const reached = testModulesReached(fromRoot('harness', 'adapters', 'ai-sdk.test.ts'));
    expect(reached.find((m) => m.file === 'helpers/weather-eval.ts')).toEqual({
      file: 'helpers/weather-eval.ts',
      vitest: true,
    });
    // and one that does not: tests/helpers/cli.ts leaves its folders' removal to a setup file
    const resume = testModulesReached(fromRoot('tests', 'e2e', 'resume.test.ts'));
    expect(resume.find((m) => m.file === 'helpers/cli.ts')).toEqual({ file: 'helpers/cli.ts', vitest: false });
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// The own-eval files of docs/eval.md are what tests/package/fresh-project.test.ts writes into a fresh project; they
// must also be the files of examples/arith/, which the page and the README link to.
describe('the own-eval files of docs/eval.md', () => {
  it('are examples/arith/, byte for byte', () => {
    const page = readFileSync(fromRoot('docs', 'eval.md'), 'utf8');
    const start = page.indexOf('## The files and commands');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const blocks = [...section.matchAll(/```\w+ ([^\n]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(blocks.map(([f]) => f)).toEqual(['arith.eval.ts', 'vitest.config.ts', 'tsconfig.json']);
    for (const [file, text] of blocks)
      expect(text, file).toBe(readFileSync(fromRoot('examples', 'arith', file), 'utf8'));
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// README's "Your own eval" files are what tests/package/fresh-project.test.ts writes into a fresh project; they must
// also be the files of examples/arith/, which the README links to.
describe("README's own-eval files", () => {
  it('are examples/arith/, byte for byte', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const start = readme.indexOf('## Your own eval');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const blocks = [...section.matchAll(/```\w+ ([^\n]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(blocks.map(([f]) => f)).toEqual(['arith.eval.ts', 'vitest.config.ts', 'tsconfig.json']);
    for (const [file, text] of blocks) expect(text, file).toBe(readFileSync(fromRoot('examples', 'arith', file), 'utf8'));
  });
});

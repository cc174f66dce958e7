import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';
import { EvalNames } from './eval-names.ts';

/** A folder with the eval files a.eval.ts and b.eval.ts, and `link`, a symbolic link to it. */
function files() {
  const root = tempDir('eval-names');
  const real = join(root, 'evals');
  mkdirSync(real);
  for (const f of ['a.eval.ts', 'b.eval.ts']) writeFileSync(join(real, f), '');
  symlinkSync(real, join(root, 'link'));
  return { root, a: join(real, 'a.eval.ts'), b: join(real, 'b.eval.ts'), linkedA: join(root, 'link', 'a.eval.ts') };
}

describe('EvalNames: one eval a name in a run', () => {
  it('a name taken by another file is refused in one line naming the name and both files', () => {
    const f = files();
    const names = new EvalNames('run', f.root);
    names.define('same', { file: f.a, collection: {} });
    names.define('other', { file: f.b, collection: {} });
    expect(() => names.define('same', { file: f.b, collection: {} })).toThrow(
      "describeEval: the eval 'same' is defined in evals/a.eval.ts and in evals/b.eval.ts; each eval needs a name of its own (its results are written to a folder of that name)",
    );
    expect(names.names()).toEqual(['same', 'other']);
  });

  it('twice in one evaluation of a file is refused; another evaluation of it (a part, a new collection) is the same eval', () => {
    const f = files();
    const names = new EvalNames('run', f.root);
    const first = {};
    names.define('same', { file: f.a, collection: first });
    expect(() => names.define('same', { file: f.a, collection: first })).toThrow(
      /^describeEval: the eval 'same' is defined twice in evals\/a\.eval\.ts;/,
    );
    const part2 = {};
    names.define('same', { file: f.a, collection: part2 });
    // then that evaluation is the one a repeat is measured against
    expect(() => names.define('same', { file: f.a, collection: part2 })).toThrow(/twice in/);
    expect(names.size).toBe(1);
  });

  it('a file is one file however its path is spelt (through a symbolic link)', () => {
    const f = files();
    const names = new EvalNames('run', f.root);
    names.define('same', { file: f.linkedA, collection: {} });
    expect(names.hasFile(f.a)).toBe(true);
    expect(names.hasFile(f.b)).toBe(false);
    names.define('same', { file: f.a, collection: {} });
    expect(() => names.define('same', { file: f.b, collection: {} })).toThrow(/in evals\/a\.eval\.ts and in evals\/b/);
  });

  it('a file outside the run folder is named by its whole path', () => {
    const f = files();
    const names = new EvalNames('run', join(f.root, 'elsewhere'));
    names.define('same', { file: f.a, collection: {} });
    expect(() => names.define('same', { file: f.b, collection: {} })).toThrow(` in ${f.a} and in ${f.b};`);
  });
});

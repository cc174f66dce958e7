import fs, { mkdirSync, writeFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import fc from 'fast-check';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../core/paths.ts';
import { tempDir } from '../../tests/helpers/cli.ts';
import { evalGlob } from './eval-glob.ts';

const segment = fc.constantFrom('a', 'b', 'c', 'tmp', 'x.eval.ts');
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);

describe('evalGlob', () => {
  it('names each file from the root when all are inside it, else from the deepest folder holding them all (property)', () => {
    fc.assert(
      fc.property(path, fc.array(path, { minLength: 1, maxLength: 4 }), (root, files) => {
        // Paths of files: none is the root, nor a folder of another.
        fc.pre(!files.includes(root) && files.every((f) => files.every((g) => !g.startsWith(`${f}/`))));
        const g = evalGlob(root, files);
        const from = g.dir ?? root;
        expect(g.include.map((p) => resolve(from, p))).toEqual(files);
        const inside = (dir: string, f: string) => f.startsWith(dir === '/' ? '/' : `${dir}/`);
        if (files.every((f) => inside(root, f))) {
          expect(g.dir).toBeUndefined();
          return;
        }
        // The oracle: the longest shared run of leading segments of the files' folders.
        const folders = files.map((f) => f.split('/').slice(1, -1));
        let n = 0;
        while (folders.every((s) => n < s.length && s[n] === folders[0]![n])) n++;
        expect(g.dir).toBe(`/${folders[0]!.slice(0, n).join('/')}`);
        for (const p of g.include) expect(p.startsWith('..')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("with Vitest's glob, files outside the root are found without listing a folder outside their own", async () => {
    const dir = tempDir('eval-glob');
    mkdirSync(join(dir, 'sub'));
    const files = [join(dir, 'one.eval.ts'), join(dir, 'sub', 'two.eval.ts')];
    for (const f of files) writeFileSync(f, '');
    writeFileSync(join(dir, 'other.eval.ts'), '');
    // Vitest's own call (globFiles): patterns from `dir`, or the root when none, with the configuration's exclude.
    const listing = async (g: { dir?: string; include: string[] }) => {
      const listed: string[] = [];
      const cwd = g.dir ?? PACKAGE_ROOT;
      const found = await glob(g.include, {
        dot: true,
        cwd,
        ignore: ['**/node_modules/**'],
        expandDirectories: false,
        fs: {
          ...fs,
          readdir: ((p: string, ...rest: unknown[]) => {
            listed.push(resolve(p));
            return (fs.readdir as (...a: unknown[]) => void)(p, ...rest);
          }) as typeof fs.readdir,
        },
      });
      return { found: found.map((f) => posix.resolve(cwd, f)).sort(), listed };
    };
    const now = await listing(evalGlob(PACKAGE_ROOT, files));
    expect(now.found).toEqual([...files].sort());
    expect(now.listed.filter((p) => relative(dir, p).startsWith('..'))).toEqual([]);
    // From the root, as before: the glob climbed out and listed the folders on the way (the temporary folder too).
    const before = await listing({ include: files.map((f) => relative(PACKAGE_ROOT, f)) });
    expect(before.found).toEqual([...files].sort());
    expect(before.listed).toContain(resolve(dir, '..'));
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tests/helpers/cli.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { bundleDist } from './bundle-dist.mjs';

/** Sources to build: the TypeScript modules, and other files (assets, copied to dist/ as the build does). */
async function build(files: Record<string, string>): Promise<string> {
  const root = tempDir('bundle-dist');
  const dist = join(root, 'dist');
  for (const [path, text] of Object.entries(files)) {
    for (const dir of [root, ...(path.endsWith('.ts') ? [] : [dist])]) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }
  const modules = Object.keys(files).filter((p) => p.endsWith('.ts'));
  await bundleDist({ root, dist, modules, pkg: PKG });
  return dist;
}

const PKG = { exports: { '.': { default: './dist/api/index.js' }, './other': { default: './dist/api/other.js' } } };

describe('the package build bundles the sources into dist/', () => {
  it("keeps the entries at their paths, shares a module between them as one instance, and keeps each module's own URL", async () => {
    const dist = await build({
      'api/index.ts': `export { counter } from '../kit/state.ts';\nexport { assetUrl } from '../kit/deep/asset.ts';\n`,
      'api/other.ts': `import { counter } from '../kit/state.ts';\nexport const bump = (): number => ++counter.n;\n`,
      'kit/state.ts': `export const counter: { n: number } = { n: 0 };\n`,
      'kit/deep/asset.ts': `export const assetUrl = new URL('./data.txt', import.meta.url).href;\n`,
      'kit/deep/data.txt': 'x',
      // Loaded by a computed path only (as the suite folders' definitions are): an entry, found by no import.
      'loader.ts': `export const load = (name: string) => import(\`./plugins/\${name}.js\`);\n`,
      'plugins/one.ts': `export default 'one';\n`,
    });
    expect(existsSync(join(dist, 'kit', 'state.js')), 'a module only imported moved into a chunk').toBe(false);
    expect(readdirSync(join(dist, 'chunks')).length).toBeGreaterThan(0);

    const index = await import(pathToFileURL(join(dist, 'api', 'index.js')).href);
    const other = await import(pathToFileURL(join(dist, 'api', 'other.js')).href);
    other.bump();
    expect(index.counter.n, 'both entries see the one instance of kit/state.ts').toBe(1);
    expect(index.assetUrl).toBe(pathToFileURL(join(dist, 'kit', 'deep', 'data.txt')).href);
    const loader = await import(pathToFileURL(join(dist, 'loader.js')).href);
    expect((await loader.load('one')).default).toBe('one');
  });

  it("resolves a computed relative import() against the module's own folder, not its chunk's, as the built .js", async () => {
    const dist = await build({
      'api/index.ts': `export { loadSuite } from '../kit/sub/load.ts';\n`,
      'api/other.ts': `export { loadSuite } from '../kit/sub/load.ts';\n`,
      'kit/sub/load.ts': `export const loadSuite = (n: string) => import(\`../../suites/\${n}/suite.ts\`);\n`,
      'suites/a/suite.ts': `export default 'suite a';\n`,
    });
    expect(existsSync(join(dist, 'kit', 'sub', 'load.js'))).toBe(false);
    // An entry of its own, loaded by its path at run time: not bundled beside the loader (esbuild's glob import).
    const holding = (text: string) =>
      readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter(
        (f) => f.endsWith('.js') && readFileSync(join(dist, f), 'utf8').includes(text),
      );
    expect(holding('suite a')).toEqual([join('suites', 'a', 'suite.js')]);
    const index = await import(pathToFileURL(join(dist, 'api', 'index.js')).href);
    expect((await index.loadSuite('a')).default).toBe('suite a');
  });
});

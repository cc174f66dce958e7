import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tests/helpers/cli.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { bundleDist } from './bundle-dist.mjs';

/** A dist/ as tsc leaves it: each module with its declaration beside it (a file without one is an asset). */
function distOf(files: Record<string, string>): string {
  const dist = join(tempDir('bundle-dist'), 'dist');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
    if (path.endsWith('.js') && !path.startsWith('assets/')) writeFileSync(join(dist, `${path.slice(0, -3)}.d.ts`), '');
  }
  return dist;
}

const PKG = { exports: { '.': { default: './dist/api/index.js' }, './other': { default: './dist/api/other.js' } } };

describe('the package build bundles dist/ in place', () => {
  it("keeps the entries at their paths, shares a module between them as one instance, and keeps each module's own URL", async () => {
    const dist = distOf({
      'api/index.js': `export { counter } from '../kit/state.js';\nexport { assetUrl } from '../kit/deep/asset.js';\n`,
      'api/other.js': `import { counter } from '../kit/state.js';\nexport const bump = () => ++counter.n;\n`,
      'kit/state.js': `export const counter = { n: 0 };\n`,
      'kit/deep/asset.js': `export const assetUrl = new URL('./data.txt', import.meta.url).href;\n`,
      'kit/deep/data.txt': 'x',
      // Loaded by a computed path only (as the suite folders' definitions are): an entry, found by no import.
      'loader.js': `export const load = (name) => import(\`./plugins/\${name}.js\`);\n`,
      'plugins/one.js': `export default 'one';\n`,
    });
    await bundleDist(dist, PKG);
    expect(existsSync(join(dist, 'kit', 'state.js')), 'a module only imported moved into a chunk').toBe(false);
    expect(readdirSync(join(dist, 'chunks')).length).toBeGreaterThan(0);

    const index = await import(pathToFileURL(join(dist, 'api', 'index.js')).href);
    const other = await import(pathToFileURL(join(dist, 'api', 'other.js')).href);
    other.bump();
    expect(index.counter.n, 'both entries see the one instance of kit/state.js').toBe(1);
    expect(index.assetUrl).toBe(pathToFileURL(join(dist, 'kit', 'deep', 'data.txt')).href);
    const loader = await import(pathToFileURL(join(dist, 'loader.js')).href);
    expect((await loader.load('one')).default).toBe('one');
  });

  it("resolves a computed relative import() (tsc's extension rewrite) against the module's own folder, not its chunk's", async () => {
    const helper =
      'var __rewriteRelativeImportExtension = function (path) { return path.replace(/\\.ts$/, ".js"); };\n';
    const dist = distOf({
      'api/index.js': `export { loadSuite } from '../kit/sub/load.js';\n`,
      'api/other.js': `export { loadSuite } from '../kit/sub/load.js';\n`,
      'kit/sub/load.js': `${helper}export const loadSuite = (n) => import(__rewriteRelativeImportExtension(\`../../suites/\${n}/suite.ts\`));\n`,
      'suites/a/suite.js': `export default 'suite a';\n`,
    });
    await bundleDist(dist, PKG);
    expect(existsSync(join(dist, 'kit', 'sub', 'load.js'))).toBe(false);
    const index = await import(pathToFileURL(join(dist, 'api', 'index.js')).href);
    expect((await index.loadSuite('a')).default).toBe('suite a');
  });
});

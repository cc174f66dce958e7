// npm run build: the package's JavaScript and declarations under dist/, in the sources' layout, plus the runtime
// assets the modules find relative to themselves (import.meta.url): the pyodide worker and its Python runtime,
// BFCL's executor, reference chat templates, Unicode name data, ToolHop's prompts and the bundled cases.
// tsc's JavaScript is then bundled into entries and shared chunks (scripts/bundle-dist.mjs); each module keeps its
// own import.meta.url, so those paths still resolve.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleDist } from './bundle-dist.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

/** Files under harness/ that are not TypeScript but only serve tests or regenerate data: not shipped. */
const DEV_ONLY = [
  /^harness\/view\/page\/tsconfig\.json$/,
  /^harness\/sandbox\/hostile\//,
  /\.md$/,
  /^harness\/templates\/jinja2_render\.py$/,
  /^harness\/core\/pyliteral\/gen_unicode_data\.py$/,
];

function walk(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The runtime assets, relative to the root: every non-TypeScript file under harness/ but the dev-only ones, and cases/. */
export function runtimeAssets(root = ROOT) {
  const rel = (p) => relative(root, p).split(sep).join('/');
  const harness = walk(join(root, 'harness'))
    .map(rel)
    .filter((f) => !f.endsWith('.ts') && !DEV_ONLY.some((r) => r.test(f)));
  const cases = walk(join(root, 'cases'))
    .map(rel)
    .filter((f) => !f.endsWith('.md'));
  return [...harness, ...cases].sort();
}

/**
 * tsc rewrites `.ts` import specifiers to `.js` in the JavaScript (rewriteRelativeImportExtensions) but keeps them
 * in the declarations, where a user's type check (NodeNext) refuses them (TS5097).
 */
function rewriteDeclarations() {
  const spec = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;
  for (const f of walk(DIST).filter((p) => p.endsWith('.d.ts'))) {
    const text = readFileSync(f, 'utf8');
    const out = text.replace(spec, '$1$2.js$3');
    if (out !== text) writeFileSync(f, out);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit', cwd: ROOT });
  rewriteDeclarations();
  for (const f of runtimeAssets()) cpSync(join(ROOT, f), join(DIST, f));
  // After the assets (the suite folders' suite.json name the entries): only tsc's modules, a .js with its .d.ts.
  await bundleDist(DIST, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')));
  // The viewer's page (browser code), bundled once: an installed package never bundles at run time
  // (harness/view/page-script.ts bundles the same entry with the same options in a checkout).
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(ROOT, 'harness', 'view', 'page', 'app.ts')],
    bundle: true,
    outfile: join(DIST, 'harness', 'view', 'page.js'),
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

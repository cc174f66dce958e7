// The package's JavaScript as a few bundled files instead of ~550 modules: Node's ESM loader pays for every module it
// resolves, reads and links (about 0.4 ms each, a third of a 10-case eval's CPU went to loading toolgauge and zod).
// esbuild bundles the TypeScript sources into dist/ with code splitting: every module something may load by its path
// (a package export, the CLI, a suite folder's definition and command, the eval part files, the reporter, the global
// setups: whatever no other module imports) is an entry written at its path (`harness/x.ts` as `dist/harness/x.js`),
// and the rest goes into shared chunks under dist/chunks/, each module exactly once, so two entries loaded in one
// process share one instance of it. The declarations (.d.ts) and the runtime assets are written by scripts/build.mjs.
import { existsSync, readdirSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { zodEnglishOnly } from '../bin/zod-english-only.mjs';

/** The placeholder a module's `import.meta.url` becomes until its chunk's place is known. */
const META = '__toolgauge_module_url__';

const posix = (p) => p.split(sep).join('/');

/** A module's path under dist/: `harness/x.ts` is `harness/x.js`. */
const built = (m) => m.replace(/\.([cm]?)ts$/, '.$1js');

/**
 * The modules that must stay at their paths: those no module imports (what is loaded by path: the CLI, the global
 * setups, the eval part files, the package's exports), the package's exports and the suite folders' `suite.ts` and
 * `command.ts` (harness/builtin/load.ts and harness/cli/main.ts import them by a computed path). `modules` and the
 * result are source paths relative to `root`.
 */
export function entryModules(root, modules, imported, pkg) {
  const exported = new Set(
    Object.values(pkg.exports ?? {})
      .map((e) => (typeof e === 'string' ? e : e?.default))
      .filter((p) => typeof p === 'string' && p.startsWith('./dist/') && p.endsWith('.js'))
      .map((p) => p.slice('./dist/'.length)),
  );
  const harness = join(root, 'harness');
  const suiteFolders = (existsSync(harness) ? readdirSync(harness, { withFileTypes: true }) : [])
    .filter((d) => d.isDirectory() && existsSync(join(harness, d.name, 'suite.json')))
    .flatMap((d) => [`harness/${d.name}/suite.ts`, `harness/${d.name}/command.ts`]);
  const set = new Set([...modules.filter((m) => !imported.has(m) || exported.has(built(m))), ...suiteFolders]);
  return modules.filter((m) => set.has(m));
}

/**
 * A computed relative `import()` (`` import(`../${name}/suite.ts`) ``) resolves against the module's own URL, not its
 * chunk's, with the extension the built module has; esbuild, given it as a call, leaves it for run time rather than
 * bundling every file the template matches.
 */
function relativeImport(own) {
  return `((base) => (spec) => new URL(spec.replace(/\\.([cm]?)ts$/, '.$1js'), base).href)(${own})`;
}
const COMPUTED_IMPORT = /\bimport\((`\.{1,2}\/[^`]*`)\)/g;
const HAS_COMPUTED_IMPORT = /\bimport\(`\.{1,2}\//;

/**
 * Each module's `import.meta.url` as a placeholder naming its built path under dist/ (resolved per chunk afterwards),
 * and its computed relative imports resolved against that path.
 */
function ownUrl(root) {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
        const rel = posix(relative(root, args.path));
        if (rel.startsWith('..') || rel.split('/').includes('node_modules')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url') && !HAS_COMPUTED_IMPORT.test(text)) return undefined;
        const own = `${META}(${JSON.stringify(built(rel))})`;
        return {
          contents: text
            .replaceAll('import.meta.url', own)
            .replace(COMPUTED_IMPORT, (_, spec) => `import(${relativeImport(own)}(${spec}))`),
          loader: 'ts',
        };
      });
    },
  };
}

/**
 * Every package the modules may import (and its subpaths) but zod: bundled, its ~95 files load in a fraction of the
 * time in each process; only toolgauge's own modules use this copy (a user's schemas are their own zod's).
 */
function externalPackages(pkg) {
  const names = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }).filter(
    (n) => n !== 'zod',
  );
  return names.flatMap((n) => [n, `${n}/*`]);
}

/** Bundles the TypeScript `modules` (paths relative to `root`) into `dist`. */
export async function bundleDist({ root, dist, modules, pkg }) {
  const { build } = await import('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: externalPackages(pkg),
    target: 'node20',
    splitting: true,
    write: false,
    absWorkingDir: root,
    logLevel: 'warning',
  };
  // First pass: which modules another one imports (statically or by a literal `import()`).
  const graph = await build({
    ...common,
    entryPoints: modules.map((m) => join(root, m)),
    outdir: join(dist, '.graph'),
    metafile: true,
    logLevel: 'silent',
    plugins: [ownUrl(root)],
  });
  const imported = new Set();
  for (const input of Object.values(graph.metafile.inputs))
    for (const i of input.imports) if (!i.external) imported.add(posix(i.path));
  const entries = entryModules(root, modules, imported, pkg);
  const r = await build({
    ...common,
    entryPoints: entries.map((m) => ({ in: join(root, m), out: built(m).slice(0, -'.js'.length) })),
    outdir: dist,
    outbase: root,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [ownUrl(root), zodEnglishOnly],
  });
  const placeholder = new RegExp(`${META}\\(("[^"]+")\\)`, 'g');
  for (const out of r.outputFiles) {
    const text = out.text.replace(placeholder, (_, rel) => {
      let to = posix(relative(dirname(out.path), join(dist, JSON.parse(rel))));
      if (!to.startsWith('.')) to = `./${to}`;
      return `new URL(${JSON.stringify(to)}, import.meta.url).href`;
    });
    mkdirSync(dirname(out.path), { recursive: true });
    writeFileSync(out.path, text);
  }
  return { modules: modules.length, entries: entries.length, files: r.outputFiles.length };
}

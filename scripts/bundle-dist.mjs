// The package's JavaScript as a few bundled files instead of ~550 modules: Node's ESM loader pays for every module it
// resolves, reads and links (about 0.4 ms each, a third of a 10-case eval's CPU went to loading toolgauge and zod).
// tsc's output under dist/ is bundled again by esbuild with code splitting: every module something may load by its
// path (a package export, the CLI, a suite folder's definition and command, the eval part files, the reporter, the
// global setups: whatever no other module imports) stays at its path as an entry, and the rest moves into shared
// chunks under dist/chunks/, each module exactly once, so two entries loaded in one process share one instance of it.
// The declarations (.d.ts) and the runtime assets stay as they are.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { zodEnglishOnly } from '../bin/zod-english-only.mjs';

/** The placeholder a module's `import.meta.url` becomes until its chunk's place is known. */
const META = '__toolgauge_module_url__';

const posix = (p) => p.split(sep).join('/');

function walk(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** tsc's modules under `dist`: the .js files with a declaration beside them (assets such as the viewer's page have none). */
export function emittedModules(dist) {
  return walk(dist)
    .filter((f) => f.endsWith('.js') && existsSync(`${f.slice(0, -3)}.d.ts`))
    .map((f) => posix(relative(dist, f)))
    .sort();
}

/**
 * The modules that must stay at their paths: those no module imports (what is loaded by path: the CLI, the global
 * setups, the eval part files, the package's exports), the package's exports and the suite folders' `suite.js` and
 * `command.js` (harness/builtin/load.ts and harness/cli/main.ts import them by a computed path).
 */
export function entryModules(dist, modules, imported, pkg) {
  const exported = Object.values(pkg.exports ?? {})
    .map((e) => (typeof e === 'string' ? e : e?.default))
    .filter((p) => typeof p === 'string' && p.startsWith('./dist/') && p.endsWith('.js'))
    .map((p) => p.slice('./dist/'.length));
  const harness = join(dist, 'harness');
  const suiteFolders = (existsSync(harness) ? readdirSync(harness, { withFileTypes: true }) : [])
    .filter((d) => d.isDirectory() && existsSync(join(dist, 'harness', d.name, 'suite.json')))
    .flatMap((d) => [`harness/${d.name}/suite.js`, `harness/${d.name}/command.js`]);
  const set = new Set([...modules.filter((m) => !imported.has(m)), ...exported, ...suiteFolders]);
  return modules.filter((m) => set.has(m));
}

/** tsc's wrapper of a computed `import()` specifier (rewriteRelativeImportExtensions): `import(__rewrite…(spec))`. */
const REWRITE_CALL = 'import(__rewriteRelativeImportExtension(';

/**
 * A computed `import()` whose specifier is relative (`../${name}/suite.ts`) resolves against the module's own URL,
 * not its chunk's: the call becomes `import(resolveAgainst(own)(spec))`, with tsc's extension rewrite kept.
 */
function relativeImport(own) {
  return `import(((base) => (spec, jsx) => { const s = __rewriteRelativeImportExtension(spec, jsx); return /^\\.\\.?\\//.test(s) ? new URL(s, base).href : s; })(${own})(`;
}

/** Each module's `import.meta.url` as a placeholder naming its path under dist/ (resolved per chunk afterwards). */
function ownUrl(dist) {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        if (relative(dist, args.path).startsWith('..')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url') && !text.includes(REWRITE_CALL)) return undefined;
        const own = `${META}(${JSON.stringify(posix(relative(dist, args.path)))})`;
        return {
          contents: text.replaceAll('import.meta.url', own).replaceAll(REWRITE_CALL, relativeImport(own)),
          loader: 'js',
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

/** Bundles `dist` in place. */
export async function bundleDist(dist, pkg) {
  const { build } = await import('esbuild');
  const modules = emittedModules(dist);
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: externalPackages(pkg),
    target: 'node20',
    splitting: true,
    write: false,
    absWorkingDir: dist,
    logLevel: 'warning',
  };
  // First pass: which modules another one imports (statically or by a literal `import()`).
  const graph = await build({
    ...common,
    entryPoints: modules.map((m) => join(dist, m)),
    outdir: join(dist, '.graph'),
    metafile: true,
    logLevel: 'silent',
  });
  const imported = new Set();
  for (const input of Object.values(graph.metafile.inputs))
    for (const i of input.imports) if (!i.external) imported.add(posix(i.path));
  const entries = entryModules(dist, modules, imported, pkg);
  const r = await build({
    ...common,
    entryPoints: entries.map((m) => ({ in: join(dist, m), out: m.slice(0, -3) })),
    outdir: dist,
    outbase: dist,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [ownUrl(dist), zodEnglishOnly],
  });
  for (const m of modules) rmSync(join(dist, m));
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

// npm run build: the package under dist/, in the sources' layout: the JavaScript bundled by esbuild from the
// TypeScript sources into entries and shared chunks (scripts/bundle-dist.mjs; each module keeps its own
// import.meta.url), tsc's declarations of the modules the package's exports reach, and the runtime assets the modules
// find relative to themselves (import.meta.url): the pyodide worker and its Python runtime, BFCL's executor, reference
// chat templates, Unicode name data, ToolHop's prompts and the bundled cases.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleDist } from './bundle-dist.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

/** Files under harness/ that are not TypeScript but only serve tests or regenerate data: not shipped. */
const DEV_ONLY = [
  /^harness\/view\/page\/tsconfig\.json$/,
  /^harness\/sandbox\/hostile\//,
  /^harness\/sandbox\/scrub_audit\.py$/,
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

/** A declaration's relative import specifiers: tsc keeps the sources' `.ts`. */
const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;

/**
 * The declarations a user's type check reads: those of the package's exports (`types`) and of every module they
 * import, transitively — a user cannot import any other module (the exports map). tsc emits them from one program of
 * tsconfig.build.json, which also lists the modules the JavaScript is built from (the program's own TypeScript files).
 * Returns those modules, relative to the root. The declarations' `.ts` specifiers are written as `.js`: a user's type
 * check (NodeNext) refuses `.ts` ones in declarations (TS5097).
 */
function emitDeclarations(pkg) {
  const ts = createRequire(import.meta.url)('typescript');
  const fail = (diagnostics) => {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
    throw new Error(`tsconfig.build.json: ${ts.formatDiagnostics(diagnostics, host)}`);
  };
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
  );
  const host = ts.createCompilerHost(config.options);
  // As tsc parses: JSDoc only where it can raise a type error (tsc's own default since TypeScript 5.3; the API's is to
  // parse all of it). Declarations keep their comments either way: the emitter copies them from the source text.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  const errors = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ];
  if (errors.length) fail(errors);
  const modules = program
    .getSourceFiles()
    .filter((f) => /\.[cm]?ts$/.test(f.fileName) && !f.isDeclarationFile)
    .map((f) => relative(ROOT, f.fileName).split(sep).join('/'))
    .filter((f) => !f.split('/').includes('node_modules'));
  const queue = Object.values(pkg.exports)
    .map((e) => (typeof e === 'string' ? undefined : e?.types))
    .filter((t) => typeof t === 'string')
    .map((t) => resolve(ROOT, t.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')));
  const done = new Set();
  while (queue.length) {
    const source = queue.pop();
    if (done.has(source)) continue;
    done.add(source);
    const file = program.getSourceFile(source);
    if (!file)
      throw new Error(
        `${relative(ROOT, source)}: the package's types reach it, but tsconfig.build.json does not build it`,
      );
    const r = program.emit(
      file,
      (name, text) => {
        for (const m of text.matchAll(SPECIFIER)) queue.push(resolve(dirname(source), `${m[2]}.ts`));
        mkdirSync(dirname(name), { recursive: true });
        writeFileSync(name, text.replace(SPECIFIER, '$1$2.js$3'));
      },
      undefined,
      true,
    );
    if (r.diagnostics.length) fail(r.diagnostics);
  }
  return modules;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(DIST, { recursive: true, force: true });
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const modules = emitDeclarations(pkg);
  for (const f of runtimeAssets()) cpSync(join(ROOT, f), join(DIST, f));
  await bundleDist({ root: ROOT, dist: DIST, modules, pkg });
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

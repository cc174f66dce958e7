import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';

/**
 * Every reference from one library module to another file or a package, resolved for real (docs/ARCHITECTURE.md,
 * "Layers"). Module edges come from esbuild's metafile: static imports, `export … from`, `import()` with a literal
 * (comments inside the parentheses included) and template-literal imports, which esbuild turns into a glob and bundles
 * every file it matches. Paths that are no imports come from the syntax tree (TypeScript's parser): every string
 * literal (or a template literal's head) that starts with `./` or `../`, resolved against the module's folder — a
 * `new URL(…, import.meta.url)`, a `createRequire(import.meta.url)(…)`, a `join(dirname(…), …)` — and every
 * `fromRoot('harness', …)`; so are the imports that bring only types, which esbuild erases. Comments are no nodes of
 * the tree, so an example in a comment is no reference.
 */

export type ReferenceKind = 'import' | 'dynamic import' | 'require' | 'type import' | 'path';

export interface Reference {
  /** The referring module, relative to the root ('/' separated). */
  from: string;
  /** What the source says: the specifier, the path literal or the `fromRoot(…)` call. */
  spec: string;
  /** A file or folder relative to the root ('/' separated), or a package's specifier when `external`. */
  to: string;
  kind: ReferenceKind;
  /** A package, not a file of ours. */
  external: boolean;
}

const posix = (p: string) => p.split(sep).join('/');

/**
 * The library modules under `harness/` and `reporters/` (absolute): test files and test-support modules (testkit.ts,
 * arbitraries.ts: fast-check generators) may import anything, so they are left out.
 */
export function libraryModules(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return walk(p);
      return /\.(ts|mjs)$/.test(name) && !/\.test\.ts$|\.d\.ts$|^(testkit|arbitraries)\.ts$/.test(name) ? [p] : [];
    });
  return ['harness', 'reporters'].flatMap((d) => walk(join(root, d)));
}

/** Non-JavaScript files a module imports (none today) stay outside the bundle, named by their path. */
const assetsExternal: Plugin = {
  name: 'assets-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) =>
      /\.[^./\\]+$/.test(args.path) && !/\.([cm]?[jt]s|json)$/.test(args.path)
        ? { path: resolve(args.resolveDir, args.path), external: true }
        : undefined,
    );
  },
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const KIND: Record<string, ReferenceKind> = {
  'import-statement': 'import',
  'dynamic-import': 'dynamic import',
  'require-call': 'require',
  'require-resolve': 'path',
};

/** A glob as esbuild writes one (a double star and a slash: any folders; a star: any name) as a regular expression. */
const globPattern = (glob: string) =>
  new RegExp(
    `^${glob
      .split(/(\*\*\/|\*)/)
      .map((p) => (p === '**/' ? '(?:.*/)?' : p === '*' ? '[^/]*' : escapeRegExp(p)))
      .join('')}$`,
  );

/** The module edges esbuild resolves, per module (paths relative to the root). */
async function moduleEdges(root: string, modules: readonly string[]): Promise<Reference[]> {
  const r = await build({
    entryPoints: [...modules],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
    absWorkingDir: root,
    outdir: join(root, '.layers-out'),
    splitting: true,
    plugins: [assetsExternal],
  });
  const inputs = Object.keys(r.metafile.inputs);
  const out: Reference[] = [];
  for (const [from, input] of Object.entries(r.metafile.inputs)) {
    for (const i of input.imports) {
      // An import with a template literal: esbuild bundles every file its glob matches and lists the glob.
      if (i.external && i.path.includes('*') && /^\.\.?\//.test(i.path)) {
        const glob = globPattern(posix(join(dirname(from), i.path)));
        for (const to of inputs.filter((f) => glob.test(f)))
          out.push({ from: posix(from), spec: i.path, to, kind: 'dynamic import', external: false });
        continue;
      }
      const ours = !i.external || isAbsolute(i.path);
      out.push({
        from: posix(from),
        spec: i.original ?? i.path,
        to: ours ? posix(isAbsolute(i.path) ? relative(root, i.path) : i.path) : i.path,
        kind: KIND[i.kind] ?? 'import',
        external: !ours,
      });
    }
  }
  return out;
}

const isModuleSpecifier = (n: ts.Node) =>
  (ts.isImportDeclaration(n.parent) || ts.isExportDeclaration(n.parent)) && n.parent.moduleSpecifier === n;
const isImportType = (n: ts.Node) => ts.isLiteralTypeNode(n.parent) && ts.isImportTypeNode(n.parent.parent);

/** Every file under harness/ and reporters/ (relative to the root): what a template literal's pattern may match. */
export function treeFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : [posix(relative(root, p))];
    });
  return ['harness', 'reporters'].flatMap((d) => walk(join(root, d)));
}

/**
 * The files a template literal can name, as esbuild reads an import with one: each `${…}` stands for any name
 * within one folder. A `.js` at the end also matches the `.ts` source (the built package names its JavaScript).
 */
function templateTargets(root: string, file: string, t: ts.TemplateExpression, tree: readonly string[]): string[] {
  const head = t.head.text;
  const cut = head.lastIndexOf('/') + 1;
  const base = posix(relative(root, resolve(dirname(file), head.slice(0, cut) || '.')));
  const rest = [
    escapeRegExp(head.slice(cut)),
    ...t.templateSpans.map((s) => `[^/]*${escapeRegExp(s.literal.text)}`),
  ].join('');
  const pattern = new RegExp(`^${escapeRegExp(base)}/${rest.replace(/\\\.js$/, '\\.[jt]s')}$`);
  return tree.filter((f) => pattern.test(f));
}

/**
 * The path literals and `fromRoot` paths of one module's source, and the specifiers of its import declarations
 * (esbuild erases a declaration that imports only types). `tree`: the files a template literal may match.
 */
export function pathReferences(root: string, file: string, src: string, tree: readonly string[] = []): Reference[] {
  const from = posix(relative(root, file));
  const sf = ts.createSourceFile(
    file,
    src,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    true,
  );
  const out: Reference[] = [];
  const path = (spec: string, to: string, kind: ReferenceKind = 'path') =>
    out.push({ from, spec, to, kind, external: false });
  const visit = (n: ts.Node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) text = n.text;
    else if (ts.isTemplateExpression(n)) text = n.head.text;
    if (text !== undefined) {
      const declared = isModuleSpecifier(n) || isImportType(n);
      if (/^\.\.?(\/|$)/.test(text)) {
        const spec = ts.isTemplateExpression(n) ? n.getText(sf) : text;
        const matched = ts.isTemplateExpression(n) ? templateTargets(root, file, n, tree) : [];
        // A pattern that matches no file still names the place its literal head points at.
        const targets = matched.length ? matched : [posix(relative(root, resolve(dirname(file), text)))];
        for (const to of targets) path(spec, to, declared ? 'type import' : 'path');
      }
      // A package named only by a type import is erased from the bundle but still a dependency of the source.
      else if (declared && !text.startsWith('node:'))
        out.push({ from, spec: text, to: text, kind: 'type import', external: true });
    }
    // fromRoot('harness', 'x', …) (harness/core/paths.ts): a path from the package root; its literal arguments.
    if (ts.isCallExpression(n) && /^fromRoot$/.test(n.expression.getText(sf))) {
      const parts: string[] = [];
      for (const a of n.arguments) {
        if (!ts.isStringLiteral(a)) break;
        parts.push(a.text);
      }
      if (parts.length) path(n.getText(sf), posix(relative(root, resolve(root, ...parts))));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Whether an esbuild edge already accounts for a path: it leads to that file, into that folder, or adds an extension. */
const covers = (edge: Reference, path: Reference) =>
  edge.from === path.from &&
  edge.external === path.external &&
  (edge.to === path.to || edge.to.startsWith(`${path.to}/`) || edge.to.startsWith(`${path.to}.`));

/** Every reference of the modules: esbuild's edges, then the paths (and erased type imports) none of them covers. */
export async function moduleReferences(root: string, modules: readonly string[]): Promise<Reference[]> {
  const edges = await moduleEdges(root, modules);
  const ours = new Set(modules.map((m) => posix(relative(root, m))));
  const inLibrary = edges.filter((e) => ours.has(e.from));
  const tree = treeFiles(root);
  const paths = modules
    .flatMap((m) => pathReferences(root, m, readFileSync(m, 'utf8'), tree))
    .filter((p) => !inLibrary.some((e) => covers(e, p)));
  return [...inLibrary, ...paths];
}

/** The folder (layer) of a path relative to the root: its top folder under harness/, or `reporters`. */
export function folderOf(path: string): string | null {
  const [top, name] = path.split('/');
  if (top === 'reporters') return 'reporters';
  return top === 'harness' && name && !name.includes('.') ? name : null;
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { suiteFolders } from '../../harness/kit/suite-folders.ts';

/**
 * The layering of harness/, read from the source (not from a list kept beside the code). `LEVEL` below is the one
 * statement of the layer order: a folder may reference only folders of a lower level (sideways only where
 * `SUITE_EDGES` or `SIDEWAYS` say so), and docs/ARCHITECTURE.md's diagram is checked to list the same folders at the
 * same levels. "Reference" means every way a module can reach another file: a static `import`/`export … from`, a
 * dynamic `import('…')` with a literal, a `new URL('…', import.meta.url)` path (a file handed to Vitest, a worker,
 * a child process) and a `fromRoot('harness', '…')` path. No reference cycle between harness folders; only harness/model imports openai, only
 * harness/sandbox imports pyodide, only harness/engine imports node-llama-cpp, only the Vitest adapter imports vitest;
 * no library module imports a dev dependency. Test files are exempt (they may import anything).
 */

const ROOT = fromRoot();
/** The suites: the registry's folders (harness/kit/suite-folders.ts), each at the suites' level. */
const SUITE_LEVEL = 4;
const REGISTRY = new Set(suiteFolders(join(ROOT, 'harness')).map((f) => f.name));
const LEVEL: Record<string, number> = {
  core: 0,
  model: 1,
  engine: 1,
  stats: 1,
  sandbox: 1,
  parse: 1,
  sim: 1,
  hub: 1,
  match: 2,
  agent: 2,
  report: 2,
  constrain: 2,
  methods: 2,
  templates: 2,
  // `toolgauge serve` renders the GGUF's chat template and builds grammars; the kit's runSuite may start it.
  serve: 2.5,
  calls: 2.5,
  kit: 3,
  vitest: 4,
  ...Object.fromEntries([...REGISTRY].map((n) => [n, SUITE_LEVEL])),
  builtin: 5,
  optimize: 5,
  // The Vitest reporter (reporters/, beside harness/) loads the built-in suites by name.
  api: 6,
  view: 6,
  reporters: 6,
  cli: 7,
};
/**
 * Upward path references that are not module edges, each with its reason. The Vitest adapter builds the config Vitest
 * runs under, and Vitest loads global-setup files and reporters by path in its own module graph: the adapter names
 * those files (it never imports them), so nothing of the adapter's module graph depends on a higher layer.
 */
const UPWARD_PATHS: Record<string, string> = {
  'harness/vitest/eval-config.ts → ../builtin/global-setup':
    'Vitest loads this global setup by path; the adapter only names it',
  'harness/vitest/plugin.ts → ../../reporters/toolgauge': 'Vitest loads reporters by path; the plugin only names it',
};
/**
 * Suite-to-suite imports that are part of the design: BFCL reports the probe's layers and causes beside its verdict.
 * (The Python front-end both BFCL and API-Bank read with is core's: harness/core/pyliteral.)
 */
const SUITE_EDGES = new Set<string>();

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    // Test files and test-support modules (testkit.ts, arbitraries.ts: fast-check generators) may import anything.
    else if (/\.(ts|mjs)$/.test(name) && !/\.test\.ts$|\.d\.ts$|(^|\/)(testkit|arbitraries)\.ts$/.test(name))
      out.push(p);
  }
  return out;
}

interface Ref {
  from: string;
  spec: string;
  typeOnly: boolean;
  kind: 'static' | 'dynamic' | 'url' | 'root';
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
// `import('x')`, `import(`x${…}`)` (the literal part before the first `${`); `typeof import('x')` is a type.
const DYNAMIC = /(typeof\s+)?\bimport\(\s*(?:'([^']+)'|"([^"]+)"|`([^`$]*))/g;
// `new URL('x', import.meta.url)`, also with a template literal (its literal part before the first `${`).
const URL_REF = /new\s+URL\(\s*(?:'([^']*)'|"([^"]*)"|`([^`$]*)(?:\$\{[^}]*\}[^`]*)?`)\s*,\s*import\.meta\.url\s*\)/g;

// `fromRoot('harness', 'x', …)` (harness/core/paths.ts): a path from the package root into a harness folder.
const ROOT_REF = /\bfromRoot\(\s*'harness'((?:\s*,\s*'[^']*')+)\s*\)/g;

/** Whether the match at `index` sits on a comment line (`//`, ` * `, `/*`): doc comments show example imports. */
const inComment = (src: string, index: number) =>
  /^\s*(\/\/|\*|\/\*)/.test(src.slice(src.lastIndexOf('\n', index) + 1, index));

/** Every reference from one module's source to another module or file. */
function referencesOf(from: string, src: string): Ref[] {
  const out: Ref[] = [...src.matchAll(IMPORT)].map((m) => ({
    from,
    spec: m[3]!,
    typeOnly: !!m[2],
    kind: 'static' as const,
  }));
  for (const m of src.matchAll(DYNAMIC)) {
    const spec = m[2] ?? m[3] ?? m[4];
    if (spec && !inComment(src, m.index)) out.push({ from, spec, typeOnly: !!m[1], kind: 'dynamic' });
  }
  for (const m of src.matchAll(URL_REF)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec && spec.startsWith('.') && !inComment(src, m.index))
      out.push({ from, spec, typeOnly: false, kind: 'url' });
  }
  for (const m of src.matchAll(ROOT_REF)) {
    const parts = [...m[1]!.matchAll(/'([^']*)'/g)].map((p) => p[1]!);
    const spec = `./${relative(dirname(from), join(ROOT, 'harness', ...parts))}`;
    if (!inComment(src, m.index)) out.push({ from, spec, typeOnly: false, kind: 'root' });
  }
  return out;
}

function importsOf(file: string): Ref[] {
  return referencesOf(file, readFileSync(file, 'utf8'));
}

/**
 * Subfolders that are layers of their own: the chat-template renderer lives with the probe but imports only core and
 * parse, and `toolgauge serve` (below the suites) renders templates with it.
 */
const OWN_LAYER: string[] = [];

/**
 * The folder (layer) of a module. A suite folder's `command.ts` is its `toolgauge <suite>` command: a module of the
 * CLI that lives with its suite (docs/adding-a-suite.md).
 */
const folderOf = (file: string, suites: ReadonlySet<string> = REGISTRY): string | null => {
  if (relative(join(ROOT, 'reporters'), file).split('/')[0] !== '..') return 'reporters';
  const rel = relative(join(ROOT, 'harness'), file);
  if (rel.startsWith('..')) return null;
  const [top, name] = rel.split('/');
  if (suites.has(top!) && name === 'command.ts') return 'cli';
  const own = OWN_LAYER.find((f) => rel.startsWith(`${f}/`) || rel === f);
  return own ?? rel.split('/')[0]!;
};

/** A path reference `UPWARD_PATHS` allows (not a module edge). */
const allowedPath = (i: Ref) =>
  i.kind === 'url' && Object.keys(UPWARD_PATHS).some((k) => `${relative(ROOT, i.from)} → ${i.spec}`.startsWith(k));

/** The layer rules over a list of references: one line per violation. `suites`: the registry's folders. */
function layerViolations(refs: readonly Ref[], suites: ReadonlySet<string> = REGISTRY): string[] {
  const bad: string[] = [];
  const SUITES = suites;
  const level = (f: string) => LEVEL[f] ?? (suites.has(f) ? SUITE_LEVEL : undefined);
  for (const i of refs) {
    if (!i.spec.startsWith('.')) continue;
    const a = folderOf(i.from, suites);
    const b = folderOf(resolve(dirname(i.from), i.spec), suites);
    if (!a || !b || a === b || level(a) === undefined || level(b) === undefined) continue;
    const where = `${relative(ROOT, i.from)} → ${i.spec}`;
    if (allowedPath(i)) continue;
    const up = level(b)! > level(a)!;
    const sideways = level(b) === level(a);
    // Suites never import one another or the Vitest adapter; the adapter never imports a suite.
    const designed = SUITE_EDGES.has(`${a}→${b}`);
    const how = i.kind === 'static' ? 'imports' : i.kind === 'dynamic' ? 'imports dynamically' : 'names a path in';
    if (up || (sideways && !designed && !(a === 'report' && b === 'match')))
      bad.push(`${where} (${a} L${level(a)} ${how} ${b} L${level(b)})`);
    if (SUITES.has(a) && ((SUITES.has(b) && !designed) || b === 'vitest'))
      bad.push(`${where} (suite ${a} ${how} ${b})`);
  }
  return bad;
}

/** The layer order as docs/ARCHITECTURE.md shows it: one line per level, its folders in `LEVEL`'s order. */
function renderLevels(): string {
  const levels = [...new Set(Object.values(LEVEL))].sort((x, y) => x - y);
  return levels
    .map(
      (l) =>
        `${String(l).padEnd(4)} ${Object.keys(LEVEL)
          .filter((f) => LEVEL[f] === l)
          .join(' ')}`,
    )
    .join('\n');
}

const lib = [...files(join(ROOT, 'harness')), ...files(join(ROOT, 'reporters'))];
const all = lib.flatMap(importsOf);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

describe('layering of harness/', () => {
  it('every harness folder has a layer', () => {
    const folders = new Set(lib.map((f) => folderOf(f)).filter((f): f is string => !!f && !f.includes('.')));
    expect([...folders].filter((f) => !(f in LEVEL))).toEqual([]);
  });

  it('references point down (or sideways within a layer only where allowed), never up: static, dynamic and new URL', () => {
    expect(layerViolations(all)).toEqual([]);
  });

  it('catches an upward dynamic import, new URL, fromRoot path and export … from (synthetic modules)', () => {
    const kit = join(ROOT, 'harness/kit/planted.ts');
    const src = [
      "export async function f() { return (await import('../cli/main.ts')).main; }",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted module's source holds a template literal
      "const P = new URL(`../api/index${'.ts'}`, import.meta.url);",
      "export { x } from '../builtin/load.ts';",
      "// import('../cli/main.ts') in a comment is not a reference",
      "const Q = fromRoot('harness', 'api', 'index.ts');",
    ].join('\n');
    const refs = referencesOf(kit, src);
    expect(refs.map((r) => [r.kind, r.spec])).toEqual([
      ['static', '../builtin/load.ts'],
      ['dynamic', '../cli/main.ts'],
      ['url', '../api/index'],
      ['root', './../api/index.ts'],
    ]);
    const bad = layerViolations(refs);
    expect(bad).toHaveLength(4);
    expect(bad.join('\n')).toMatch(/imports dynamically cli/);
    expect(bad.join('\n')).toMatch(/names a path in api/);
    // The allowance for the adapter's path to the built-in global setup holds for that file only.
    expect(
      layerViolations(
        referencesOf(join(ROOT, 'harness/vitest/other.ts'), "new URL('../builtin/global-setup.ts', import.meta.url)"),
      ),
    ).toHaveLength(1);
    expect(
      layerViolations(
        referencesOf(
          join(ROOT, 'harness/vitest/eval-config.ts'),
          "new URL('../builtin/global-setup.ts', import.meta.url)",
        ),
      ),
    ).toEqual([]);
  });

  it("a new suite folder is a suite as soon as it is in the registry: its references are checked, its command is the CLI's", () => {
    const suites = new Set([...REGISTRY, 'demo']);
    const refs = [
      ...referencesOf(
        join(ROOT, 'harness/demo/suite.ts'),
        "import { x } from '../kit/types.ts';\nimport { y } from '../toolhop/output.ts';\nconst P = new URL('../cli/main.ts', import.meta.url);",
      ),
      ...referencesOf(
        join(ROOT, 'harness/demo/command.ts'),
        "import { runSuiteCommand } from '../cli/suite-command.ts';\nimport s from './suite.ts';",
      ),
      ...referencesOf(join(ROOT, 'harness/kit/planted.ts'), "import d from '../demo/suite.ts';"),
    ];
    const bad = layerViolations(refs, suites);
    expect(bad.join('\n')).toMatch(
      /harness\/demo\/suite\.ts → \.\.\/toolhop\/output\.ts \(suite demo imports toolhop\)/,
    );
    expect(bad.join('\n')).toMatch(/harness\/demo\/suite\.ts → \.\.\/cli\/main\.ts \(demo L4 names a path in cli L7\)/);
    expect(bad.join('\n')).toMatch(/harness\/kit\/planted\.ts → \.\.\/demo\/suite\.ts \(kit L3 imports demo L4\)/);
    // its command module belongs to the CLI, which may import both the CLI's machinery and the suite
    expect(bad.filter((l) => l.includes('demo/command.ts'))).toEqual([]);
    expect(bad).toHaveLength(4);
    // without the registry entry the folder is no layer at all (the "every folder has a layer" check then fails)
    expect(layerViolations(refs)).toEqual([]);
  });

  it('docs/ARCHITECTURE.md shows the same order (its Layers diagram is this table, level by level)', () => {
    const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const block = /## Layers\n\n```\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(block).toBe(renderLevels());
  });

  it('has no import cycle between harness folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of all) {
      if (!i.spec.startsWith('.') || allowedPath(i)) continue;
      const a = folderOf(i.from);
      const b = folderOf(resolve(dirname(i.from), i.spec));
      if (!a || !b || a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (n: string, path: string[]) => {
      if (state.get(n) === 'done') return;
      if (state.get(n) === 'open') {
        cycles.push([...path.slice(path.indexOf(n)), n].join(' → '));
        return;
      }
      state.set(n, 'open');
      for (const m of edges.get(n) ?? []) visit(m, [...path, n]);
      state.set(n, 'done');
    };
    for (const n of edges.keys()) visit(n, []);
    expect(cycles).toEqual([]);
  });

  it('only harness/model imports openai, only harness/sandbox imports pyodide, only harness/engine imports node-llama-cpp, only the adapter imports vitest', () => {
    const bad: string[] = [];
    for (const i of all) {
      const f = folderOf(i.from);
      const where = relative(ROOT, i.from);
      if (/^openai(\/|$)/.test(i.spec) && f !== 'model') bad.push(`${where} imports ${i.spec}`);
      if (/^pyodide(\/|$)/.test(i.spec) && f !== 'sandbox') bad.push(`${where} imports ${i.spec}`);
      if (/^(node-llama-cpp|@node-llama-cpp\/)/.test(i.spec) && f !== 'engine') bad.push(`${where} imports ${i.spec}`);
      if (/^(vitest|@vitest\/)/.test(i.spec) && f !== 'vitest' && !where.startsWith('reporters/'))
        bad.push(`${where} imports ${i.spec}`);
    }
    expect(bad).toEqual([]);
  });

  it("no library module imports a dev dependency (the peer dependencies, vitest and @vitest/ui, are the user's)", () => {
    const dev = Object.keys(pkg.devDependencies).filter((d) => !(d in (pkg.peerDependencies ?? {})));
    const bad = all
      .filter((i) => !i.typeOnly && dev.some((d) => i.spec === d || i.spec.startsWith(`${d}/`)))
      .map((i) => `${relative(ROOT, i.from)} imports ${i.spec}`);
    expect(bad).toEqual([]);
  });
});

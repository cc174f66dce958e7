// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the violation lines and a planted module's source quote template literals
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { suiteFolders } from '../../harness/kit/suite-folders.ts';
import { folderOf, libraryModules, moduleReferences, type Reference } from './module-graph.ts';

/**
 * The layering of harness/, read from the source with every reference resolved (./module-graph.ts: esbuild's
 * metafile for module edges, the syntax tree for path literals and `fromRoot` paths). A module's folder is its top
 * folder under harness/ (or reporters/), nothing relabelled. `LEVEL` below is the one statement of the layer order,
 * and docs/ARCHITECTURE.md's "Layers" diagram is checked to list the same folders at the same levels: a folder may
 * reference only folders of a lower level, never one of its own level. No reference cycle between folders; only
 * harness/model imports openai, only harness/sandbox imports pyodide, only harness/engine imports node-llama-cpp,
 * only the Vitest adapter and the reporter import vitest, only harness/adapters imports the agent SDKs; no library module imports a dev dependency. Test files
 * are exempt (they may import anything).
 */

const ROOT = fromRoot();
/** The suites: the registry's folders (harness/kit/suite-folders.ts), each at the suites' level. */
const SUITE_LEVEL = 6;
const REGISTRY = suiteFolders(join(ROOT, 'harness')).map((f) => f.name);
const LEVEL: Record<string, number> = {
  core: 0,
  model: 1,
  engine: 1,
  stats: 1,
  sandbox: 1,
  parse: 1,
  sim: 1,
  hub: 1,
  // Serving a tool world over MCP (the official SDK's server and client); the suites hand it their worlds.
  'mcp-serve': 1,
  match: 2,
  agent: 2,
  report: 2,
  constrain: 2,
  methods: 2,
  templates: 2,
  // `toolgauge serve` renders the GGUF's chat template and builds grammars; the kit's runSuite may start it.
  serve: 3,
  calls: 3,
  kit: 4,
  launch: 5,
  // Tasks that run an agent built with another SDK (the AI SDK, the OpenAI Agents SDK) on the kit's endpoint.
  adapters: 5,
  // MCP servers' tools as a describeEval's tool source (the official SDK's client, loaded on first use).
  mcp: 5,
  vitest: SUITE_LEVEL,
  ...Object.fromEntries(REGISTRY.map((n) => [n, SUITE_LEVEL])),
  builtin: 7,
  optimize: 7,
  // The Vitest reporter (reporters/, beside harness/) loads the built-in suites by name.
  view: 8,
  reporters: 8,
  // The public API names the reporter for a project's Vitest configuration (evalConfig).
  api: 9,
  cli: 10,
};

const how = (r: Reference) =>
  ({
    import: 'imports',
    'dynamic import': 'imports dynamically',
    require: 'requires',
    'type import': 'imports types from',
    path: 'names a path in',
  })[r.kind];

/** The layer rules over a list of references: one line per violation, `file → spec (folder Ln how folder Lm)`. */
function layerViolations(refs: readonly Reference[], suites: readonly string[] = REGISTRY): string[] {
  const level = (f: string) => LEVEL[f] ?? (suites.includes(f) ? SUITE_LEVEL : undefined);
  const bad = new Set<string>();
  for (const r of refs) {
    const a = folderOf(r.from);
    const b = r.external ? null : folderOf(r.to);
    if (!a || !b || a === b) continue;
    const [la, lb] = [level(a), level(b)];
    if (la === undefined || lb === undefined) continue;
    const where = `${r.from} → ${r.spec}`;
    if (suites.includes(a) && suites.includes(b)) bad.add(`${where} (suite ${a} ${how(r)} suite ${b})`);
    else if (lb >= la) bad.add(`${where} (${a} L${la} ${how(r)} ${b} L${lb}${lb === la ? ', the same level' : ''})`);
  }
  return [...bad].sort();
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

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const lib = libraryModules(ROOT);
let all: Reference[] = [];
beforeAll(async () => {
  all = await moduleReferences(ROOT, lib);
});

describe('layering of harness/', () => {
  it('every harness folder has a layer', () => {
    const folders = new Set(lib.map((f) => folderOf(f.slice(ROOT.length + 1))));
    expect([...folders].filter((f) => !f || !(f in LEVEL))).toEqual([]);
  });

  it('references point down, never up nor sideways, with no exception', () => {
    expect(layerViolations(all)).toEqual([]);
  });

  it('docs/ARCHITECTURE.md shows the same order (its Layers diagram is this table, level by level)', () => {
    const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const block = /## Layers\n\n```\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(block).toBe(renderLevels());
  });

  it('has no reference cycle between harness folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const r of all) {
      const a = folderOf(r.from);
      const b = r.external ? null : folderOf(r.to);
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

  it('only harness/model imports openai, only harness/sandbox imports pyodide, only harness/engine imports node-llama-cpp, only the adapter and the reporter import vitest, only harness/adapters imports the agent SDKs', () => {
    const bad: string[] = [];
    for (const r of all.filter((x) => x.external)) {
      const f = folderOf(r.from);
      const line = `${r.from} ${how(r)} ${r.to}`;
      if (/^openai(\/|$)/.test(r.to) && f !== 'model') bad.push(line);
      if (/^pyodide(\/|$)/.test(r.to) && f !== 'sandbox') bad.push(line);
      if (/^(node-llama-cpp|@node-llama-cpp\/)/.test(r.to) && f !== 'engine') bad.push(line);
      if (/^(vitest|@vitest\/)/.test(r.to) && f !== 'vitest' && f !== 'reporters') bad.push(line);
      if (/^(ai|@ai-sdk\/.*|@openai\/agents.*)$/.test(r.to) && f !== 'adapters') bad.push(line);
    }
    expect(bad).toEqual([]);
  });

  it("no library module imports a dev dependency (the peer dependencies, vitest and @vitest/ui, are the user's)", () => {
    const dev = Object.keys(pkg.devDependencies).filter((d) => !(d in (pkg.peerDependencies ?? {})));
    const bad = all
      .filter((r) => r.external && r.kind !== 'type import' && dev.some((d) => r.to === d || r.to.startsWith(`${d}/`)))
      .map((r) => `${r.from} ${how(r)} ${r.to}`);
    expect(bad).toEqual([]);
  });
});

describe('the layer check on planted modules (a throwaway tree)', () => {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  const write = (rel: string, text = 'export const x = 1;\n') => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  let refs: Reference[] = [];
  beforeAll(async () => {
    for (const f of [
      'harness/cli/main.ts',
      'harness/builtin/load.ts',
      'harness/view/page.ts',
      'harness/api/index.ts',
      'harness/optimize/index.ts',
      'harness/launch/start.ts',
      'harness/maze/suite.ts',
      'harness/toolhop/suite.ts',
      'harness/vitest/setup.ts',
      'reporters/toolgauge.ts',
    ])
      write(f);
    write(
      'harness/kit/planted.ts',
      [
        "import { createRequire } from 'node:module';",
        "import { dirname, join } from 'node:path';",
        "import { fileURLToPath } from 'node:url';",
        "import { x } from '../cli/main.ts';",
        "import type { T } from '../cli/types.ts';",
        "export { x as y } from '../builtin/load.ts';",
        'export const page = (n: string) => import(`../view/${n}.ts`);',
        "export const api = () => import(/* a comment */ '../api/index.ts');",
        "export const opt = createRequire(import.meta.url)('../optimize/index.ts');",
        "export const rep = join(dirname(fileURLToPath(import.meta.url)), '../../reporters/toolgauge.ts');",
        "export const start = new URL('../launch/start.ts', import.meta.url);",
        'declare function fromRoot(...p: string[]): string;',
        "export const suite = fromRoot('harness', 'maze', 'suite.ts');",
        "// import('../cli/commented.ts') in a comment is no reference",
        "/* new URL('../api/commented.ts', import.meta.url) */",
        'export const z = x;',
      ].join('\n'),
    );
    write(
      'harness/maze/run.ts',
      "import { x } from '../toolhop/suite.ts';\nimport '../vitest/setup.ts';\nexport { x };\n",
    );
    refs = await moduleReferences(root, libraryModules(root));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('catches every shape of upward reference, each as what it is', () => {
    const planted = refs.filter((r) => r.from === 'harness/kit/planted.ts' && !r.external);
    const seen = (to: string) => planted.filter((r) => r.to === to).map((r) => r.kind);
    expect(seen('harness/cli/main.ts')).toEqual(['import']);
    expect(seen('harness/builtin/load.ts')).toEqual(['import']);
    // erased from the bundle, still read from the source
    expect(seen('harness/cli/types.ts')).toEqual(['type import']);
    expect(seen('harness/view/page.ts')).toEqual(['dynamic import']);
    // esbuild expands the template literal to a glob and bundles every file it matches
    expect(planted.find((r) => r.to === 'harness/view/page.ts')?.spec).toBe('../view/**/*.ts');
    expect(seen('harness/api/index.ts')).toEqual(['dynamic import']);
    expect(seen('harness/optimize/index.ts')).toEqual(['path']);
    expect(seen('reporters/toolgauge.ts')).toEqual(['path']);
    expect(seen('harness/launch/start.ts')).toEqual(['path']);
    expect(seen('harness/maze/suite.ts')).toEqual(['path']);
    expect(planted.filter((r) => r.spec.includes('commented'))).toEqual([]);

    const bad = layerViolations(refs, ['maze', 'toolhop']);
    for (const line of [
      'harness/kit/planted.ts → ../cli/main.ts (kit L4 imports cli L10)',
      'harness/kit/planted.ts → ../builtin/load.ts (kit L4 imports builtin L7)',
      'harness/kit/planted.ts → ../api/index.ts (kit L4 imports dynamically api L9)',
      'harness/kit/planted.ts → ../optimize/index.ts (kit L4 names a path in optimize L7)',
      'harness/kit/planted.ts → ../../reporters/toolgauge.ts (kit L4 names a path in reporters L8)',
      'harness/kit/planted.ts → ../launch/start.ts (kit L4 names a path in launch L5)',
      "harness/kit/planted.ts → fromRoot('harness', 'maze', 'suite.ts') (kit L4 names a path in maze L6)",
      'harness/maze/run.ts → ../toolhop/suite.ts (suite maze imports suite toolhop)',
      'harness/maze/run.ts → ../vitest/setup.ts (maze L6 imports vitest L6, the same level)',
    ])
      expect(bad).toContain(line);
    expect(bad).toContain('harness/kit/planted.ts → ../view/**/*.ts (kit L4 imports dynamically view L8)');
    expect(bad).toContain('harness/kit/planted.ts → ../cli/types.ts (kit L4 imports types from cli L10)');
    expect(bad).toHaveLength(11);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

/**
 * The layering DESIGN §6 promises, read from the source (not from a list kept beside the code):
 * core ← {model, stats, sandbox, parse, sim, match} ← {agent, report} ← kit ← {vitest adapter, suites} ← {builtin,
 * api, cli, reporters}. No import cycle between harness folders; only harness/model imports openai, only
 * harness/sandbox imports pyodide, only the Vitest adapter imports vitest; no library module imports a dev
 * dependency. Test files are exempt (they may import anything).
 */

const ROOT = fromRoot();
const LEVEL: Record<string, number> = {
  core: 0,
  model: 1, stats: 1, sandbox: 1, parse: 1, sim: 1, hub: 1,
  match: 2, agent: 2, report: 2, constrain: 2, methods: 2,
  kit: 3,
  vitest: 4, toolhop: 4, maze: 4, probe: 4, bfcl: 4, apibank: 4,
  builtin: 5,
  optimize: 5,
  api: 6, cli: 6,
};
const SUITES = new Set(['toolhop', 'maze', 'probe', 'bfcl', 'apibank']);
/**
 * Suite-to-suite imports that are part of the design: BFCL reports the probe's layers and causes beside its verdict;
 * API-Bank reads replies with BFCL's emulation of Python's `ast.parse` and its lossless `json.loads`.
 */
const SUITE_EDGES = new Set(['bfcl→probe', 'apibank→bfcl']);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    // Test files and test-support modules (testkit.ts, arbitraries.ts: fast-check generators) may import anything.
    else if (/\.(ts|mjs)$/.test(name) && !/\.test\.ts$|\.d\.ts$|(^|\/)(testkit|arbitraries)\.ts$/.test(name)) out.push(p);
  }
  return out;
}

interface Import {
  from: string;
  spec: string;
  typeOnly: boolean;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

function importsOf(file: string): Import[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(IMPORT)].map((m) => ({ from: file, spec: m[3]!, typeOnly: !!m[2] }));
}

const folderOf = (file: string): string | null => {
  const rel = relative(join(ROOT, 'harness'), file);
  if (rel.startsWith('..')) return null;
  return rel.split('/')[0]!;
};

const lib = [...files(join(ROOT, 'harness')), ...files(join(ROOT, 'reporters'))];
const all = lib.flatMap(importsOf);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; peerDependencies?: Record<string, string> };

describe('layering of harness/ (DESIGN §6)', () => {
  it('every harness folder has a layer', () => {
    const folders = new Set(lib.map(folderOf).filter((f): f is string => !!f && !f.includes('.')));
    expect([...folders].filter((f) => !(f in LEVEL))).toEqual([]);
  });

  it('imports point down (or sideways within a layer only where allowed), never up', () => {
    const bad: string[] = [];
    for (const i of all) {
      if (!i.spec.startsWith('.')) continue;
      const a = folderOf(i.from);
      const b = folderOf(resolve(dirname(i.from), i.spec));
      if (!a || !b || a === b || !(a in LEVEL) || !(b in LEVEL)) continue;
      const up = LEVEL[b]! > LEVEL[a]!;
      const sideways = LEVEL[b] === LEVEL[a];
      // Suites never import one another or the Vitest adapter; the adapter never imports a suite.
      const designed = SUITE_EDGES.has(`${a}→${b}`);
      if (up || (sideways && !designed && !(a === 'report' && b === 'match'))) bad.push(`${relative(ROOT, i.from)} → ${i.spec} (${a} L${LEVEL[a]} imports ${b} L${LEVEL[b]})`);
      if (SUITES.has(a) && ((SUITES.has(b) && !designed) || b === 'vitest')) bad.push(`${relative(ROOT, i.from)} → ${i.spec} (suite ${a} imports ${b})`);
    }
    expect(bad).toEqual([]);
  });

  it('has no import cycle between harness folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of all) {
      if (!i.spec.startsWith('.')) continue;
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

  it('only harness/model imports openai, only harness/sandbox imports pyodide, only the adapter imports vitest', () => {
    const bad: string[] = [];
    for (const i of all) {
      const f = folderOf(i.from);
      const where = relative(ROOT, i.from);
      if (/^openai(\/|$)/.test(i.spec) && f !== 'model') bad.push(`${where} imports ${i.spec}`);
      if (/^pyodide(\/|$)/.test(i.spec) && f !== 'sandbox') bad.push(`${where} imports ${i.spec}`);
      if (/^(vitest|@vitest\/)/.test(i.spec) && f !== 'vitest' && !where.startsWith('reporters/')) bad.push(`${where} imports ${i.spec}`);
    }
    expect(bad).toEqual([]);
  });

  it('no library module imports a dev dependency (the peer dependencies, vitest and @vitest/ui, are the user\'s)', () => {
    const dev = Object.keys(pkg.devDependencies).filter((d) => !(d in (pkg.peerDependencies ?? {})));
    const bad = all.filter((i) => !i.typeOnly && dev.some((d) => i.spec === d || i.spec.startsWith(`${d}/`))).map((i) => `${relative(ROOT, i.from)} imports ${i.spec}`);
    expect(bad).toEqual([]);
  });
});

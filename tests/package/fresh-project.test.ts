import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { validSummary } from '../../harness/report/summary.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject } from '../../scripts/fresh-project.mjs';
import { FEATURE_FILES } from './eval-page.ts';
import { packed } from './pack.ts';
import { projectShell } from './project-shell.ts';
import { typeCheck } from './type-check.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// toolgauge as a user installs it: `npm pack` (which builds dist/), unpacked into fresh projects — one ESM, one
// CommonJS — that get the files of docs/eval.md ("The files and commands"), then that section's commands run there,
// in order. The page is the source: its titled code blocks are written as the project's files and its command block
// is run. Every type check of the page's examples is here, in this process, where the checks after the first reuse
// the libraries' parsed declarations (type-check.ts); the other sections' examples, which
// tests/package/fresh-features.test.ts runs, are checked in a third project.

const PAGE = readFileSync(fromRoot('docs', 'eval.md'), 'utf8');
const HEADING = '## The files and commands';
if (!PAGE.includes(HEADING)) throw new Error(`docs/eval.md has no "${HEADING}" section`);
const SECTION = PAGE.slice(PAGE.indexOf(HEADING), PAGE.indexOf('\n## ', PAGE.indexOf(HEADING) + 1));
/** Code blocks of the section: ```lang [file]. */
const BLOCKS = [...SECTION.matchAll(/```(\w+)(?: ([^\n]+))?\n([\s\S]*?)```/g)].map((m) => ({
  lang: m[1]!,
  file: m[2],
  text: m[3]!,
}));
const FILES = BLOCKS.filter((b) => b.file);
const COMMANDS = BLOCKS.find((b) => b.lang === 'sh' && b.text.includes('npx toolgauge eval'))!
  .text.split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'));
/** The page's type check of the project. */
const TSC = 'npx tsc --noEmit';

const root = tempDir('package');
let pack = { tarball: '', unpacked: '' };
let files: string[] = [];

function project(type: 'module' | 'commonjs'): string {
  const dir = freshProject(join(root, type), { type, ...pack }) as string;
  for (const f of FILES) writeFileSync(join(dir, f.file!), f.text);
  return dir;
}

const sh = projectShell;

let esm = '';
let cjs = '';
let features = '';
beforeAll(async () => {
  ({ files, ...pack } = await packed());
  esm = project('module');
  cjs = project('commonjs');
  features = freshProject(join(root, 'features'), { type: 'module', ...pack }) as string;
  for (const f of FEATURE_FILES) writeFileSync(join(features, f.file), f.text);
}, 300_000);

describe('the packed package', () => {
  it('ships the built JavaScript, declarations, runtime assets, bin, README and LICENSE, and nothing else', () => {
    const outside = files.filter((f) => !/^(dist\/|bin\/toolgauge\.mjs$|README\.md$|LICENSE$|package\.json$)/.test(f));
    expect(outside).toEqual([]);
    expect(
      files.filter(
        (f) => /\.test\.|(^|\/)(tests|bench|fixtures)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
    for (const f of [
      'dist/harness/api/index.js',
      'dist/harness/api/index.d.ts',
      'dist/harness/api/vitest-config.js',
      'dist/reporters/toolgauge.js',
      'dist/harness/cli/main.js',
      'dist/suites/toolhop/part-1.eval.js',
      'LICENSE',
    ])
      expect(files).toContain(f);
    // What the runtime reads beside its modules (import.meta.url), each as the sources have it.
    const assets = files
      .filter((f) => f.startsWith('dist/') && !/\.(js|d\.ts)$/.test(f))
      .map((f) => f.slice('dist/'.length));
    expect(assets).toEqual(
      expect.arrayContaining([
        'harness/sandbox/pyodide-worker.mjs',
        'harness/vitest/eval-worker-start.cjs',
        'harness/engine/child.mjs',
        'harness/sandbox/runtime/toolhop_runtime.py',
        'harness/bfcl/python/bfcl_exec.py',
        'harness/templates/reference/hermes.jinja',
        'harness/core/pyliteral/data/unicode-names-14.0.0.txt.gz',
        'cases/toolhop/sample.json',
        'cases/maze/c1.json',
      ]),
    );
    // Buffer#equals, not toEqual: Vitest's deep equality walks a Buffer byte by byte (about 4 CPU-s for these 1.6 MB).
    for (const a of assets)
      expect(
        readFileSync(join(esm, 'node_modules', 'toolgauge', 'dist', a)).equals(readFileSync(fromRoot(a))),
        `dist/${a} differs from ${a}`,
      ).toBe(true);
    const pkg = readJson<{
      exports: Record<string, string | { types?: string }>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      dependencies: Record<string, string>;
    }>(join(esm, 'node_modules', 'toolgauge', 'package.json'));
    // The declarations a user's type check reads: each export's, and every one a shipped declaration imports.
    const shipped = new Set(files);
    const types = Object.values(pkg.exports).flatMap((e) => (typeof e === 'object' && e.types ? [e.types] : []));
    expect(types.length).toBeGreaterThanOrEqual(7);
    expect(types.map((t) => posix.normalize(t)).filter((t) => !shipped.has(t))).toEqual([]);
    const unresolved = files
      .filter((f) => f.endsWith('.d.ts'))
      .flatMap((f) =>
        [
          ...readFileSync(join(esm, 'node_modules', 'toolgauge', f), 'utf8').matchAll(
            /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
          ),
        ].map((m) => posix.join(posix.dirname(f), m[1]!.replace(/\.js$/, '.d.ts'))),
      )
      .filter((d) => !shipped.has(d));
    expect(unresolved).toEqual([]);
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([
      '@ai-sdk/openai-compatible',
      '@openai/agents',
      '@vitest/ui',
      'ai',
      'node-llama-cpp',
      'vitest',
    ]);
    // The agent SDKs are optional too: only toolgauge/ai-sdk and toolgauge/openai-agents load them.
    for (const sdk of ['ai', '@ai-sdk/openai-compatible', '@openai/agents'])
      expect(pkg.peerDependenciesMeta?.[sdk]?.optional, sdk).toBe(true);
    // The local engine is optional: installing toolgauge never pulls node-llama-cpp's GPU builds.
    expect(pkg.peerDependencies['node-llama-cpp']).toBe('3.21.1');
    expect(pkg.peerDependenciesMeta?.['node-llama-cpp']?.optional).toBe(true);
    expect(existsSync(join(esm, 'node_modules', 'node-llama-cpp'))).toBe(false);
    expect(Object.keys(pkg.dependencies)).not.toEqual(expect.arrayContaining(['vitest']));
    for (const dev of ['tsx', 'esbuild', 'vitest', '@vitest/ui']) expect(pkg.dependencies).not.toHaveProperty(dev);
    // Every package the shipped JavaScript imports is a dependency or a peer dependency (or part of Node).
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const imported = new Set<string>();
    for (const f of files.filter((x) => /\.m?js$/.test(x))) {
      // Statements start a line; comments (which quote imports as examples) are left out.
      const text = readFileSync(join(esm, 'node_modules', 'toolgauge', f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(
        /^(?:import|export)\b[^\n]*?\bfrom\s*['"]([^'"./][^'"]*)['"]|\bimport\(\s*['"]([^'"./][^'"]*)['"]\s*\)/gm,
      )) {
        const spec = (m[1] ?? m[2])!;
        if (!spec.startsWith('node:'))
          imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect([...imported].filter((p) => !declared.has(p)).sort()).toEqual([]);
    expect(imported.has('openai') && imported.has('vitest')).toBe(true);
  });

  it('the commands of docs/eval.md in a fresh ESM project, answered by the built-in simulator (no --base-url): eval with a gate (the first run after install), then after a lockfile change -t, a second model, report --compare, plain vitest run, tsc', async () => {
    const out: string[] = [];
    for (const line of COMMANDS) {
      // The page's type check runs in this process (type-check.ts), where the checks after it reuse the libraries'
      // parsed declarations (about 5 CPU-s less than three tsc processes). The project's `tsc` is the checkout's
      // TypeScript (scripts/fresh-project.mjs links it), not toolgauge's: what is proved is the diagnostics.
      if (line === TSC) {
        expect(typeCheck(esm, { overrides: { noEmit: true } })).toBe('');
        out.push('');
        continue;
      }
      const r = await sh(esm, line);
      expect(r.exitCode, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (line.startsWith('npx tsc')) expect(r.stdout + r.stderr).toBe('');
      out.push(String(r.stdout));
      // After the first run, an install changes the lockfile: the page's runs after it still find and run the eval
      // (-t its two multiplications; sim:wrong and the plain `vitest run` all three instances, checked below).
      if (out.length === 1)
        writeFileSync(
          join(esm, 'node_modules', '.package-lock.json'),
          JSON.stringify({ name: 'my-evals', lockfileVersion: 3, packages: { changed: {} } }),
        );
    }
    expect(COMMANDS).toContain(TSC);
    expect(out[0]).toMatch(/gate pass_rate>=1: PASSED/);
    // (the plain `vitest run` wrote results/arith last)
    const s = validSummary(readJson(join(esm, 'results/arith/summary.json')));
    expect(s.metrics.pass_rate).toMatchObject({ value: 1, n: 3 });
    expect(s.metrics.used_a_tool).toMatchObject({ value: 1, n: 3 });
    // -t ran the multiplications only
    expect(
      readLines<{ id: string }>(join(esm, 'results/arith-mul/instances.jsonl'))
        .map((r) => r.id)
        .sort(),
    ).toEqual(['mul-1', 'mul-2']);
    // sim:wrong made each case's expected call too and answered every case wrong.
    const w = validSummary(readJson(join(esm, 'results/arith-wrong/summary.json')));
    expect(w.metrics.pass_rate).toMatchObject({ value: 0, n: 3 });
    expect(w.metrics.used_a_tool).toMatchObject({ value: 1, n: 3 });
    expect(readFileSync(join(esm, 'results/arith-wrong/report.md'), 'utf8')).toMatch(
      /\*\*add-1\*\*: answer_matches: expected '42', answered '43'/,
    );
    expect(readFileSync(join(esm, 'results/compare/comparison.md'), 'utf8')).toMatch(
      /\| pass_rate \| 1\.000 \| 0\.000 \|/,
    );
    // Nothing is written inside the installed package, and no on-disk module cache is kept for the project.
    expect(existsSync(join(esm, 'node_modules', '.experimental-vitest-cache'))).toBe(false);

    // The same eval type-checks with moduleResolution Bundler; and toolgauge's declarations type-check too, as
    // without skipLibCheck (the project's tsconfig skips every library's, as a user's usually does).
    expect(
      typeCheck(esm, {
        overrides: { noEmit: true, module: 'ESNext', moduleResolution: 'Bundler' },
        ownDeclarations: true,
      }),
    ).toBe('');
  });

  it('in a fresh CommonJS project: plain vitest run with the config of docs/eval.md, toolgauge eval with a failing gate, tsc (NodeNext)', async () => {
    const vitest = await sh(cjs, 'npx vitest run --reporter=dot', { TOOLGAUGE_MODEL: 'sim:oracle' });
    expect(vitest.exitCode, `${vitest.stdout}\n${vitest.stderr}`).toBe(0);
    expect(validSummary(readJson(join(cjs, 'results/arith/summary.json'))).metrics.pass_rate).toMatchObject({
      value: 1,
      n: 3,
    });
    // A failing gate fails the run (exit 1), and the run still writes its results.
    const tg = await sh(
      cjs,
      'npx toolgauge eval arith.eval.ts --model sim:wrong --gate "pass_rate>=1" --out-dir results/wrong',
    );
    expect(tg.exitCode, `${tg.stdout}\n${tg.stderr}`).toBe(1);
    expect(tg.stdout).toMatch(/gate pass_rate>=1: FAILED/);
    expect(validSummary(readJson(join(cjs, 'results/wrong/summary.json'))).metrics.pass_rate).toMatchObject({
      value: 0,
      n: 3,
    });
    // `npx tsc --noEmit`, in this process (see the ESM project's commands).
    expect(typeCheck(cjs, { overrides: { noEmit: true } })).toBe('');
  });

  it("the other sections' examples (tests/package/fresh-features.test.ts runs them): strict tsc passes over them, and an expected call with a misspelt field is a type error at its line", () => {
    expect(FEATURE_FILES.map((f) => f.file)).toContain('arith-calls.eval.ts');
    const good = FEATURE_FILES.find((f) => f.file === 'arith-calls.eval.ts')!.text;
    const bad = good.replace("{ name: 'multiply'", "{ nmae: 'multiply'");
    expect(bad).not.toBe(good);
    const line = bad.split('\n').findIndex((l) => l.includes('nmae')) + 1;
    writeFileSync(join(features, 'bad-calls.ts'), bad);
    try {
      // `npx tsc --noEmit` in the project, in this process (see the ESM project's commands).
      const out = typeCheck(features, { overrides: { noEmit: true } });
      const errors = out.split('\n').filter((l) => /error TS/.test(l));
      expect(errors, out).toHaveLength(1);
      expect(errors[0]).toMatch(new RegExp(`^bad-calls\\.ts\\(${line},\\d+\\): error TS\\d+: .*'nmae'`));
    } finally {
      rmSync(join(features, 'bad-calls.ts'));
    }
  });

  it('runs the built-in suites from dist/: ToolHop with its sandboxed tools (pyodide), Maze on its bundled cases', async () => {
    const toolhop = await sh(cjs, 'npx toolgauge toolhop --limit 2 --out-dir results/toolhop', {
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
    });
    expect(toolhop.exitCode, `${toolhop.stdout}\n${toolhop.stderr}`).toBe(0);
    const th = validSummary(readJson(join(cjs, 'results/toolhop/summary.json')));
    expect(th.counts).toMatchObject({ runs: 2, errors: 0 });
    const maze = await sh(
      cjs,
      'npx toolgauge maze --categories c1 --modes P0 --only C1_task_001,C1_task_002 --out-dir results/maze',
    );
    expect(maze.exitCode, `${maze.stdout}\n${maze.stderr}`).toBe(0);
    expect(validSummary(readJson(join(cjs, 'results/maze/summary.json'))).counts).toMatchObject({ runs: 2, errors: 0 });
    // Nothing was written into the installed package.
    const written = execFileSync(
      'find',
      [
        join(cjs, 'node_modules', 'toolgauge'),
        '-newer',
        join(cjs, 'node_modules', 'toolgauge', 'package.json'),
        '-type',
        'f',
      ],
      { encoding: 'utf8' },
    );
    expect(written.trim()).toBe('');
  });

  it("plain Node imports 'toolgauge' without registering a built-in suite; 'toolgauge/builtin' registers them", () => {
    const probe = `
      const api = await import('toolgauge');
      const before = ['toolhop', 'maze', 'probe', 'bfcl'].filter((n) => api.suiteNamed(n));
      await import('toolgauge/builtin');
      const after = ['toolhop', 'maze', 'probe', 'bfcl'].filter((n) => api.suiteNamed(n));
      console.log(JSON.stringify({ describeEval: typeof api.describeEval, before, after }));`;
    for (const dir of [esm, cjs]) {
      const out = execFileSync('node', ['--input-type=module', '-e', probe], { cwd: dir, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({
        describeEval: 'function',
        before: [],
        after: ['toolhop', 'maze', 'probe', 'bfcl'],
      });
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { vitestOptionsOf } from '../kit/plan.ts';
import { builtinEvalConfig, launcherBundle, workerBundleAliases, workerPreload } from './eval-config.ts';

const cfg = (env: NodeJS.ProcessEnv) =>
  builtinEvalConfig(vitestOptionsOf({ concurrency: 4, instanceTimeoutMs: 1000 }), env, {
    reporter: {},
    reporterPath: '/nowhere/toolgauge.ts',
  });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function bundle(entries: Record<string, string>, present: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-wb-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'worker-entries.json'), JSON.stringify(entries));
  for (const f of present) writeFileSync(join(dir, f), 'export {};\n');
  return dir;
}

/** What Vite's alias step would turn `spec` into (first matching entry), or the spec unchanged. */
const resolveWith = (aliases: Array<{ find: RegExp; replacement: string }>, spec: string) =>
  aliases.find((a) => a.find.test(spec))?.replacement ?? spec;

describe('the eval files’ imports under the CLI', () => {
  it('resolve to the bundled worker files, and only the eval files’ own import paths do', () => {
    const dir = bundle(
      { 'harness/toolhop/suite.ts': 'w-toolhop.mjs', 'harness/vitest/suite-tests.ts': 'w-suite-tests.mjs' },
      ['w-toolhop.mjs', 'w-suite-tests.mjs'],
    );
    const aliases = workerBundleAliases(dir);
    expect(resolveWith(aliases, '../../harness/toolhop/suite.ts')).toBe(join(dir, 'w-toolhop.mjs'));
    expect(resolveWith(aliases, '../../harness/vitest/suite-tests.ts')).toBe(join(dir, 'w-suite-tests.mjs'));
    // Other modules, and look-alike paths, load from source.
    expect(resolveWith(aliases, '../toolhop/suite.ts')).toBe('../toolhop/suite.ts');
    expect(resolveWith(aliases, '../../harness/toolhop/suite.tsx')).toBe('../../harness/toolhop/suite.tsx');
    expect(resolveWith(aliases, '../../harness/toolhopXsuite.ts')).toBe('../../harness/toolhopXsuite.ts');
  });

  it('without a bundle (or with a file missing from it) the sources load', () => {
    expect(workerBundleAliases(undefined)).toEqual([]);
    expect(workerBundleAliases(join(tmpdir(), 'no-such-bundle-dir'))).toEqual([]);
    const dir = bundle({ 'harness/toolhop/suite.ts': 'w-toolhop.mjs', 'harness/maze/suite.ts': 'w-maze.mjs' }, [
      'w-maze.mjs',
    ]);
    expect(workerBundleAliases(dir).map((a) => a.replacement)).toEqual([join(dir, 'w-maze.mjs')]);
    expect(cfg({}).resolve.alias).toEqual([]);
  });

  it('ignores an inherited TOOLGAUGE_WORKER_BUNDLE: only the launcher, in this process, names the bundle', () => {
    const dir = bundle({ 'harness/toolhop/suite.ts': 'w-toolhop.mjs' }, ['w-toolhop.mjs']);
    expect(cfg({ TOOLGAUGE_WORKER_BUNDLE: dir }).resolve.alias).toEqual([]);
    expect(
      cfg({ TOOLGAUGE_WORKER_BUNDLE: dir, TOOLGAUGE_WORKER_BUNDLE_PID: String(process.pid + 1) }).resolve.alias,
    ).toEqual([]);
    expect(
      cfg({
        TOOLGAUGE_WORKER_BUNDLE: dir,
        TOOLGAUGE_WORKER_BUNDLE_PID: String(process.pid),
      }).resolve.alias.map((a) => a.replacement),
    ).toEqual([join(dir, 'w-toolhop.mjs')]);
  });
});

describe('what an early test worker preloads', () => {
  it("each running suite's bundled definition and the model SDK; not a suite the run does not hold, not a missing file, nothing from an inherited bundle", () => {
    const dir = bundle(
      {
        'harness/toolhop/suite.ts': 'w-toolhop.mjs',
        'harness/maze/suite.ts': 'w-maze.mjs',
        'harness/vitest/suite-tests.ts': 'w-suite-tests.mjs',
      },
      ['w-toolhop.mjs', 'w-suite-tests.mjs'],
    );
    const env = { TOOLGAUGE_WORKER_BUNDLE: dir, TOOLGAUGE_WORKER_BUNDLE_PID: String(process.pid) };
    const modules = ['toolhop', 'maze'].map((n) => ({ source: `harness/${n}/suite.ts`, built: null }));
    const urls = workerPreload(launcherBundle(env), modules);
    expect(urls[0]).toBe(pathToFileURL(join(dir, 'w-toolhop.mjs')).href);
    expect(urls.slice(1)).toEqual([expect.stringMatching(/^file:.*\/node_modules\/openai\/.*\.m?js$/)]); // w-maze.mjs is missing
    expect(
      workerPreload(launcherBundle({ ...env, TOOLGAUGE_WORKER_BUNDLE_PID: '1' }), modules).some((u) => u.includes(dir)),
    ).toBe(false);
  });
});

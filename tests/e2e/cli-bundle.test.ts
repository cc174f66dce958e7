import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { toolgauge } from '../helpers/cli.ts';

// The CLI starts from a cached bundle of its sources; the cache must never serve code older than the sources.

const MANIFEST = fromRoot('node_modules', '.cache', 'toolgauge-cli', 'manifest.json');
const manifest = () =>
  JSON.parse(readFileSync(MANIFEST, 'utf8')) as { dir: string; inputs: Array<[string, number, number]> };

describe('the CLI bundle', () => {
  it('is rebuilt when a source file changes, and the sources still load without it', async () => {
    // A cache of this test's own: the checkout's stays fresh for the CLI runs of other tests meanwhile.
    const cache = join(mkdtempSync(join(tmpdir(), 'tg-cli-cache-')), 'cache');
    const own = { TOOLGAUGE_CLI_CACHE: cache };
    const ownManifest = () =>
      JSON.parse(readFileSync(join(cache, 'manifest.json'), 'utf8')) as {
        dir: string;
        inputs: Array<[string, number, number]>;
      };
    const first = await toolgauge(['--help'], own);
    expect(first.code, first.stderr).toBe(0);
    const before = ownManifest();
    expect(before.inputs.map(([f]) => f)).toContain('harness/cli/main.ts');

    // An input whose mtime is not the one recorded (here the record is changed, not the file, which other tests'
    // runs read meanwhile) makes the bundle stale.
    const stale = {
      ...before,
      inputs: before.inputs.map(([f, size, mtime]) => [
        f,
        size,
        f === 'harness/kit/flags/flags.ts' ? mtime - 5_000 : mtime,
      ]),
    };
    writeFileSync(join(cache, 'manifest.json'), JSON.stringify(stale));
    const again = await toolgauge(['--help'], own);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(ownManifest().dir).not.toBe(before.dir);
    expect(ownManifest().inputs).toContainEqual(before.inputs.find(([f]) => f === 'harness/kit/flags/flags.ts'));

    // Every module a built-in eval file imports has a bundled worker file (else the CLI's test worker would load
    // it and its ~200 dependencies through Vite).
    const dir = join(cache, ownManifest().dir);
    const entries = JSON.parse(readFileSync(join(dir, 'worker-entries.json'), 'utf8')) as Record<string, string>;
    const imported = new Set<string>();
    for (const suite of readdirSync(fromRoot('suites'))) {
      for (const f of readdirSync(fromRoot('suites', suite)).filter((n) => n.endsWith('.eval.ts'))) {
        for (const m of readFileSync(fromRoot('suites', suite, f), 'utf8').matchAll(
          /from '\.\.\/\.\.\/(harness\/[^']+)'/g,
        ))
          imported.add(m[1]!);
      }
    }
    expect(imported.size).toBeGreaterThan(1);
    for (const source of imported) {
      expect(entries[source], source).toBeDefined();
      expect(existsSync(join(dir, entries[source]!))).toBe(true);
    }

    const fromSource = await toolgauge(['--help'], { TOOLGAUGE_CLI_BUNDLE: '0' });
    expect(fromSource.code, fromSource.stderr).toBe(0);
    expect(fromSource.stdout).toBe(first.stdout);
    rmSync(dirname(cache), { recursive: true, force: true });
  });

  it('trusts a cache only when it is a 0700 folder of this user, and a manifest only when it names a build folder inside it', async () => {
    expect((await toolgauge(['--help'])).code).toBe(0);
    const launcher = (await import(pathToFileURL(fromRoot('bin', 'cli-bundle.mjs')).href)) as {
      fresh(cache: string): string | null;
      cacheProblem(cache: string): string | null;
    };
    const real = manifest();
    const realDir = fromRoot('node_modules', '.cache', 'toolgauge-cli', real.dir);
    const root = mkdtempSync(join(tmpdir(), 'tg-cache-'));
    try {
      const cache = join(root, 'toolgauge-cli');
      mkdirSync(cache, { mode: 0o700 });
      const withDir = (dir: string) => {
        mkdirSync(dirname(join(cache, dir, 'x')), { recursive: true });
        cpSync(realDir, join(cache, dir), { recursive: true });
        writeFileSync(
          join(cache, 'manifest.json'),
          JSON.stringify({ ...JSON.parse(readFileSync(MANIFEST, 'utf8')), dir }),
        );
      };
      withDir('b-1-2');
      expect(launcher.cacheProblem(cache)).toBeNull();
      expect(launcher.fresh(cache)).toBe('b-1-2');
      // A manifest naming a folder outside the cache (or an absolute path) is not followed.
      withDir('../planted');
      expect(launcher.fresh(cache)).toBeNull();
      withDir(join(root, 'abs'));
      expect(launcher.fresh(cache)).toBeNull();
      withDir('b-1-2');
      // A cache others may write to, or a link, is not trusted.
      chmodSync(cache, 0o755);
      expect(launcher.cacheProblem(cache)).toMatch(/mode 755, not 700/);
      expect(launcher.fresh(cache)).toBeNull();
      chmodSync(cache, 0o700);
      const link = join(root, 'link');
      symlinkSync(cache, link);
      expect(launcher.cacheProblem(link)).toMatch(/not a folder/);
      expect(launcher.fresh(link)).toBeNull();
      if (process.getuid?.() === 0) {
        chownSync(cache, 4242, 4242);
        expect(launcher.cacheProblem(cache)).toMatch(/owned by uid 4242/);
        expect(launcher.fresh(cache)).toBeNull();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it("names the checkout's fresh bundle to a process that runs main() itself, and none when bundles are off", async () => {
    const launcher = (await import(pathToFileURL(fromRoot('bin', 'cli-bundle.mjs')).href)) as {
      workerBundleDir(): Promise<string | null>;
    };
    const dir = await launcher.workerBundleDir();
    expect(dir).toBe(join(dirname(MANIFEST), manifest().dir));
    expect(existsSync(join(dir!, 'main.mjs'))).toBe(true);
    const saved = process.env.TOOLGAUGE_CLI_BUNDLE;
    process.env.TOOLGAUGE_CLI_BUNDLE = '0';
    try {
      expect(await launcher.workerBundleDir()).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.TOOLGAUGE_CLI_BUNDLE;
      else process.env.TOOLGAUGE_CLI_BUNDLE = saved;
    }
  });

  it('launchers that start together build one bundle between them; a lock left by a process that is gone is taken over', async () => {
    const cache = join(mkdtempSync(join(tmpdir(), 'tg-cli-lock-')), 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const gone = execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(join(cache, 'build.lock'), gone);
    const runs = await Promise.all([1, 2, 3].map(() => toolgauge(['--help'], { TOOLGAUGE_CLI_CACHE: cache })));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(runs[0]!.stdout);
    }
    expect(readdirSync(cache).filter((d) => d.startsWith('b-'))).toHaveLength(1);
    expect(existsSync(join(cache, 'build.lock'))).toBe(false);
    rmSync(dirname(cache), { recursive: true, force: true });
  });
});

// Loads the CLI from a single-file bundle of its TypeScript, rebuilt whenever a source file changes.
//
// Loading the CLI's ~300 TypeScript modules through tsx's loader hooks costs about 2 s of start-up on every run;
// one esbuild bundle loads in a fraction of that. The bundle is a cache, never a source: it is checked against the
// size and mtime of every input it was built from, rebuilt (about 0.3 s) when any differs, and skipped entirely
// (tsx loads the sources) when it cannot be built or written, or when TOOLGAUGE_CLI_BUNDLE=0.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zodEnglishOnly } from './zod-english-only.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'harness', 'cli', 'main.ts');
// The public API's modules a user's eval file imports (the package's exports but its Vitest configuration, which
// only a configuration file loads): `toolgauge eval` in a checkout loads them from the bundle too
// (harness/vitest/eval-bundle-plugin.ts), as the reporter it names.
const API_ENTRIES = ['index', 'matchers', 'builtin', 'ai-sdk', 'openai-agents'];

// What the built-in eval files import: bundled too, so the CLI's test worker loads them natively in a few files
// instead of ~200 modules one by one through Vite (harness/vitest/eval-config.ts aliases them under the CLI).
// Each suite folder's definition (a folder of harness/ holding a suite.json: harness/kit/suite-folders.ts) is one.
const WORKER_ENTRIES = workerEntries(ROOT);

/** The worker bundle's entries: the eval files' test generator and every suite folder's `suite.ts`. */
export function workerEntries(root) {
  const harness = join(root, 'harness');
  const suites = readdirSync(harness, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(harness, d.name, 'suite.json')))
    .map((d) => d.name)
    .sort();
  return {
    'w-suite-tests': 'harness/vitest/suite-tests.ts',
    ...Object.fromEntries(suites.map((n) => [`w-${n}`, `harness/${n}/suite.ts`])),
    ...Object.fromEntries(API_ENTRIES.map((n) => [`w-api-${n}`, `harness/api/${n}.ts`])),
    'w-reporter': 'reporters/toolgauge.ts',
  };
}
// TOOLGAUGE_CLI_CACHE names another folder (tests: a build of their own that leaves the checkout's cache alone); it
// is trusted on the same terms (cacheProblem).
const CACHE = process.env.TOOLGAUGE_CLI_CACHE
  ? resolve(process.env.TOOLGAUGE_CLI_CACHE)
  : join(ROOT, 'node_modules', '.cache', 'toolgauge-cli');
const MANIFEST = join(CACHE, 'manifest.json');
// Part of the manifest: a bundle from another launcher version is rebuilt.
const FORMAT = 5;

// The folder names rebuild() gives builds: a manifest naming anything else (`../x`, an absolute path) is not ours.
const BUILD_DIR = /^b-\d+-\d+$/;

/**
 * Why the cache folder cannot be trusted to hold code this user runs, or null when it can (or does not exist yet):
 * it must be a real folder (not a link), owned by this user, and closed to everyone else (0700).
 */
export function cacheProblem(cache = CACHE) {
  let s;
  try {
    s = lstatSync(cache);
  } catch {
    return null;
  }
  if (!s.isDirectory()) return 'is not a folder';
  if (typeof process.getuid === 'function' && s.uid !== process.getuid())
    return `is owned by uid ${s.uid}, not ${process.getuid()}`;
  if ((s.mode & 0o077) !== 0) return `has mode ${(s.mode & 0o777).toString(8)}, not 700`;
  return null;
}

/** The bundle's folder when every recorded input still has the size and mtime it had when it was built. */
export function fresh(cache = CACHE) {
  try {
    if (cacheProblem(cache)) return null;
    const m = JSON.parse(readFileSync(join(cache, 'manifest.json'), 'utf8'));
    if (m.format !== FORMAT || m.node !== process.version || m.root !== ROOT) return null;
    if (typeof m.dir !== 'string' || !BUILD_DIR.test(m.dir)) return null;
    // A suite folder added or removed since: the bundle's glob imports of harness/<suite>/… are out of date.
    if (JSON.stringify(m.entries) !== JSON.stringify(WORKER_ENTRIES)) return null;
    statSync(join(cache, m.dir, 'main.mjs'));
    for (const name of Object.keys(WORKER_ENTRIES)) statSync(join(cache, m.dir, `${name}.mjs`));
    statSync(join(cache, m.dir, 'worker-entries.json'));
    for (const [file, size, mtime] of m.inputs) {
      const s = statSync(join(ROOT, file));
      if (s.size !== size || s.mtimeMs !== mtime) return null;
    }
    return m.dir;
  } catch {
    return null;
  }
}

// Each module keeps its own import.meta.url, so paths it resolves relative to itself (cases, fixtures, worker
// scripts, the package root) are the same as when it is loaded from source. Each file is stat'ed before it is
// read: an edit during the build leaves the manifest stale, and the next run rebuilds.
const seen = new Map();
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      seen.set(args.path, statSync(args.path));
      const text = readFileSync(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      };
    });
  },
};

/** Every package the bundle may import (and its subpaths), zod excepted. */
function externalPackages() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({
    ...pkg.dependencies,
    ...pkg.devDependencies,
    ...pkg.peerDependencies,
    ...pkg.optionalDependencies,
  }).filter((n) => n !== 'zod');
  return names.flatMap((n) => [n, `${n}/*`]);
}

async function rebuild() {
  const { build, stop } = await import('esbuild');
  // Each build gets its own folder (a running CLI loads chunks lazily from the folder it started with); the
  // manifest, replaced atomically, names the current one.
  const dir = `b-${Date.now()}-${process.pid}`;
  mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  const problem = cacheProblem();
  if (problem) throw new Error(`${CACHE} ${problem}`);
  const r = await build({
    entryPoints: {
      main: ENTRY,
      ...Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([k, v]) => [k, join(ROOT, v)])),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    // Every package stays external but zod: bundled, its ~80 files load in half the time (in this process and the
    // test worker); only toolgauge's own modules use it, so one copy of it is all there is.
    external: externalPackages(),
    target: `node${process.versions.node.split('.')[0]}`,
    outdir: join(CACHE, dir),
    splitting: true,
    chunkNames: 'chunk-[hash]',
    // Maps beside the chunks, not inside them: the text Node compiles at every start is a third of the size (about
    // 0.02 s per process), and Vitest, or Node with --enable-source-maps, still finds them.
    sourcemap: 'linked',
    metafile: true,
    absWorkingDir: ROOT,
    logLevel: 'silent',
    plugins: [ownUrl, zodEnglishOnly],
  });
  // esbuild's service process (about 90 MiB) would otherwise live as long as the run.
  await stop();
  // Which source each worker file stands for (read by harness/vitest/eval-config.ts).
  writeFileSync(
    join(CACHE, dir, 'worker-entries.json'),
    JSON.stringify(Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([k, v]) => [v, `${k}.mjs`]))),
  );
  // A plugin's virtual module (`namespace:path`) is no file: the file it stands for is an input of its own.
  const inputs = Object.keys(r.metafile.inputs)
    .filter((f) => !/^[\w-]+:/.test(f))
    .map((f) => {
      const s = seen.get(join(ROOT, f)) ?? statSync(join(ROOT, f));
      return [f, s.size, s.mtimeMs];
    });
  const mtmp = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(
    mtmp,
    JSON.stringify({ format: FORMAT, node: process.version, root: ROOT, dir, entries: WORKER_ENTRIES, inputs }),
  );
  renameSync(mtmp, MANIFEST);
  prune(dir);
  return dir;
}

/** Removes builds other than `keep` that are over a day old (a run started from one may still load chunks from it). */
function prune(keep) {
  for (const d of readdirSync(CACHE)) {
    if (!d.startsWith('b-') || d === keep) continue;
    try {
      if (Date.now() - statSync(join(CACHE, d)).mtimeMs > 86_400_000)
        rmSync(join(CACHE, d), { recursive: true, force: true });
    } catch {
      // already gone
    }
  }
}

/**
 * Rebuild in a child process: a build leaves the process that ran it about 100 MiB larger, which the run (its
 * Vitest main process) would then carry to the end. Throws when the build fails.
 */
function buildInChild() {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--build'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  if (!dir) throw new Error(`CLI bundle build failed (exit ${r.status})`);
  return dir;
}

const LOCK = join(CACHE, 'build.lock');
/** How long a launcher waits for another's build before it builds one of its own. */
const WAIT_MS = 120_000;

function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Whether the build lock is held: 'held', 'gone' (its process is), or 'released' (no lock now). */
function lockHolder() {
  let text;
  let age;
  try {
    text = readFileSync(LOCK, 'utf8').trim();
    age = Date.now() - statSync(LOCK).mtimeMs;
  } catch {
    return 'released';
  }
  // A lock with no pid yet is being written, unless it has been empty for seconds (its process died first).
  return (text === '' ? age > 10_000 : !alive(Number(text))) ? 'gone' : 'held';
}

const TAKEOVER = join(CACHE, 'build.lock.takeover');

/**
 * Removes a lock whose process is gone, one launcher at a time, looking again once it is alone: two launchers that
 * both saw the same dead lock would otherwise each remove it, the second removing the lock the first had just taken
 * in its place, and both would build. The takeover's own lock is held for microseconds; one left for seconds by a
 * process that died holding it is removed. False: another launcher is at it (wait, then look again).
 */
function removeStaleLock() {
  let fd;
  try {
    fd = openSync(TAKEOVER, 'wx', 0o600);
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    try {
      if (Date.now() - statSync(TAKEOVER).mtimeMs > 10_000) rmSync(TAKEOVER, { force: true });
    } catch {
      // released meanwhile
    }
    return false;
  }
  try {
    closeSync(fd);
    if (lockHolder() === 'gone') rmSync(LOCK, { force: true });
  } finally {
    rmSync(TAKEOVER, { force: true });
  }
  return true;
}

/**
 * A fresh bundle: built here, or by the launcher that holds the build lock (the pid in `build.lock`). The first
 * runs after a checkout or an edit often start together (a test suite's workers, a shell loop): each built a bundle
 * of its own, about a CPU-second apiece, where one is enough. A lock whose process is gone is taken over.
 */
async function buildOnce() {
  mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let fd;
    try {
      fd = openSync(LOCK, 'wx', 0o600);
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, String(process.pid));
        closeSync(fd);
        // Another launcher may have finished between this one's check and its lock.
        return fresh() ?? buildInChild();
      } finally {
        rmSync(LOCK, { force: true });
      }
    }
    const held = lockHolder();
    if (held === 'released') continue; // released meanwhile: try to take it
    if (held === 'gone' && removeStaleLock()) continue;
    await new Promise((r) => setTimeout(r, 50));
    const dir = fresh();
    if (dir) return dir;
    if (Date.now() > deadline) return buildInChild();
  }
}

// `node bin/cli-bundle.mjs --build`: build, print the bundle's folder.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === '--build') {
  process.stdout.write(`${await rebuild()}\n`);
}

/**
 * The folder of a fresh worker bundle (built if need be), or null where the launcher would load the sources: for a
 * process that runs the CLI's `main` itself (the end-to-end tests' in-process runs), as `loadCli` does below.
 */
export async function workerBundleDir() {
  if (process.env.TOOLGAUGE_CLI_BUNDLE === '0' || cacheProblem()) return null;
  try {
    return join(CACHE, fresh() ?? (await buildOnce()));
  } catch {
    return null;
  }
}

/** The CLI's `main`, from the bundle when possible, else from source through tsx. */
export async function loadCli() {
  // Only this launcher says where the worker bundle is: an inherited value could point the test worker anywhere.
  delete process.env.TOOLGAUGE_WORKER_BUNDLE;
  delete process.env.TOOLGAUGE_WORKER_BUNDLE_PID;
  const problem = cacheProblem();
  if (problem) process.stderr.write(`toolgauge: not using the CLI bundle: ${CACHE} ${problem}; loading the sources\n`);
  if (process.env.TOOLGAUGE_CLI_BUNDLE !== '0' && !problem) {
    try {
      const dir = fresh() ?? (await buildOnce());
      // Stack traces of this process point into the bundle unless Node runs with --enable-source-maps (e.g.
      // NODE_OPTIONS=--enable-source-maps): turned on here, it made Node parse every chunk's map as it loaded, about
      // 0.05-0.1 s of every run. Test failures point into the sources either way (Vitest maps them itself).
      process.env.TOOLGAUGE_WORKER_BUNDLE = join(CACHE, dir);
      process.env.TOOLGAUGE_WORKER_BUNDLE_PID = String(process.pid);
      return (await import(pathToFileURL(join(CACHE, dir, 'main.mjs')).href)).main;
    } catch {
      // Read-only install, esbuild missing: load from source.
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return (await import(pathToFileURL(ENTRY).href)).main;
}

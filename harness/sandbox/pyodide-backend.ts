// Command lines for the pyodide worker pool: Node's permission model around pyodide-worker.mjs, plus the
// OS confinement of confine.ts, plus a memory snapshot that makes a worker start in a fraction of the time.
// The snapshot is built by a worker under the same confinement (it writes the bytes to an inherited pipe),
// cached in a private per-user folder (cache-dir.ts), and handed to each worker as an open descriptor: no
// worker needs to read, let alone write, the cache folder.
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCachedFile, privateCacheDir, writeCachedFile } from './cache-dir.ts';
import { confined } from './confine.ts';
import { DIST_PACKAGES, hostPythonPaths, PYODIDE_PREIMPORTS, type HostPath } from './packages.ts';
import type { WorkerLaunch } from './pool.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKER_FILE = path.join(here, 'pyodide-worker.mjs');
export const RUNTIME_DIR = path.join(here, 'runtime');

/** Python paths a worker may read (the audit hook's read roots, in pyodide's virtual file system). */
const PYODIDE_READ_ROOTS = ['/lib', '/home/pyodide'];

export interface PyodideLaunchOptions {
  memoryLimitMb: number;
  /** Build and use a memory snapshot (a run's TOOLGAUGE_SANDBOX_SNAPSHOT=0 turns it off at its edge). */
  snapshot: boolean;
  /** OS confinement of the workers (default true; a run's TOOLGAUGE_SANDBOX_CONFINE=0 turns it off at its edge). */
  confine?: boolean;
  /** Longest response line a worker may send (see protocol.ts: maxResponseBytes). */
  maxResponseBytes: number;
  /** Where the per-user cache folder lives (default: the OS temporary folder). */
  cacheRoot?: string;
  /**
   * Python source each worker runs after removing Python's references to JavaScript and before its guard goes up;
   * the value of its last expression comes back in the ready line as `scrubAudit` (tests: an independent check).
   */
  scrubAudit?: string;
}

/** Descriptor number the worker finds the snapshot on (load) or writes it to (make). */
const SNAPSHOT_FD = 3;

interface WorkerConfig {
  indexURL: string;
  runtimeDir: string;
  memoryLimitMb: number;
  mounts: { host: string; path: string }[];
  files: { host: string; path: string }[];
  sysPath: string[];
  readRoots: string[];
  preimport?: string[];
  maxResponseBytes: number;
  snapshot?: { mode: 'make' | 'load'; fd: number };
  scrubAudit?: string;
}

export function pyodideDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('pyodide/package.json'));
}

function wsDir(pyodide: string): string {
  return path.dirname(createRequire(path.join(pyodide, 'x.js')).resolve('ws/package.json'));
}

/**
 * The worker's whole environment: glibc's allocator only. With an arena per thread, and freed memory kept at the
 * top of each up to a threshold that grows with the largest block freed, a worker serving 182 ToolHop rows ended
 * about 30 MiB larger (PSS) than with one arena that returns what it frees.
 */
const WORKER_ENV: Record<string, string> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export class PyodideLauncher {
  private readonly indexURL = pyodideDir() + path.sep;
  private readonly paths: HostPath[] = hostPythonPaths();
  private snapshotFd: number | null = null;
  snapshotNote = 'not prepared';

  constructor(private readonly opts: PyodideLaunchOptions) {}

  private baseConfig(): WorkerConfig {
    return {
      indexURL: this.indexURL,
      runtimeDir: RUNTIME_DIR,
      memoryLimitMb: this.opts.memoryLimitMb,
      mounts: this.paths.filter((p) => p.kind === 'dir').map(({ host, path }) => ({ host, path })),
      files: this.paths.filter((p) => p.kind === 'file').map(({ host, path }) => ({ host, path })),
      sysPath: [DIST_PACKAGES],
      readRoots: [...PYODIDE_READ_ROOTS, DIST_PACKAGES, ...this.paths.map((p) => p.path)],
      maxResponseBytes: this.opts.maxResponseBytes,
      ...(this.opts.scrubAudit === undefined ? {} : { scrubAudit: this.opts.scrubAudit }),
    };
  }

  /** Node flags: read access to exactly what the worker needs; no write, child process, worker or addon. */
  private nodeArgs(): string[] {
    const read = [this.indexURL, wsDir(this.indexURL), WORKER_FILE, RUNTIME_DIR, ...this.paths.map((p) => p.host)];
    return [
      '--experimental-permission',
      ...read.map((p) => `--allow-fs-read=${p}`),
      '--disallow-code-generation-from-strings',
      '--max-old-space-size=512',
      // V8 favours a small heap over peak JavaScript speed: about 15 MiB less per worker, no slower on ToolHop
      // (bench/toolhop.ts); the interpreter's time is in wasm, which this flag leaves alone.
      '--optimize-for-size',
      '--no-warnings',
    ];
  }

  private command(config: WorkerConfig): WorkerLaunch {
    const { file, args, forks } = confined(
      process.execPath,
      [...this.nodeArgs(), WORKER_FILE, JSON.stringify(config)],
      { enabled: this.opts.confine !== false },
    );
    return { file, args, env: WORKER_ENV, forked: forks };
  }

  launch(): WorkerLaunch {
    const config = this.baseConfig();
    if (this.snapshotFd === null) return this.command(config);
    return { ...this.command({ ...config, snapshot: { mode: 'load', fd: SNAPSHOT_FD } }), fds: [this.snapshotFd] };
  }

  /** The snapshot builder's command line: a worker like any other (same confinement), writing to descriptor 3. */
  builderLaunch(): WorkerLaunch {
    return this.command({
      ...this.baseConfig(),
      preimport: PYODIDE_PREIMPORTS,
      snapshot: { mode: 'make', fd: SNAPSHOT_FD },
    });
  }

  /** Find or build the memory snapshot (cached per content); on failure, workers start without one. */
  async prepare(): Promise<void> {
    if (!this.opts.snapshot) {
      this.snapshotNote = 'disabled';
      return;
    }
    const cache = privateCacheDir(this.opts.cacheRoot);
    const name = `pyodide-${this.fingerprint()}.snapshot`;
    const where = cache.refused ? ` (private folder for this process: ${cache.refused})` : '';
    try {
      let fd = openCachedFile(cache.path, name);
      if (fd !== null) {
        this.snapshotFd = fd;
        this.snapshotNote = `cached ${path.join(cache.path, name)}${where}`;
        return;
      }
      const launch = this.builderLaunch();
      // Loaded here, the one time a snapshot is built: a run whose snapshot is cached never needs execa.
      const { execa } = await import('execa');
      const r = await execa(launch.file, launch.args, {
        env: launch.env,
        extendEnv: false,
        reject: false,
        timeout: 180_000,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        encoding: 'buffer',
        maxBuffer: 1024 * 2 ** 20,
      });
      const bytes = r.stdio[SNAPSHOT_FD] as Uint8Array | undefined;
      if (r.exitCode !== 0 || !bytes || bytes.length === 0) {
        const out = (b: unknown) => (b instanceof Uint8Array ? Buffer.from(b).toString('utf8') : '');
        this.snapshotNote = `snapshot build failed (exit ${r.exitCode}): ${out(r.stdout).slice(0, 300)} ${out(r.stderr).slice(-500)}`;
        return;
      }
      writeCachedFile(cache.path, name, bytes);
      fd = openCachedFile(cache.path, name);
      if (fd === null) throw new Error(`cannot reopen ${name} in ${cache.path}`);
      this.snapshotFd = fd;
      this.snapshotNote = `built ${path.join(cache.path, name)}${where}`;
      // A private folder of this process only: the open descriptor keeps the snapshot alive.
      if (cache.refused) rmSync(cache.path, { recursive: true, force: true });
      else removeStale(cache.path, name);
    } catch (err) {
      this.snapshotNote = `snapshot build failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Close the snapshot descriptor (after the pool's workers are gone). */
  dispose(): void {
    if (this.snapshotFd !== null) closeSync(this.snapshotFd);
    this.snapshotFd = null;
  }

  /** Everything the snapshot's content depends on. */
  private fingerprint(): string {
    const h = createHash('sha256');
    h.update(readFileSync(path.join(this.indexURL, 'package.json')));
    h.update(readFileSync(WORKER_FILE));
    for (const f of readdirSync(RUNTIME_DIR).sort())
      if (f.endsWith('.py')) h.update(f).update(readFileSync(path.join(RUNTIME_DIR, f)));
    h.update(JSON.stringify({ paths: this.paths, pre: PYODIDE_PREIMPORTS, node: process.version }));
    for (const p of this.paths) h.update(String(statSync(p.host).mtimeMs));
    return h.digest('hex').slice(0, 24);
  }
}

/** Snapshots of earlier content (and leftovers of interrupted builds) older than an hour. */
function removeStale(dir: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const f of readdirSync(dir)) {
    if (f === keep || !/^\.?pyodide-.*\.snapshot/.test(f)) continue;
    try {
      if (lstatSync(path.join(dir, f)).mtimeMs < hourAgo) rmSync(path.join(dir, f), { force: true });
    } catch {
      // another process removed it first
    }
  }
}

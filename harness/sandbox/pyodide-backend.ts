// Command lines for the pyodide worker pool: Node's permission model around pyodide-worker.mjs, plus the
// OS confinement of confine.ts, plus a memory snapshot that makes a worker start in a fraction of the time.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { confined } from './confine.ts';
import { DIST_PACKAGES, hostPythonPaths, SNAPSHOT_PREIMPORTS, type HostPath } from './packages.ts';
import type { WorkerLaunch } from './pool.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKER_FILE = path.join(here, 'pyodide-worker.mjs');
export const RUNTIME_DIR = path.join(here, 'runtime');

/** Python paths a worker may read (the audit hook's read roots, in pyodide's virtual file system). */
const PYODIDE_READ_ROOTS = ['/lib', '/home/pyodide'];

export interface PyodideLaunchOptions {
  memoryLimitMb: number;
  /** Build and use a memory snapshot (default true; TOOLGAUGE_SANDBOX_SNAPSHOT=0 turns it off). */
  snapshot: boolean;
}

interface WorkerConfig {
  indexURL: string;
  runtimeDir: string;
  memoryLimitMb: number;
  mounts: { host: string; path: string }[];
  files: { host: string; path: string }[];
  sysPath: string[];
  readRoots: string[];
  preimport?: string[];
  snapshot?: { mode: 'make' | 'load'; path: string };
}

export function pyodideDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('pyodide/package.json'));
}

function wsDir(pyodide: string): string {
  return path.dirname(createRequire(path.join(pyodide, 'x.js')).resolve('ws/package.json'));
}

export class PyodideLauncher {
  private readonly indexURL = pyodideDir() + path.sep;
  private readonly paths: HostPath[] = hostPythonPaths();
  private snapshotPath: string | null = null;
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
    };
  }

  /** Node flags: read access to exactly what the worker needs; no write, child process, worker or addon. */
  private nodeArgs(extraRead: string[], write: string[] = []): string[] {
    const read = [this.indexURL, wsDir(this.indexURL), WORKER_FILE, RUNTIME_DIR, ...this.paths.map((p) => p.host), ...extraRead];
    return [
      '--experimental-permission',
      ...read.map((p) => `--allow-fs-read=${p}`),
      ...write.map((p) => `--allow-fs-write=${p}`),
      '--disallow-code-generation-from-strings',
      '--max-old-space-size=512',
      '--no-warnings',
    ];
  }

  launch(): WorkerLaunch {
    const config = this.baseConfig();
    const extraRead: string[] = [];
    if (this.snapshotPath) {
      config.snapshot = { mode: 'load', path: this.snapshotPath };
      extraRead.push(this.snapshotPath);
    }
    const { file, args } = confined(process.execPath, [...this.nodeArgs(extraRead), WORKER_FILE, JSON.stringify(config)]);
    return { file, args, env: {} };
  }

  /** Build the memory snapshot once per content (cached in the OS temp folder); on failure, start without. */
  async prepare(): Promise<void> {
    if (!this.opts.snapshot || process.env.TOOLGAUGE_SANDBOX_SNAPSHOT === '0') {
      this.snapshotNote = 'disabled';
      return;
    }
    const dir = path.join(tmpdir(), 'toolgauge-sandbox');
    const target = path.join(dir, `pyodide-${this.fingerprint()}.snapshot`);
    if (existsSync(target)) {
      this.snapshotPath = target;
      this.snapshotNote = `cached ${target}`;
      return;
    }
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      const config: WorkerConfig = { ...this.baseConfig(), preimport: SNAPSHOT_PREIMPORTS, snapshot: { mode: 'make', path: target } };
      // The builder runs only this project's set-up code (no dataset code): it may write the snapshot folder.
      const r = await execa(process.execPath, [...this.nodeArgs([dir], [dir]), WORKER_FILE, JSON.stringify(config)], {
        env: {},
        extendEnv: false,
        reject: false,
        timeout: 120_000,
        stdin: 'ignore',
      });
      if (r.exitCode === 0 && existsSync(target)) {
        this.snapshotPath = target;
        this.snapshotNote = `built ${target}`;
        removeStale(dir, path.basename(target));
      } else {
        this.snapshotNote = `snapshot build failed (exit ${r.exitCode}): ${String(r.stdout).slice(0, 300)} ${String(r.stderr).slice(-500)}`;
      }
    } catch (err) {
      this.snapshotNote = `snapshot build failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Everything the snapshot's content depends on. */
  private fingerprint(): string {
    const h = createHash('sha256');
    h.update(readFileSync(path.join(this.indexURL, 'package.json')));
    h.update(readFileSync(WORKER_FILE));
    for (const f of readdirSync(RUNTIME_DIR).sort()) if (f.endsWith('.py')) h.update(f).update(readFileSync(path.join(RUNTIME_DIR, f)));
    h.update(JSON.stringify({ paths: this.paths, pre: SNAPSHOT_PREIMPORTS, node: process.version }));
    for (const p of this.paths) h.update(String(statSync(p.host).mtimeMs));
    return h.digest('hex').slice(0, 24);
  }
}

/** Snapshots of earlier content (and leftovers of interrupted builds) older than an hour. */
function removeStale(dir: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const f of readdirSync(dir)) {
    if (f === keep || !/^pyodide-.*\.snapshot/.test(f)) continue;
    try {
      if (statSync(path.join(dir, f)).mtimeMs < hourAgo) rmSync(path.join(dir, f), { force: true });
    } catch {
      // another process removed it first
    }
  }
}

// The sandbox cache folder against other users of the machine: planted symlinks, loose modes, foreign owners,
// and files swapped for links. The snapshot builder runs confined like the workers.
import {
  chownSync,
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCachedFile, privateCacheDir, writeCachedFile } from './cache-dir.ts';
import { confined } from './confine.ts';
import { PyodideLauncher } from './pyodide-backend.ts';

const uid = process.getuid?.() ?? -1;
const isRoot = uid === 0;
let root: string;
let victim: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'toolgauge-cachedir-test-'));
  victim = path.join(root, 'victim');
  mkdirSync(victim);
  writeFileSync(path.join(victim, 'precious'), 'do not touch');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string) => lstatSync(p).mode & 0o777;
const expected = () => path.join(root, `toolgauge-sandbox-${uid}`);

describe('privateCacheDir', () => {
  it('creates a per-user folder with mode 700 and reuses it', () => {
    const first = privateCacheDir(root);
    expect(first).toEqual({ path: expected() });
    expect(mode(first.path)).toBe(0o700);
    expect(privateCacheDir(root)).toEqual({ path: expected() });
  });

  it('refuses a symlink planted at its name, and leaves the link target alone', () => {
    symlinkSync(victim, expected());
    const dir = privateCacheDir(root);
    expect(dir.refused).toMatch(/symbolic link/);
    expect(dir.path).not.toBe(expected());
    expect(mode(dir.path)).toBe(0o700);
    writeCachedFile(dir.path, 'pyodide-x.snapshot', new Uint8Array([1, 2, 3]));
    expect(existsSync(path.join(victim, 'pyodide-x.snapshot'))).toBe(false);
    expect(readFileSync(path.join(victim, 'precious'), 'utf8')).toBe('do not touch');
  });

  it('refuses a folder others may read or write', () => {
    mkdirSync(expected(), { mode: 0o755 });
    chmodSync(expected(), 0o777);
    expect(privateCacheDir(root).refused).toMatch(/mode 777/);
  });

  it.runIf(isRoot)('refuses a folder owned by someone else (needs root)', () => {
    mkdirSync(expected(), { mode: 0o700 });
    chownSync(expected(), 65534, 65534);
    expect(privateCacheDir(root).refused).toMatch(/owned by uid 65534/);
  });
});

describe('cached files', () => {
  it('are written through an exclusive temporary file; a symlink planted at the name is replaced, not followed', () => {
    const dir = privateCacheDir(root).path;
    symlinkSync(path.join(victim, 'precious'), path.join(dir, 'pyodide-x.snapshot'));
    writeCachedFile(dir, 'pyodide-x.snapshot', new Uint8Array([7, 8, 9]));
    expect(readFileSync(path.join(victim, 'precious'), 'utf8')).toBe('do not touch');
    expect(lstatSync(path.join(dir, 'pyodide-x.snapshot')).isSymbolicLink()).toBe(false);
    expect(mode(path.join(dir, 'pyodide-x.snapshot'))).toBe(0o600);
    const fd = openCachedFile(dir, 'pyodide-x.snapshot');
    expect(fd).not.toBeNull();
    const buf = Buffer.alloc(3);
    readSync(fd!, buf, 0, 3, 0);
    closeSync(fd!);
    expect([...buf]).toEqual([7, 8, 9]);
  });

  it('are not opened through a symlink, nor when others may write them', () => {
    const dir = privateCacheDir(root).path;
    symlinkSync(path.join(victim, 'precious'), path.join(dir, 'linked.snapshot'));
    expect(openCachedFile(dir, 'linked.snapshot')).toBeNull();
    writeFileSync(path.join(dir, 'loose.snapshot'), 'x');
    chmodSync(path.join(dir, 'loose.snapshot'), 0o666);
    expect(openCachedFile(dir, 'loose.snapshot')).toBeNull();
    expect(openCachedFile(dir, 'absent.snapshot')).toBeNull();
  });

  it.runIf(isRoot)('are not opened when someone else owns them (needs root)', () => {
    const dir = privateCacheDir(root).path;
    writeFileSync(path.join(dir, 'foreign.snapshot'), 'x', { mode: 0o600 });
    chownSync(path.join(dir, 'foreign.snapshot'), 65534, 65534);
    expect(openCachedFile(dir, 'foreign.snapshot')).toBeNull();
  });
});

describe('pyodide snapshot builder', () => {
  it('runs under the same confinement as the workers, with no write permission', () => {
    const launcher = new PyodideLauncher({
      memoryLimitMb: 512,
      snapshot: true,
      maxResponseBytes: 2 ** 20,
      cacheRoot: root,
    });
    const worker = launcher.launch();
    const builder = launcher.builderLaunch();
    const prefix = confined(process.execPath, []);
    expect(builder.file).toBe(prefix.file);
    expect(builder.args.slice(0, prefix.args.length)).toEqual(prefix.args);
    expect(worker.args.slice(0, prefix.args.length)).toEqual(prefix.args);
    expect(builder.forked).toBe(worker.forked);
    expect(builder.args.join(' ')).not.toMatch(/allow-fs-write|allow-child-process|allow-worker/);
    expect(builder.args.join(' ')).not.toContain(root); // nothing of the cache folder is granted: the bytes go through a pipe
  });
});

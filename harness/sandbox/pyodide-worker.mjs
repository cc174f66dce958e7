// Pyodide sandbox worker: one child process of the pool, started by harness/sandbox/pyodide-backend.ts as
//   node --experimental-permission --allow-fs-read=<pyodide, packages, zoneinfo, runtime> \
//        --disallow-code-generation-from-strings pyodide-worker.mjs '<config json>'
// under the OS confinement of confine.ts. Plain .mjs on purpose: no TypeScript loader runs under the
// permission model.
//
// Protocol (stdio, one JSON object per line): the worker writes {"ready":true,...} once, then answers each
// request line with one response line (runtime/toolhop_runtime.py: handle_json). The memory snapshot comes in
// on an inherited file descriptor (config.snapshot.fd, read with pread so workers may share it); with
// config.snapshot.mode === 'make' the worker instead writes a new snapshot to that descriptor and exits.
//
// No two rows share interpreter state: before serving a call of another row than the last one (or once idle
// for 10 ms), the worker copies the wasm heap back from the copy it took once set-up and hardening were done
// (only the 64 KiB blocks that differ, up to the saved break; the copy keeps only the blocks that are not zero),
// zeroes the rest, and closes the files calls left open. Calls of one row served back to back share the state (as the reference runner keeps one
// namespace per instance). JavaScript-side state that a copy cannot bring back (the function table, loaded
// dynamic libraries, closed standard streams) is checked after every call; if it changed, the answer asks
// the host to replace this worker instead.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

// The unit of heap comparison and copy (the saved state, the snapshot's load).
const BLOCK = 1 << 16;
const ZERO = Buffer.alloc(BLOCK);

// V8 compiles wasm with its baseline compiler (Liftoff) and recompiles a function with its optimizing compiler
// (TurboFan) once it has run for a while. Even with that budget raised 500-fold, one function got there before the
// worker was ready, in every start traced: the interpreter's eval loop (58 KB of wasm). Its recompilation took 0.5-1.2
// CPU-s of a background thread and about 20 MB of short-lived allocations, which left about 10 MiB of free but resident
// holes in the worker's malloc heap for the rest of its life (21 MiB instead of 11 once ready). Baseline code only: a
// 182-row ToolHop run costs the same CPU and its worker about 10 MiB less; a tool that loops in Python for seconds
// costs about 30% more (harness/sandbox/README.md).
// Set here rather than as a command-line flag: an engine without the flag then only logs that it is unknown.
v8.setFlagsFromString('--liftoff-only');
// And it compiles a function only when it first runs, not the whole 8.6 MB module up front: a run calls a small part
// of the interpreter, and each worker's start costs about 0.1 CPU-s less (0.53-0.64 against 0.65-0.75 CPU-s).
v8.setFlagsFromString('--wasm-lazy-compilation');

// A full collection on demand, for once after loading: what loading left behind (pyodide's module file, the
// snapshot's shell) would otherwise stay resident until allocation happens to start one. Not a global: nothing reachable
// from Python can call it.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');

const t0 = performance.now();
const config = JSON.parse(process.argv[2] ?? '{}');

// Keep what the worker itself needs before anything reachable from Python is loaded; globals that could
// help an escape are removed after set-up (hardenJs below).
const stdout = process.stdout;
const stdin = process.stdin;
const exit = process.exit.bind(process);
const writeLine = (obj) => stdout.write(JSON.stringify(obj) + '\n');
const maxResponseChars = config.maxResponseBytes ?? 16 * 2 ** 20;
const maxRequestChars = config.maxRequestBytes ?? 64 * 2 ** 20;

// Pyodide's NODEFS set-up calls process.binding('constants'), which the permission model refuses.
const realBinding = process.binding.bind(process);
process.binding = (name) => (name === 'constants' ? { fs: fs.constants, os: {} } : realBinding(name));

// Bound the wasm heap: pyodide creates its (imported) memory with maximum 65536 pages (4 GiB). A smaller
// maximum turns a runaway allocation into a Python MemoryError instead of a 4 GiB process.
const OrigMemory = WebAssembly.Memory;
const limitPages = Math.max(256, Math.floor((config.memoryLimitMb ?? 1024) * 16));
let heap = null;
class BoundedMemory extends OrigMemory {
  constructor(desc) {
    const bounded = desc && !desc.shared && desc.maximum === 65536 ? { ...desc, maximum: limitPages } : desc;
    super(bounded);
    if (bounded !== desc) heap = this;
  }
}
WebAssembly.Memory = BoundedMemory;

function fail(message) {
  writeLine({ ready: false, error: String(message) });
  exit(3);
}

/** Fill `buf` from descriptor `fd` at file offset `pos` (explicit offsets: the offset is shared with siblings). */
function preadFully(fd, buf, pos) {
  let off = 0;
  while (off < buf.length) {
    const n = fs.readSync(fd, buf, off, buf.length - off, pos + off);
    if (n === 0) throw new Error(`snapshot ended at byte ${pos + off}, before ${pos + buf.length}`);
    off += n;
  }
}

/**
 * The snapshot as pyodide takes it, without its bytes in memory: a zero-filled buffer of the file's size, of which
 * only the header and metadata are read in (pyodide reads them, its size and the offset where the heap starts). A
 * fresh zero-filled buffer this large is mapped but not resident, so the heap part costs nothing until
 * copySnapshotBlocks reads it from the descriptor, block by block, into the wasm heap: the worker's start peaks
 * about 25 MiB lower than with the whole file read first.
 */
function snapshotShell(fd) {
  const shell = new Uint8Array(fs.fstatSync(fd).size);
  preadFully(fd, shell.subarray(0, 8), 0);
  const heapStart = new DataView(shell.buffer, shell.byteOffset).getUint32(4, true); // after the magic number
  if (heapStart > shell.length) throw new Error(`snapshot header names heap offset ${heapStart} past its end`);
  preadFully(fd, shell.subarray(0, heapStart), 0);
  return shell;
}

function writeFdFully(fd, bytes) {
  let off = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, Math.min(bytes.length - off, 1 << 20));
    } catch (err) {
      if (err?.code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Copy the snapshot's heap part (`src`, a view of the shell at the file offset where it starts) from descriptor `fd`
 * into the start of the wasm heap `dst`, block by block, leaving alone the blocks that already hold the same bytes.
 * A fresh heap is zero, so the snapshot's zero blocks (a third of it: the interpreter's stack, free arenas) are only
 * read, and their pages are never made resident.
 */
function copySnapshotBlocks(dst, src, shell, fd) {
  const d = Buffer.from(dst.buffer, dst.byteOffset, src.length);
  const block = Buffer.allocUnsafe(BLOCK);
  const fileStart = src.byteOffset - shell.byteOffset;
  for (let at = 0; at < src.length; at += BLOCK) {
    const n = Math.min(BLOCK, src.length - at);
    preadFully(fd, block.subarray(0, n), fileStart + at);
    if (d.compare(block, 0, n, at, at + n) !== 0) block.copy(d, at, 0, n);
  }
}

/**
 * Run `load` while pyodide's one whole-heap copy of the snapshot (`Module.HEAP8.set(snapshot)`) goes through
 * copySnapshotBlocks; every other Int8Array copy is the ordinary one.
 */
async function withSnapshotFromFd(shell, fd, load) {
  if (!shell) return load();
  const proto = Int8Array.prototype;
  const set = proto.set;
  Object.defineProperty(proto, 'set', {
    configurable: true,
    writable: true,
    value: function (src, offset) {
      const whole =
        heap !== null &&
        this.buffer === heap.buffer &&
        this.byteOffset === 0 &&
        (offset ?? 0) === 0 &&
        src?.buffer === shell.buffer &&
        src.length <= this.length;
      if (whole) return copySnapshotBlocks(this, src, shell, fd);
      // Any other copy out of the shell gets the bytes it stands for, not its zeros.
      if (src?.buffer === shell.buffer) {
        const bytes = new Uint8Array(src.length);
        preadFully(fd, bytes, src.byteOffset - shell.byteOffset);
        return set.call(this, bytes, offset);
      }
      return set.call(this, src, offset);
    },
  });
  try {
    return await load();
  } finally {
    delete proto.set;
  }
}

const making = config.snapshot?.mode === 'make';
let pyodide;
let snapshotUsed = false;
try {
  // pyodide would import its 1 MiB CommonJS runtime from ESM, which first scans the whole source for named exports
  // (about 60 ms of a 0.3 s start); required directly, it defines the same global and loadPyodide skips the import.
  createRequire(import.meta.url)(path.join(config.indexURL, 'pyodide.asm.js'));
  const { loadPyodide } = await import(path.join(config.indexURL, 'pyodide.mjs'));
  let snapshot = config.snapshot?.mode === 'load' ? snapshotShell(config.snapshot.fd) : undefined;
  pyodide = await withSnapshotFromFd(snapshot, config.snapshot?.fd, () =>
    loadPyodide({
      indexURL: config.indexURL,
      jsglobals: Object.create(null), // `import js` would expose nothing even if it were importable
      env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0', TZ: 'UTC' },
      stdin: () => null, // end of file: the default would read the host's protocol stream
      _makeSnapshot: making,
      _loadSnapshot: snapshot,
    }),
  );
  snapshotUsed = snapshot !== undefined;
  // The closures made here (stdin's) share this block's scope: the snapshot's shell would live as long as they do.
  snapshot = undefined;
  // pyodide keeps its options: drop the snapshot's shell (25 MiB mapped, little of it resident) once it is loaded.
  if (pyodide._api?.config) delete pyodide._api.config._loadSnapshot;
  // Its wasm instantiation callback keeps the 8.6 MB module file it read (V8 holds its own copy of the code).
  delete pyodide._module?.instantiateWasm;
  // Both are garbage now: collected before the saved state is allocated, so the worker's start peaks lower.
  collectGarbage();
} catch (err) {
  fail(`loadPyodide failed: ${err?.stack ?? err}`);
}
WebAssembly.Memory = OrigMemory;
// The tools' own output goes nowhere, as raw bytes (decoding a long line to text would cost seconds).
pyodide.setStdout({ write: (bytes) => bytes.length });
pyodide.setStderr({ write: (bytes) => bytes.length });
const tLoaded = performance.now();
const Module = pyodide._module;
const FS = pyodide.FS;

try {
  const NODEFS = FS.filesystems.NODEFS;
  // Host folders are mounted where they live on the host, so relative symlinks (babel's locale-data) resolve.
  // Read-only twice over: the permission model grants no write, and the write operations refuse with EROFS.
  makeReadOnly(NODEFS.node_ops, NODEFS.stream_ops);
  for (const m of config.mounts ?? []) {
    FS.mkdirTree(m.path);
    FS.mount(NODEFS, { root: m.host }, m.path);
  }
  for (const f of config.files ?? []) {
    FS.mkdirTree(path.posix.dirname(f.path));
    FS.writeFile(f.path, fs.readFileSync(f.host));
  }
  for (const f of fs.readdirSync(config.runtimeDir)) {
    if (f.endsWith('.py')) {
      FS.mkdirTree('/lib/toolhop_sandbox');
      FS.writeFile(`/lib/toolhop_sandbox/${f}`, fs.readFileSync(path.join(config.runtimeDir, f)));
    }
  }
  // NODEFS is no longer needed: nothing else may mount the host.
  delete FS.filesystems.NODEFS;
  delete Module.NODEFS;
} catch (err) {
  fail(`file system set-up failed: ${err?.stack ?? err}`);
}

const tMounted = performance.now();
let handle;
let tPython = 0;
let jsHandles = null;
let tScrubbed = 0;
let scrubAudit;
try {
  const sysModule = pyodide.pyimport('sys');
  for (const p of [...(config.sysPath ?? []), '/lib/toolhop_sandbox'].reverse()) {
    if (!sysModule.path.includes(p)) sysModule.path.insert(0, p);
  }
  sysModule.destroy?.();
  const runtime = pyodide.pyimport('toolhop_runtime');
  const guard = pyodide.pyimport('sandbox_guard');
  runtime.preload();
  const preimportFailed = [];
  for (const mod of config.preimport ?? []) {
    try {
      pyodide.pyimport(mod)?.destroy?.();
    } catch {
      preimportFailed.push(mod); // a missing package: tools importing it get the ImportError themselves
    }
  }
  if (making) {
    const bytes = pyodide.makeMemorySnapshot();
    writeFdFully(config.snapshot.fd, bytes);
    writeLine({ ready: true, snapshotBytes: bytes.length, preimportFailed, startMs: performance.now() - t0 });
    exit(0);
  }
  handle = runtime.handle_bytes; // borrowed from `runtime`, which therefore stays alive
  tPython = performance.now();
  jsHandles = guard.scrub_pyodide();
  tScrubbed = performance.now();
  if (typeof config.scrubAudit === 'string') scrubAudit = String(pyodide.runPython(config.scrubAudit));
  guard.install_json(JSON.stringify(config.readRoots ?? []));
  guard.destroy?.();
} catch (err) {
  fail(`python set-up failed: ${err?.stack ?? err}`);
}

hardenJs();
const tHardened = performance.now();
const saved = saveState();
writeLine({
  ready: true,
  pid: process.pid,
  startMs: performance.now() - t0,
  loadMs: tLoaded - t0,
  mountMs: tMounted - tLoaded,
  pythonMs: tPython - tMounted,
  scrubMs: tScrubbed - tPython,
  hardenMs: tHardened - tPython,
  saveMs: performance.now() - tHardened,
  snapshot: snapshotUsed,
  heapBounded: heap !== null, // false would mean pyodide created its memory differently: only the RSS watchdog binds
  heapBytes: heap ? heap.buffer.byteLength : null,
  heapLimitBytes: limitPages * 65536,
  restoreBytes: saved?.compareEnd ?? null, // how much of the heap a restore compares
  savedBytes: saved?.blocks.length ?? null, // what the saved state keeps of it (its non-zero blocks)
  // Every call starts from the saved state (false: no heap handle, so every call gets a fresh worker).
  restore: saved !== null,
  jsHandles,
  ...(scrubAudit === undefined ? {} : { scrubAudit }),
  nodefs: 'NODEFS' in Module || 'NODEFS' in FS.filesystems,
});

// One request at a time: the host sends the next line only after it has the previous answer.
let buffered = '';
let retired = false;
stdin.setEncoding('utf8');
stdin.on('data', (chunk) => {
  if (retired) return;
  buffered += chunk;
  let nl;
  while (!retired && (nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim()) serve(line);
  }
  if (buffered.length > maxRequestChars) {
    buffered = '';
    writeLine({ id: null, kind: 'crash', message: `request longer than ${maxRequestChars} bytes` });
    retire();
  }
});
stdin.on('end', () => exit(0));

/** The row a request belongs to (id and sources), or null when the line is not a request. */
function rowOf(line) {
  try {
    const req = JSON.parse(line);
    return JSON.stringify([typeof req.row, req.row, req.sources]);
  } catch {
    return null;
  }
}

// The row whose calls ran since the last restore (null: the state is the saved one). The restore happens
// before a call of another row at the latest, and as soon as the worker has been idle for a moment (so that it
// usually costs the next call nothing).
let dirtyRow = null;
let idleRestore = null;
const IDLE_RESTORE_MS = 10;

function serve(line) {
  clearTimeout(idleRestore);
  const row = rowOf(line);
  if (dirtyRow !== null && (row === null || row !== dirtyRow)) restoreState();
  let res;
  try {
    res = handle(line);
  } catch (err) {
    // A fatal pyodide error (or a JavaScript string too long to build) leaves the interpreter unusable.
    writeLine({ id: safeId(line), kind: 'crash', message: `pyodide: ${String(err?.message ?? err).slice(0, 2000)}` });
    exit(4);
  }
  const { text, bytes } = answerText(res);
  let out = text;
  const refuse = (message) => JSON.stringify({ id: safeId(line), kind: 'crash', message });
  if (bytes > maxResponseChars)
    out = refuse(`tool response of ${bytes} bytes exceeds the limit of ${maxResponseChars}`);
  else if (out.includes('\n')) out = refuse('tool response spans several lines');
  else if (!out.startsWith('{') || !out.endsWith('}'))
    out = refuse('the runtime answered with something other than a JSON object');
  const heapBytes = heap ? heap.buffer.byteLength : 0;
  // Wasm memory never shrinks: ask to be replaced once a call has grown it past half the bound.
  const problem =
    saved === null
      ? 'no saved state'
      : heapBytes > (limitPages * 65536) / 2
        ? 'heap grew past half the bound'
        : unrestorable();
  if (problem) {
    retire();
    stdout.write(
      `${out.slice(0, -1)},"recycle":true,"recycleReason":${JSON.stringify(problem)},"heapBytes":${heapBytes}}\n`,
    );
    return;
  }
  stdout.write(`${out}\n`);
  dirtyRow = row ?? '(not a request)';
  idleRestore = setTimeout(restoreState, IDLE_RESTORE_MS);
}

/** The runtime's answer (bytes) as text, measured before it is copied out of the wasm heap. */
function answerText(res) {
  if (typeof res === 'string') return { text: res, bytes: res.length }; // not the runtime's own answer: a row replaced it
  let buf;
  try {
    buf = res.getBuffer('u8');
    if (buf.nbytes > maxResponseChars) return { text: '', bytes: buf.nbytes };
    return {
      text: Buffer.from(buf.data.buffer, buf.data.byteOffset, buf.data.byteLength).toString('latin1'),
      bytes: buf.nbytes,
    };
  } catch {
    return { text: '', bytes: 0 };
  } finally {
    try {
      buf?.release();
      res?.destroy?.();
    } catch {}
  }
}

function retire() {
  retired = true;
  stdin.pause();
}

function safeId(line) {
  try {
    return JSON.parse(line).id ?? null;
  } catch {
    return null;
  }
}

// --- per-call state -------------------------------------------------------------------------------------

function openFds() {
  const fds = [];
  FS.streams.forEach((s, fd) => {
    if (s) fds.push(fd);
  });
  return fds;
}

/**
 * The heap as set-up left it, kept sparsely: the 64 KiB blocks below `compareEnd` that hold anything, one after
 * another in `blocks` (`offsets[i]`: where block i starts there, -1 for a zero block). A third of the heap is zero.
 */
function saveState() {
  if (!heap || typeof Module._sbrk !== 'function') return null;
  const now = Buffer.from(heap.buffer);
  // Everything a program allocates lies below the break; above it the saved heap is zero (checked here, else
  // the whole heap is compared), so a restore compares up to the break and zeroes the rest.
  const top = Module._sbrk(0) >>> 0;
  const compareEnd = top <= now.length && isZero(now, top, now.length) ? top : now.length;
  const offsets = new Int32Array(Math.ceil(compareEnd / BLOCK)).fill(-1);
  let size = 0;
  for (let i = 0, at = 0; at < compareEnd; i++, at += BLOCK) {
    const stop = Math.min(at + BLOCK, compareEnd);
    if (isZero(now, at, stop)) continue;
    offsets[i] = size;
    size += stop - at;
  }
  const blocks = Buffer.allocUnsafeSlow(size);
  for (let i = 0, at = 0; at < compareEnd; i++, at += BLOCK)
    if (offsets[i] >= 0) now.copy(blocks, offsets[i], at, Math.min(at + BLOCK, compareEnd));
  return {
    blocks,
    offsets,
    compareEnd,
    table: Module.wasmTable?.length ?? -1,
    libs: Object.keys(Module.LDSO?.loadedLibsByName ?? {}).length,
    fds: new Set(openFds()),
  };
}

/** Whether bytes [from, to) of `buf` are all zero (at most one block at a time is compared). */
function isZero(buf, from, to) {
  for (let at = from; at < to; at += BLOCK) {
    const stop = Math.min(at + BLOCK, to);
    if (ZERO.compare(buf, at, stop, 0, stop - at) !== 0) return false;
  }
  return true;
}

/** Why the saved state cannot simply be copied back, or '' when it can. */
function unrestorable() {
  if ((Module.wasmTable?.length ?? -1) !== saved.table) return 'function table changed';
  if (Object.keys(Module.LDSO?.loadedLibsByName ?? {}).length !== saved.libs) return 'a dynamic library was loaded';
  for (const fd of saved.fds) if (!FS.streams[fd]) return `file descriptor ${fd} was closed`;
  return '';
}

function restoreState() {
  if (dirtyRow === null) return;
  dirtyRow = null;
  const now = Buffer.from(heap.buffer);
  const { blocks, offsets, compareEnd: end } = saved;
  for (let i = 0, at = 0; at < end; i++, at += BLOCK) {
    const stop = Math.min(at + BLOCK, end);
    const off = offsets[i];
    if (off < 0) {
      if (ZERO.compare(now, at, stop, 0, stop - at) !== 0) now.fill(0, at, stop);
    } else if (blocks.compare(now, at, stop, off, off + stop - at) !== 0) {
      blocks.copy(now, at, off, off + stop - at);
    }
  }
  // Zero in the saved heap, and whatever calls grew; a block that is zero already is left untouched (not resident).
  for (let at = end; at < now.length; ) {
    const stop = Math.min(at - (at % BLOCK) + BLOCK, now.length);
    if (ZERO.compare(now, at, stop, 0, stop - at) !== 0) now.fill(0, at, stop);
    at = stop;
  }
  for (const fd of openFds()) {
    if (saved.fds.has(fd)) continue;
    try {
      FS.close(FS.streams[fd]);
    } catch {
      FS.streams[fd] = null;
    }
  }
}

// --- hardening ------------------------------------------------------------------------------------------

function makeReadOnly(nodeOps, streamOps) {
  const erofs = () => {
    throw new FS.ErrnoError(69); // EROFS
  };
  for (const op of ['mknod', 'rename', 'unlink', 'rmdir', 'symlink']) if (nodeOps[op]) nodeOps[op] = erofs;
  const setattr = nodeOps.setattr;
  if (setattr) {
    nodeOps.setattr = function (node, attr) {
      if (attr.mode !== undefined || attr.size !== undefined || attr.timestamp !== undefined) erofs();
      return setattr.call(this, node, attr);
    };
  }
  const open = streamOps.open;
  if (open) {
    streamOps.open = function (stream) {
      if ((stream.flags & 3) !== 0 || stream.flags & (64 | 512 | 1024)) erofs(); // O_WRONLY/O_RDWR, O_CREAT|O_TRUNC|O_APPEND
      return open.call(this, stream);
    };
  }
  if (streamOps.write) streamOps.write = erofs;
  if (streamOps.allocate) streamOps.allocate = erofs;
}

function hardenJs() {
  // The in-memory file system becomes read-only too: a call could not undo a change to it.
  for (const kind of Object.values(Module.MEMFS?.ops_table ?? {})) {
    if (kind?.node) makeReadOnly(kind.node, kind.stream ?? {});
  }
  // Python has no path to JavaScript after scrub_pyodide; if one were found anyway, these are the globals
  // that would turn it into network, module loading or process access. (The permission model already
  // refuses writes, child processes, workers and native addons; code generation from strings is off.)
  for (const name of ['require', 'fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'Worker', 'SharedWorker']) {
    try {
      delete globalThis[name];
    } catch {}
  }
  const deny = () => {
    throw new Error('not available in the ToolHop sandbox');
  };
  for (const name of ['binding', '_linkedBinding', 'dlopen', 'kill', 'chdir', 'setuid', 'setgid']) {
    try {
      process[name] = deny;
    } catch {}
  }
  for (const name of [
    'mountNodeFS',
    'mountNativeFS',
    'loadPackage',
    'loadPackagesFromImports',
    'registerJsModule',
    'runPython',
    'runPythonAsync',
    'pyimport',
  ]) {
    try {
      delete pyodide[name];
    } catch {}
  }
}

// Pyodide sandbox worker: one child process of the pool, started by harness/sandbox/pyodide-backend.ts as
//   node --experimental-permission --allow-fs-read=<pyodide, packages, zoneinfo, runtime, snapshot> \
//        --disallow-code-generation-from-strings pyodide-worker.mjs '<config json>'
// Plain .mjs on purpose: no TypeScript loader runs under the permission model.
//
// Protocol (stdio, one JSON object per line): the worker writes {"ready":true,...} once, then answers each
// request line with one response line (see runtime/toolhop_runtime.py: handle_json). With
// config.snapshot.mode === 'make' it instead writes a memory snapshot to config.snapshot.path and exits.
import fs from 'node:fs';
import path from 'node:path';

const t0 = performance.now();
const config = JSON.parse(process.argv[2] ?? '{}');

// Keep what the worker itself needs before anything reachable from Python is loaded; globals that could
// help an escape are removed after set-up (harden below).
const stdout = process.stdout;
const stdin = process.stdin;
const exit = process.exit.bind(process);
const writeLine = (obj) => stdout.write(JSON.stringify(obj) + '\n');

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

let pyodide;
let snapshotUsed = false;
try {
  const { loadPyodide } = await import(path.join(config.indexURL, 'pyodide.mjs'));
  const snapshot =
    config.snapshot?.mode === 'load' && fs.existsSync(config.snapshot.path) ? fs.readFileSync(config.snapshot.path) : undefined;
  pyodide = await loadPyodide({
    indexURL: config.indexURL,
    jsglobals: Object.create(null), // `import js` would expose nothing even if it were importable
    env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0', TZ: 'UTC' },
    stdout: () => {},
    stderr: () => {},
    _makeSnapshot: config.snapshot?.mode === 'make',
    _loadSnapshot: snapshot,
  });
  snapshotUsed = snapshot !== undefined;
} catch (err) {
  fail(`loadPyodide failed: ${err?.stack ?? err}`);
}
WebAssembly.Memory = OrigMemory;
const tLoaded = performance.now();

try {
  const FS = pyodide.FS;
  const NODEFS = FS.filesystems.NODEFS;
  // Host folders are mounted where they live on the host, so relative symlinks (babel's locale-data) resolve.
  // Read-only twice over: the permission model grants no write, and the write operations refuse with EROFS.
  makeReadOnly(FS, NODEFS);
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
} catch (err) {
  fail(`file system set-up failed: ${err?.stack ?? err}`);
}

const tMounted = performance.now();
let handle;
let tPython = 0;
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
  if (config.snapshot?.mode === 'make') {
    const bytes = pyodide.makeMemorySnapshot();
    const tmp = `${config.snapshot.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bytes, { mode: 0o644 });
    fs.renameSync(tmp, config.snapshot.path);
    writeLine({ ready: true, snapshotBytes: bytes.length, preimportFailed, startMs: performance.now() - t0 });
    exit(0);
  }
  handle = runtime.handle_json;
  tPython = performance.now();
  guard.harden_pyodide(config.readRoots ?? []);
  guard.destroy?.();
} catch (err) {
  fail(`python set-up failed: ${err?.stack ?? err}`);
}

hardenJs();
writeLine({
  ready: true,
  pid: process.pid,
  startMs: performance.now() - t0,
  loadMs: tLoaded - t0,
  mountMs: tMounted - tLoaded,
  pythonMs: tPython - tMounted,
  hardenMs: performance.now() - tPython,
  snapshot: snapshotUsed,
  heapBounded: heap !== null, // false would mean pyodide created its memory differently: only the RSS watchdog binds
  heapBytes: heap ? heap.buffer.byteLength : null,
  heapLimitBytes: limitPages * 65536,
});

// One request at a time: the host sends the next line only after it has the previous answer.
let buffered = '';
stdin.setEncoding('utf8');
stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim()) serve(line);
  }
});
stdin.on('end', () => exit(0));

function serve(line) {
  let out;
  try {
    out = handle(line);
  } catch (err) {
    // A fatal pyodide error leaves the interpreter unusable: report it and let the host replace us.
    writeLine({ id: safeId(line), kind: 'crash', message: `pyodide: ${String(err?.message ?? err).slice(0, 2000)}` });
    exit(4);
  }
  const heapBytes = heap ? heap.buffer.byteLength : 0;
  // Wasm memory never shrinks: ask to be replaced once a call has grown it past half the bound.
  const recycle = heapBytes > (limitPages * 65536) / 2;
  stdout.write(recycle ? `${out.slice(0, -1)},"recycle":true,"heapBytes":${heapBytes}}\n` : `${out}\n`);
}

function safeId(line) {
  try {
    return JSON.parse(line).id ?? null;
  } catch {
    return null;
  }
}

function makeReadOnly(FS, NODEFS) {
  const erofs = () => {
    throw new FS.ErrnoError(69); // EROFS
  };
  for (const op of ['mknod', 'rename', 'unlink', 'rmdir', 'symlink']) NODEFS.node_ops[op] = erofs;
  const setattr = NODEFS.node_ops.setattr;
  NODEFS.node_ops.setattr = function (node, attr) {
    if (attr.mode !== undefined || attr.size !== undefined || attr.timestamp !== undefined) erofs();
    return setattr.call(this, node, attr);
  };
  const open = NODEFS.stream_ops.open;
  NODEFS.stream_ops.open = function (stream) {
    if ((stream.flags & 3) !== 0 || stream.flags & (64 | 512 | 1024)) erofs(); // O_WRONLY/O_RDWR, O_CREAT|O_TRUNC|O_APPEND
    return open.call(this, stream);
  };
  NODEFS.stream_ops.write = erofs;
}

function hardenJs() {
  // Python has no path to JavaScript after harden_pyodide; if one were found anyway, these are the globals
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
  for (const name of ['mountNodeFS', 'mountNativeFS', 'loadPackage', 'loadPackagesFromImports', 'registerJsModule', 'runPython', 'runPythonAsync', 'pyimport']) {
    try {
      delete pyodide[name];
    } catch {}
  }
}
